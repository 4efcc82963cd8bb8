#!/usr/bin/env bash
# The verify benchmark (issue 4, item 3): `assetsync verify` re-reads every
# file of a cache and proves it by CRC-32 on all cores; this compares its
# throughput with a plain `cat` of the same files to /dev/null, with a warm
# page cache and, when the page cache may be dropped, a cold one. See
# bench/README.md.
#
#   bench/verify/run.sh BINARY
#
# Environment (all optional):
#   ROUNDS=5              timed rounds; the two commands interleaved, the order rotating
#   SOURCE=auto           pull: the pull benchmark's 32 x 64 MiB (bench/out/pull/data/many/);
#                         own: 16 x 64 MiB made here (bench/out/verify/data/);
#                         auto: pull's when present and unchanged, else own
#   DROP_CACHES=1         0 never drops the page cache (no cold case)
#   BENCH_OUT=bench/out/verify
#
# Prints figures and exits 0 whatever they are; 1 when the binary failed (a
# pull or verify exiting non-zero), 2 when the binary or a tool is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 nginx curl cat /usr/bin/time
rounds=${ROUNDS:-5}
source_kind=${SOURCE:-auto}
bench_out verify
failures=0
probe_drop_caches

# ---------------------------------------------------------------- data, nginx, the cache
prepared=$(python3 "$here/data.py" "$out" "$root/bench/out/pull" "$source_kind") || exit 2
docroot=$(sed -n 1p <<<"$prepared")
source_name=$(sed -n 2p <<<"$prepared")
case $source_name in pull:*) cache=$out/cache-pull ;; *) cache=$out/cache-own ;; esac

print_header "assetsync verify benchmark"
echo "tools:    $(cat --version | head -n 1) (128 KiB reads, one process)"
echo "data:     $source_name"
echo "cache:    $cache"
echo "rounds:   $rounds, the two commands interleaved and the order rotated each round"
echo "warm:     every file read back (untimed) right before each warm run, so the page cache holds them"
if [[ $drop_caches == yes ]]; then
    echo "cold:     sync; echo 3 > /proc/sys/vm/drop_caches before every cold run"
else
    echo "cold:     not measured (dropping the page cache was not permitted, or DROP_CACHES=0)"
fi
echo

start_nginx "$docroot" "autoindex on;"
nginx_serves ""
python3 "$root/bench/noop/data.py" manifest "$out/files.list" "$base" "$out/manifest.xml"
mapfile -t paths < <(cut -f3 "$out/files.list")
files=()
for p in "${paths[@]}"; do files+=("$cache/$p"); done
total=$(awk -F'\t' '{ s += $2 } END { print s }' "$out/files.list")

log "pulling ${#paths[@]} files into $cache (a no-op when an earlier run left them there)..."
timed "$binary" pull "$out/manifest.xml" --dest "$cache" --quiet
if ((t_rc != 0)); then
    log "FAILED: assetsync pull into $cache exited with status $t_rc:"
    tail -n 5 "$last_err" >&2
    exit 1
fi
pull_us=$t_us
stop_nginx  # verify makes no request; nginx is only needed to fill the cache

# ---------------------------------------------------------------- timed runs
declare -A runs=() cpus=() residency=()
have_fincore=0
command -v fincore >/dev/null && have_fincore=1
# run_one TOOL MODE: one timed run, user+sys CPU from GNU time.
run_one() {
    local tool=$1 mode=$2
    if [[ $mode == cold ]]; then
        drop_page_cache
    else
        # Read everything back right before the run (something else on the machine
        # may have dropped the page cache since), and record how much of it is resident.
        cat "${files[@]}" >/dev/null
        if ((have_fincore)); then
            local resident
            resident=$(fincore --bytes --noheadings --output RES "${files[@]}" | awk -v t="$total" '{ s += $1 } END { printf "%.1f", 100 * s / t }')
            residency["$tool"]+="$resident "
        fi
    fi
    case $tool in
        verify) timed /usr/bin/time -f '%U %S' -o "$out/cpu.txt" "$binary" verify "$out/manifest.xml" --dest "$cache" ;;
        cat) timed /usr/bin/time -f '%U %S' -o "$out/cpu.txt" cat "${files[@]}" ;;
    esac
    if ((t_rc != 0)) || { [[ $tool == verify ]] && ! grep -q "Verified ${#files[@]} files: ${#files[@]} good" "$last_err"; }; then
        log "FAILED: $tool ($mode) exited with status $t_rc:"
        tail -n 5 "$last_err" >&2
        failures=$((failures + 1))
        runs["$tool $mode"]+="ERR "
        return
    fi
    runs["$tool $mode"]+="$t_us "
    cpus["$tool $mode"]+="$(cpu_us "$out/cpu.txt") "
}

modes=(warm)
[[ $drop_caches == yes ]] && modes+=(cold)
tools=(verify cat)
for ((round = 1; round <= rounds; round++)); do
    for mode in "${modes[@]}"; do
        if ((round % 2)); then order=(verify cat); else order=(cat verify); fi
        log "round $round/$rounds, $mode: ${order[*]}"
        for tool in "${order[@]}"; do run_one "$tool" "$mode"; done
    done
done

# ---------------------------------------------------------------- report
min_pct() { if (($# == 0)); then echo "-"; else printf '%s\n' "$@" | sort -n | head -n 1 | awk '{ print "min " $1 "%" }'; fi; }
mbps() { if num "$1"; then awk -v b="$total" -v u="$1" 'BEGIN { printf "%.0f", b / u }'; else echo ERR; fi; }  # bytes/µs = MB/s
echo "first pull into the cache (untimed for the comparison): $(secs "$pull_us") s"
echo "files: ${#files[@]}, $(mb "$total") (1 MB = 10^6 bytes; MB/s = bytes / wall seconds / 10^6)"
echo
for mode in "${modes[@]}"; do
    if [[ $mode == warm ]]; then
        echo "== warm page cache (every file read back right before each run)"
    else
        echo "== cold page cache (dropped before every run)"
    fi
    printf '   %-46s %9s %9s %9s %9s %9s   %s\n' COMMAND "MEDIAN s" "MIN s" "MB/s med" "MB/s max" "CPU s" "RUNS s (in round order)"
    for tool in "${tools[@]}"; do
        case $tool in
            verify) title="assetsync verify MANIFEST --dest CACHE" ;;
            cat) title="cat FILES > /dev/null" ;;
        esac
        read -r -a v <<<"${runs["$tool $mode"]:-}"
        read -r -a c <<<"${cpus["$tool $mode"]:-}"
        med=$(median_of "${v[@]}")
        best=$(min_of "${v[@]}")
        printf '   %-46s %9s %9s %9s %9s %9s   (%s)\n' "$title" "$(secs "$med")" "$(secs "$best")" "$(mbps "$med")" "$(mbps "$best")" \
            "$(median_s "${c[@]}")" "$(all_secs "${v[@]}")"
    done
    read -r -a v <<<"${runs["verify $mode"]:-}"
    read -r -a c <<<"${runs["cat $mode"]:-}"
    printf '   %-46s median %sx   min %sx   (throughput verify / cat; above 1: verify is faster)\n' "verify vs cat" \
        "$(ratio "$(median_of "${c[@]}")" "$(median_of "${v[@]}")")" "$(ratio "$(min_of "${c[@]}")" "$(min_of "${v[@]}")")"
    if [[ $mode == warm ]] && ((have_fincore)); then
        printf '   %-46s verify: %s   cat: %s\n' "resident before each run (% of bytes, fincore)" \
            "$(min_pct ${residency[verify]:-})" "$(min_pct ${residency[cat]:-})"
    fi
    echo
done
echo "(informational: no target; the exit status is 0 unless a run failed to complete)"
finish
