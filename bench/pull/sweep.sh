#!/usr/bin/env bash
# The pull sweep: which --jobs and ASSETSYNC_BUFFER_SIZE (libcurl's write size)
# make assetsync fastest, measured on the same cases as run.sh (one 2 GiB file,
# 32 x 64 MiB files) against the same private loopback nginx, with curl run
# in every round as the yardstick. See bench/README.md.
#
#   bench/pull/sweep.sh BINARY
#
# Environment (all optional):
#   ROUNDS=3                         rounds; each round runs every setting once (and curl), order rotating
#   SWEEP_JOBS="4 8 16"              --jobs values
#   SWEEP_BUFFERS="65536 131072 524288"   ASSETSYNC_BUFFER_SIZE values
#   CASES="2G 32x64M"                which cases
#   DROP_CACHES=1, BENCH_OUT=...     as for run.sh
#
# Exits 0 whatever the figures; non-zero only when a run failed.
set -euo pipefail

# shellcheck source=bench/pull/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
pull_setup "$@"

rounds=${ROUNDS:-3}
read -r -a jobs_values <<<"${SWEEP_JOBS:-4 8 16}"
read -r -a buffer_values <<<"${SWEEP_BUFFERS:-65536 131072 524288}"
read -r -a cases <<<"${CASES:-2G 32x64M}"
failures=0

settings=(curl)
for j in "${jobs_values[@]}"; do
    for b in "${buffer_values[@]}"; do settings+=("$j/$b"); done
done

pull_header "assetsync pull sweep: --jobs x ASSETSYNC_BUFFER_SIZE"
echo "settings: --jobs in {${jobs_values[*]}} x ASSETSYNC_BUFFER_SIZE in {${buffer_values[*]}}, and curl as the yardstick"
echo "rounds:   $rounds, every setting once per round (the order rotates each round); data in $out"
echo

start_pull_nginx
dest=$out/dest

declare -A total=()   # "case setting" → "µs µs ..."
for c in "${cases[@]}"; do
    [[ $c == 2G || $c == 32x64M ]] || { echo "error: unknown case '$c' in CASES (2G, 32x64M)" >&2; exit 2; }
    n=${#settings[@]}
    log "sweep $c: $rounds rounds of $n settings"
    for ((round = 1; round <= rounds; round++)); do
        for ((i = 0; i < n; i++)); do
            s=${settings[$(((i + (round - 1) * 4) % n))]}
            reset "$dest" "$c"
            if [[ $s == curl ]]; then
                if [[ $c == 2G ]]; then
                    timed_sync curl -s -o "$dest/single-2G.bin" "${base}single-2G.bin"
                else
                    curl_parallel_config "$c" "$dest" "$out/curl.config"
                    timed_sync curl -s -Z --parallel-max 8 --config "$out/curl.config"
                fi
                checked=yes
                ((t_rc == 0)) && check_dest curl "$c" "$dest" || checked=no
            else
                timed_sync env ASSETSYNC_BUFFER_SIZE="${s#*/}" "$binary" pull "$out/manifest-$c.xml" --dest "$dest" --jobs "${s%/*}"
                checked=yes
                ((t_rc == 0)) && check_dest assetsync "$c" "$dest" cmp || checked=no
            fi
            if [[ $checked == no ]]; then
                failures=$((failures + 1))
                log "FAILED: $c round $round, $s: exit status $t_rc"
                tail -n 5 "$last_err" >&2 || true
                total["$c $s"]+="ERR "
            else
                log "  round $round: $c $s $(secs "$t_total") s"
                total["$c $s"]+="$t_total "
            fi
        done
    done
    rm -rf "$dest"
done

echo "Wall s of the download + sync: median (min) of $rounds rounds; ratio = median / curl's median (target at most 0.67)"
header=$(printf '%-6s %-8s' JOBS BUFFER)
for c in "${cases[@]}"; do header+=$(printf '  %11s %9s %7s' "$c median" "(min)" "ratio"); done
echo "$header"
declare -A curl_median=()
for c in "${cases[@]}"; do
    read -r -a times <<<"${total["$c curl"]}"
    curl_median[$c]=$(median_s "${times[@]}")
done
declare -A best=() best_setting=()
for s in "${settings[@]}"; do
    if [[ $s == curl ]]; then line=$(printf '%-6s %-8s' curl "-")
    else line=$(printf '%-6s %-8s' "${s%/*}" "${s#*/}"); fi
    for c in "${cases[@]}"; do
        read -r -a times <<<"${total["$c $s"]}"
        med=$(median_s "${times[@]}")
        line+=$(printf '  %11s %9s %7s' "$med" "($(min_s "${times[@]}"))" "$(ratio "$med" "${curl_median[$c]}")")
        if [[ $s != curl ]] && num "$med" && { [[ -z ${best[$c]:-} ]] || awk -v a="$med" -v b="${best[$c]}" 'BEGIN { exit !(a < b) }'; }; then
            best[$c]=$med
            best_setting[$c]=$s
        fi
    done
    echo "$line"
done
echo
for c in "${cases[@]}"; do
    [[ -n ${best[$c]:-} ]] || { echo "fastest for $c: (no setting completed every round)"; continue; }
    echo "fastest for $c: --jobs ${best_setting[$c]%/*}, ASSETSYNC_BUFFER_SIZE=${best_setting[$c]#*/} (median ${best[$c]} s, $(ratio "${best[$c]}" "${curl_median[$c]}") x curl)"
done
echo "(informational: the exit status is 0 unless a run failed)"
finish
