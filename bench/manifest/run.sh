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

usage() { echo "usage: $0 BINARY   (e.g. $0 .build/release/assetsync)" >&2; exit 2; }
[[ $# -eq 1 ]] || usage

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
generator="$here/generate.py"

binary=$1
[[ $binary == */* ]] || binary=$(command -v -- "$binary" || true)
if [[ -z $binary || ! -x $binary || -d $binary ]]; then
    echo "error: '$1' is not an executable file (build it with 'make build')" >&2
    exit 2
fi
binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")

rounds=${ROUNDS:-3}
read -r -a sizes <<<"${SIZES:-10000 100000 1000000}"
present=${PRESENT:-100000}
out=${BENCH_OUT:-$root/bench/out/manifest}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# ---------------------------------------------------------------- prerequisites
for tool in python3 /usr/bin/time; do
    if ! command -v "$tool" >/dev/null; then
        package=${tool##*/}
        echo "error: $tool is missing: apt-get install $package (make deps installs time)" >&2
        exit 2
    fi
done
if ! /usr/bin/time -v true 2>/dev/null; then
    echo "error: /usr/bin/time is not GNU time (it lacks -v): apt-get install time" >&2
    exit 2
fi
if [[ -z ${EPOCHREALTIME:-} ]]; then
    echo "error: bash ${BASH_VERSION} lacks EPOCHREALTIME; bash 5 or later is needed" >&2
    exit 2
fi

# ---------------------------------------------------------------- helpers
log() { printf '%s\n' "$*" >&2; }

# count N → "10k", "1M"
short() {
    local n=$1
    if ((n >= 1000000 && n % 1000000 == 0)); then echo "$((n / 1000000))M"
    elif ((n >= 1000 && n % 1000 == 0)); then echo "$((n / 1000))k"
    else echo "$n"; fi
}

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
declare -A peak=()    # case → max RSS in kB over its rounds
declare -A cpu=()     # case → "user+sys seconds ..." per round
failures=0

# measure CASE MANIFEST DEST: one timed `plan --json` run, output discarded.
measure() {
    local label=$1 manifest=$2 dest=$3
    local timefile="$out/.time" errfile="$out/.stderr" rc=0 start end
    start=${EPOCHREALTIME/./}
    /usr/bin/time -v -o "$timefile" "$binary" plan "$manifest" --dest "$dest" --json >/dev/null 2>"$errfile" || rc=$?
    end=${EPOCHREALTIME/./}
    if ((rc != 0)); then
        failures=$((failures + 1))
        log "FAILED: $label: '$binary plan $manifest --dest $dest --json' exited with status $rc"
        grep -E 'terminated by signal|Exit status' "$timefile" >&2 || true
        tail -n 5 "$errfile" >&2 || true
        walls[$label]+="ERR "
        return 0
    fi
    local rss user sys
    rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$timefile")
    user=$(awk -F': ' '/User time \(seconds\)/ { print $2 }' "$timefile")
    sys=$(awk -F': ' '/System time \(seconds\)/ { print $2 }' "$timefile")
    walls[$label]+="$((end - start)) "
    cpu[$label]+="$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }') "
    if ((rss > ${peak[$label]:-0})); then peak[$label]=$rss; fi
}

# median of microsecond values → seconds with 3 decimals ("ERR" if any run failed)
median_seconds() {
    local values=$1
    if [[ $values == *ERR* || -z ${values// /} ]]; then echo ERR; return; fi
    printf '%s\n' $values | sort -n | awk '{ v[NR] = $1 } END {
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m / 1e6 }'
}

all_seconds() {
    local values=$1 v list=""
    for v in $values; do
        if [[ $v == ERR ]]; then list+="ERR "; else list+="$(awk -v x="$v" 'BEGIN { printf "%.3f", x / 1e6 }') "; fi
    done
    echo "${list% }"
}

# verdict VALUE LIMIT → PASS / FAIL / ERR
verdict() {
    [[ $1 == ERR || -z $1 ]] && { echo ERR; return; }
    awk -v v="$1" -v l="$2" 'BEGIN { print (v < l) ? "PASS" : "FAIL" }'
}

# ---------------------------------------------------------------- header
echo "== assetsync manifest benchmark"
echo "binary:   $binary"
echo "version:  $("$binary" --version 2>/dev/null | head -n 1 || echo '(--version failed)')"
echo "commit:   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo ' (+ uncommitted changes in Sources/)')"
echo "machine:  $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || uname -m), $(uname -sr)"
echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
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
    local wall runs rss_kb cpu_median rss_text time_target="-" time_result="" rss_target="-" rss_result=""
    wall=$(median_seconds "${walls[$label]:-}")
    runs=$(all_seconds "${walls[$label]:-}")
    rss_kb=${peak[$label]:-0}
    rss_text=$(awk -v k="$rss_kb" 'BEGIN { printf "%.1f MB", k * 1024 / 1e6 }')
    if [[ -n $time_limit ]]; then
        time_target="< $time_limit s"
        time_result=$(verdict "$wall" "$time_limit")
    fi
    if [[ -n $rss_limit_mb ]]; then
        rss_target="< $rss_limit_mb MB"
        if [[ $wall == ERR ]]; then rss_result=ERR
        else rss_result=$(verdict "$(awk -v k="$rss_kb" 'BEGIN { print k * 1024 / 1e6 }')" "$rss_limit_mb"); fi
    fi
    cpu_median=$(printf '%s\n' ${cpu[$label]:-} | sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) print "-"; else printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
    printf '%-26s %10s %9s  %-27s %7s %10s  %-15s %-6s %-13s %s\n' \
        "$title" "$(human_bytes "$(stat -c %s "$file")")" "$wall" "($runs)" "$cpu_median" "$rss_text" \
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
pass=0 fail=0 err=0
for r in "${results[@]}"; do
    case $r in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; ERR) err=$((err + 1)) ;; esac
done
echo "targets: $pass passed, $fail failed, $err could not be measured"
echo "(benchmarks are informational: the exit status is 0 unless a run failed to complete)"
if ((failures > 0)); then
    echo "ERROR: $failures run(s) of the binary failed; see the messages above" >&2
    exit 1
fi
exit 0
