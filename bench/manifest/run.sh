#!/usr/bin/env bash
# The manifest benchmark: how long `assetsync plan` takes, and how much memory
# it needs, on manifests of 10k, 100k and 1M entries (XML and JSON) against an
# empty cache directory, and on a 100k-entry manifest whose files are all
# present. See bench/README.md.
#
#   bench/manifest/run.sh BINARY
#
# Environment (all optional):
#   ROUNDS=3                      timed runs per case (the median is reported)
#   SIZES="10000 100000 1000000"  manifest sizes for the empty-cache cases
#   PRESENT=100000                files in the present-files case (0 skips it)
#   BENCH_OUT=bench/out/manifest  where manifests and the cache tree are kept
#
# Generated manifests and the present-files tree are cached in BENCH_OUT and
# reused while they are newer than generate.py. Prints PASS/FAIL per target
# but exits 0 whatever the figures; non-zero only when the binary (or this
# script) failed to run.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
generator="$here/generate.py"
check_binary "$@"
need_tools python3 /usr/bin/time
rounds=${ROUNDS:-3}
read -r -a sizes <<<"${SIZES:-10000 100000 1000000}"
present=${PRESENT:-100000}
bench_out manifest

# ---------------------------------------------------------------- helpers
human_bytes() {
    awk -v b="$1" 'BEGIN { if (b >= 1e9) printf "%.2f GB", b/1e9; else if (b >= 1e6) printf "%.1f MB", b/1e6; else printf "%.1f kB", b/1e3 }'
}

# Is FILE missing or older than the generator? (then it must be made again)
stale() { [[ ! -s $1 || $generator -nt $1 ]]; }

# make_manifest N FORMAT FILE [generator options...]: generated once, then reused.
make_manifest() {
    local n=$1 format=$2 file=$3
    shift 3
    if stale "$file"; then
        log "generating $(basename "$file") ($n entries)..."
        python3 "$generator" --entries "$n" --format "$format" --out "$file.tmp" "$@"
        mv -f "$file.tmp" "$file"
    fi
}

# The present-files case: a manifest with small sizes (so the sparse tree is
# cheap) and a tree holding exactly its files at exactly their sizes.
present_small=65536
present_seed=7
make_present() {
    local n=$1 base="$out/present-$1"
    if stale "$base.xml" || stale "$base.json" || [[ ! -f $base.tree-ok || $base.xml -nt $base.tree-ok ]]; then
        log "creating $n sparse files in $(basename "$base")-tree/ (max size $present_small bytes)..."
        rm -rf "$base-tree" "$base-tree.tmp" "$base.tree-ok"
        mkdir -p "$base-tree.tmp"
        python3 "$generator" --entries "$n" --format xml --out "$base.xml.tmp" \
            --seed "$present_seed" --max-size "$present_small" --tree "$base-tree.tmp"
        python3 "$generator" --entries "$n" --format json --out "$base.json.tmp" \
            --seed "$present_seed" --max-size "$present_small"
        mv -f "$base.xml.tmp" "$base.xml"
        mv -f "$base.json.tmp" "$base.json"
        mv "$base-tree.tmp" "$base-tree"
        touch "$base.tree-ok"
    fi
}

declare -A walls=()   # case → "µs µs µs"
declare -A rss=()     # case → "kB kB kB" (max RSS of each round)
declare -A cpu=()     # case → "µs µs µs" (user+sys of each round)
failures=0

# measure CASE MANIFEST DEST: one timed `plan --json` run, output discarded.
measure() {
    local label=$1 manifest=$2 dest=$3 timefile="$out/.time"
    timed /usr/bin/time -v -o "$timefile" "$binary" plan "$manifest" --dest "$dest" --json
    if ((t_rc != 0)); then
        failures=$((failures + 1))
        log "FAILED: $label: '$binary plan $manifest --dest $dest --json' exited with status $t_rc"
        grep -E 'terminated by signal|Exit status' "$timefile" >&2 || true
        tail -n 5 "$last_err" >&2 || true
        walls[$label]+="ERR "
        return 0
    fi
    walls[$label]+="$t_us "
    rss[$label]+="$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$timefile") "
    cpu[$label]+="$(awk -F': ' '/User time \(seconds\)/ { u = $2 } /System time \(seconds\)/ { s = $2 } END { printf "%d", (u + s) * 1e6 }' "$timefile") "
}

# ---------------------------------------------------------------- header
print_header "assetsync manifest benchmark"
echo "rounds:   $rounds per case, interleaved; data in $out"
echo

# ---------------------------------------------------------------- data
for n in "${sizes[@]}"; do
    for format in xml json; do
        make_manifest "$n" "$format" "$out/manifest-$n.$format"
    done
done
if ((present > 0)); then make_present "$present"; fi

empty="$out/empty-dest"
rm -rf "$empty"
mkdir -p "$empty"

# Warm the page cache so the first round does not pay for a cold read.
for n in "${sizes[@]}"; do cat "$out/manifest-$n.xml" "$out/manifest-$n.json" >/dev/null; done

# ---------------------------------------------------------------- runs
log "running: plan MANIFEST --dest <empty dir> --json, $rounds rounds..."
for ((round = 1; round <= rounds; round++)); do
    for n in "${sizes[@]}"; do
        for format in xml json; do
            log "  round $round: $(short "$n") $format"
            measure "empty $n $format" "$out/manifest-$n.$format" "$empty"
        done
    done
done
if [[ -n $(ls -A "$empty") ]]; then
    log "FAILED: plan wrote into the cache directory $empty"
    failures=$((failures + 1))
fi

declare -A present_counts=()
if ((present > 0)); then
    log "running: plan MANIFEST --dest <tree of $present present files> --json, $rounds rounds..."
    find "$out/present-$present-tree" -type d >/dev/null  # warm the dentry/inode caches
    for ((round = 1; round <= rounds; round++)); do
        for format in xml json; do
            log "  round $round: present $(short "$present") $format"
            measure "present $present $format" "$out/present-$present.$format" "$out/present-$present-tree"
        done
    done
    # One untimed run per format to read the plan's summary line.
    for format in xml json; do
        summary=$("$binary" plan "$out/present-$present.$format" --dest "$out/present-$present-tree" --json 2>/dev/null | tail -n 1) || true
        present_counts[$format]=$(sed -E 's/.*"new":([0-9]+).*"changed":([0-9]+).*"check":([0-9]+).*"extra":([0-9]+).*/new \1, changed \2, check \3, extra \4/' <<<"$summary")
    done
fi

# ---------------------------------------------------------------- report
echo "Wall time is the median of $rounds runs (each run's time in brackets). Peak RSS is the"
echo "largest 'Maximum resident set size' that /usr/bin/time -v reported over the runs"
echo "(1 MB = 10^6 bytes). CPU is the median user+sys seconds per run."
echo "NOTE: plan's time includes parse + validate + scan + output (NDJSON to /dev/null), so"
echo "it is an upper bound on parse-and-validate alone."
echo

printf '%-26s %10s %9s  %-27s %7s %10s  %-15s %-6s %-13s %s\n' \
    CASE MANIFEST "WALL s" "(RUNS s)" "CPU s" "PEAK RSS" "TIME TARGET" RESULT "RSS TARGET" RESULT
row() {
    local label=$1 title=$2 file=$3 time_limit=$4 rss_limit_mb=$5
    local wall rss_kb rss_text time_target="-" time_result="" rss_target="-" rss_result="" w r c
    read -r -a w <<<"${walls[$label]:-}"
    read -r -a r <<<"${rss[$label]:-}"
    read -r -a c <<<"${cpu[$label]:-}"
    wall=$(median_s "${w[@]}")
    rss_kb=$(max_of "${r[@]}")
    num "$rss_kb" || rss_kb=0
    rss_text=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }')
    if [[ -n $time_limit ]]; then
        time_target="< $time_limit s"
        time_result=$(judge "$wall" '<' "$time_limit")
    fi
    if [[ -n $rss_limit_mb ]]; then
        rss_target="< $rss_limit_mb MB"
        if [[ $wall == ERR ]]; then rss_result=ERR
        else rss_result=$(judge "$(awk -v k="$rss_kb" 'BEGIN { print k * 1024 / 1e6 }')" '<' "$rss_limit_mb"); fi
    fi
    printf '%-26s %10s %9s  %-27s %7s %10s  %-15s %-6s %-13s %s\n' \
        "$title" "$(human_bytes "$(stat -c %s "$file")")" "$wall" "($(all_secs "${w[@]}"))" "$(secs "$(median_of "${c[@]}")" 2)" "$rss_text" \
        "$time_target" "$time_result" "$rss_target" "$rss_result"
    results+=("$time_result" "$rss_result")
}
results=()
for n in "${sizes[@]}"; do
    for format in xml json; do
        time_limit="" rss_limit=""
        if ((n == 1000000)); then
            rss_limit=400
            if [[ $format == xml ]]; then time_limit=2; else time_limit=3; fi
        fi
        row "empty $n $format" "plan $(short "$n") $format, empty dest" "$out/manifest-$n.$format" "$time_limit" "$rss_limit"
    done
done
if ((present > 0)); then
    for format in xml json; do
        row "present $present $format" "plan $(short "$present") $format, all present" \
            "$out/present-$present.$format" "$([[ $present == 100000 ]] && echo 1)" ""
    done
    echo
    for format in xml json; do
        counts=${present_counts[$format]:-}
        expected="new 0, changed 0, check $present, extra 0"
        if [[ $counts == "$expected" ]]; then mark=PASS; else mark=FAIL; fi
        echo "present $(short "$present") $format classification: ${counts:-(no summary line)}   (expected: $expected) $mark"
        results+=("$mark")
    done
fi

echo
report_targets
echo "(benchmarks are informational: the exit status is 0 unless a run failed to complete)"
finish "of the binary"
