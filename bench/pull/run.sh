#!/usr/bin/env bash
# The pull benchmark: assetsync against curl, side by side, on a private
# loopback nginx. See bench/README.md.
#
#   bench/pull/run.sh BINARY
#
# 1. Memory: peak RSS of pulling a 64 MiB file and a 4 GiB file (the design
#    wants them within 10% of each other, and at most 32 MiB).
# 2. Speed, interleaved over ROUNDS rounds, wall time of the download plus a
#    final `sync`, a fresh destination each time:
#      one 2 GiB file:    assetsync pull  vs  curl -s -o FILE URL
#      32 x 64 MiB files: assetsync pull  vs  curl -s -Z --parallel-max 8 (a --config file)
#    plus references that are not targets: curl to /dev/null (network and
#    nginx alone), and for the big file dd (128 KiB writes) from the page
#    cache to disk with fdatasync (the disk alone). The design wants assetsync in at most 0.67x
#    curl's time.
#
# Environment (all optional):
#   ROUNDS=5                   interleaved rounds of each speed case
#   JOBS=N                     passed to assetsync as --jobs N (default: its own)
#   ASSETSYNC_BUFFER_SIZE=B    read by assetsync itself: libcurl's write size
#   CASES="memory 2G 32x64M"   which parts to run
#   REFS=1                     0 skips the reference columns (curl > /dev/null, dd)
#   DROP_CACHES=1              0 never drops the page cache between runs
#   BENCH_OUT=bench/out/pull   where the data (about 8.1 GiB, made once) is kept
#
# Prints PASS/FAIL beside each target but exits 0 whatever the figures;
# non-zero only when a run failed (assetsync exited non-zero, or a file it
# wrote is missing, of the wrong size, or differs from its source).
set -euo pipefail

# shellcheck source=bench/pull/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
pull_setup "$@"

rounds=${ROUNDS:-5}
read -r -a cases <<<"${CASES:-memory 2G 32x64M}"
refs=${REFS:-1}
extra=()
[[ -n ${JOBS:-} ]] && extra=(--jobs "$JOBS")
failures=0

pull_header "assetsync pull benchmark"
echo "options:  assetsync pull MANIFEST --dest DIR ${extra[*]:-(default --jobs)}; ASSETSYNC_BUFFER_SIZE=${ASSETSYNC_BUFFER_SIZE:-(unset: its default)}"
echo "rounds:   $rounds per speed case, tools interleaved (the order rotates each round); data in $out"
echo

start_pull_nginx
dest=$out/dest

fail() {  # MESSAGE: a run that must not fail did
    failures=$((failures + 1))
    log "FAILED: $*"
    tail -n 5 "$last_err" >&2 || true
}

# ---------------------------------------------------------------- memory
memory_case() {
    local small=64M big=4G c
    declare -A peak=() walltime=()
    log "memory: pulling the 64 MiB and the 4 GiB file under /usr/bin/time -v..."
    for c in $small $big; do
        reset "$dest" "$c"
        timed_sync /usr/bin/time -v -o "$out/time.txt" "$binary" pull "$out/manifest-$c.xml" --dest "$dest" "${extra[@]}"
        local before=$failures
        if ((t_rc != 0)); then
            fail "memory $c: assetsync exited with status $t_rc"
        elif ! round=1 check_dest assetsync "$c" "$dest" cmp; then
            failures=$((failures + 1))
        fi
        if ((failures == before)); then
            peak[$c]=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time.txt")
            walltime[$c]=$t_total
        else
            peak[$c]=ERR
            walltime[$c]=ERR
        fi
    done
    rm -rf "$dest"
    echo "-- memory: peak RSS while pulling one file (GNU time's 'Maximum resident set size')"
    printf '%-22s %14s %10s %8s %12s\n' FILE BYTES "WALL s" "GB/s" "PEAK RSS"
    local bytes rss r within below
    for c in $small $big; do
        bytes=$(case_bytes "$c")
        rss=ERR
        num "${peak[$c]}" && rss=$(awk -v k="${peak[$c]}" 'BEGIN { printf "%.1f MiB", k / 1024 }')
        printf '%-22s %14s %10s %8s %12s\n' "$(case_files "$c")" "$bytes" "$(secs "${walltime[$c]}")" \
            "$(gbps "$bytes" "$(secs "${walltime[$c]}")")" "$rss"
    done
    if num "${peak[$small]}" && num "${peak[$big]}"; then
        r=$(awk -v a="${peak[$big]}" -v b="${peak[$small]}" 'BEGIN { printf "%.3f", a / b }')
        within=$(awk -v r="$r" 'BEGIN { print (r >= 1/1.1 && r <= 1.1) ? "PASS" : "FAIL" }')
        below=$(awk -v a="${peak[$big]}" -v b="${peak[$small]}" 'BEGIN { print (a <= 32768 && b <= 32768) ? "PASS" : "FAIL" }')
    else
        r=ERR within=ERR below=ERR
    fi
    echo "RSS ratio 4 GiB / 64 MiB: $r   target: within 10% of each other   $within"
    echo "peak RSS at most 32 MiB while pulling (both files)                  $below"
    results+=("$within" "$below")
    echo
}

# ---------------------------------------------------------------- speed
# run_tool TOOL CASE DEST: one timed run; sets t_total, t_sync, t_rc; checks the result.
run_tool() {
    local tool=$1 c=$2 d=$3 f before=$failures
    f=$(case_files "$c" | head -n 1)
    case $tool in
        assetsync)
            timed_sync "$binary" pull "$out/manifest-$c.xml" --dest "$d" "${extra[@]}"
            if ((t_rc != 0)); then fail "$c round $round: assetsync exited with status $t_rc"
            elif ! check_dest assetsync "$c" "$d" cmp; then failures=$((failures + 1)); fi
            ;;
        curl)
            if [[ $c == 2G ]]; then
                timed_sync curl -s -o "$d/$f" "$base$f"
            else
                curl_parallel_config "$c" "$d" "$out/curl.config"
                timed_sync curl -s -Z --parallel-max 8 --config "$out/curl.config"
            fi
            if ((t_rc != 0)); then fail "$c round $round: curl exited with status $t_rc"
            elif ! check_dest curl "$c" "$d"; then failures=$((failures + 1)); fi
            ;;
        curl-null)
            if [[ $c == 2G ]]; then
                timed_sync curl -s -o /dev/null "$base$f"
            else
                curl_parallel_config "$c" /dev/null "$out/curl.config"
                timed_sync curl -s -Z --parallel-max 8 --config "$out/curl.config"
            fi
            if ((t_rc != 0)); then fail "$c round $round: curl to /dev/null exited with status $t_rc"; fi
            ;;
        dd)
            timed_sync dd if="$out/data/$f" of="$d/$f" bs=128k conv=fdatasync status=none
            if ((t_rc != 0)); then fail "$c round $round: dd exited with status $t_rc"; fi
            ;;
    esac
    run_ok=$((failures == before))
}

tool_title() {
    case $1 in
        assetsync) echo assetsync ;;
        curl) [[ $2 == 2G ]] && echo "curl -o" || echo "curl -Z" ;;
        curl-null) echo "curl>null" ;;
        dd) echo "dd+fdsync" ;;
    esac
}

speed_case() {
    local c=$1 title=$2 t i n
    local tools=(assetsync curl)
    if [[ $refs != 0 ]]; then
        tools+=(curl-null)
        [[ $c == 2G ]] && tools+=(dd)
    fi
    n=${#tools[@]}
    declare -A total=() syncs=() cpus=()
    log "speed $c: $rounds rounds of: ${tools[*]}"
    for ((round = 1; round <= rounds; round++)); do
        for ((i = 0; i < n; i++)); do
            t=${tools[$(((i + round - 1) % n))]}
            reset "$dest" "$c"
            run_tool "$t" "$c" "$dest"
            if ((run_ok)); then
                log "  round $round: $t $(secs "$t_total") s (sync $(secs "$t_sync") s)"
                total[$t]+="$t_total "
                syncs[$t]+="$t_sync "
                cpus[$t]+="$t_cpu "
            else
                total[$t]+="ERR "
                syncs[$t]+="ERR "
                cpus[$t]+="ERR "
            fi
        done
    done
    rm -rf "$dest"

    local bytes
    bytes=$(case_bytes "$c")
    echo "-- $title ($bytes bytes): wall s of the download + sync, fresh destination each time"
    local header
    header=$(printf '%-16s' ROUND)
    for t in "${tools[@]}"; do header+=$(printf ' %11s' "$(tool_title "$t" "$c")"); done
    header+=$(printf ' %11s' "as/curl")
    echo "$header"
    local -a a_times c_times
    read -r -a a_times <<<"${total[assetsync]}"
    read -r -a c_times <<<"${total[curl]}"
    for ((round = 1; round <= rounds; round++)); do
        local line
        line=$(printf '%-16s' "$round")
        for t in "${tools[@]}"; do
            local -a times
            read -r -a times <<<"${total[$t]}"
            line+=$(printf ' %11s' "$(secs "${times[$((round - 1))]}")")
        done
        line+=$(printf ' %11s' "$(ratio "${a_times[$((round - 1))]}" "${c_times[$((round - 1))]}")")
        echo "$line"
    done
    local stat
    for stat in median min "GB/s (median)" "sync s (median)" "CPU s (median)"; do
        local line
        line=$(printf '%-16s' "$stat")
        for t in "${tools[@]}"; do
            local -a times
            read -r -a times <<<"${total[$t]}"
            case $stat in
                median) line+=$(printf ' %11s' "$(median_s "${times[@]}")") ;;
                min) line+=$(printf ' %11s' "$(min_s "${times[@]}")") ;;
                GB/s*) line+=$(printf ' %11s' "$(gbps "$bytes" "$(median_s "${times[@]}")")") ;;
                sync*) read -r -a times <<<"${syncs[$t]}"; line+=$(printf ' %11s' "$(median_s "${times[@]}")") ;;
                CPU*) read -r -a times <<<"${cpus[$t]}"; line+=$(printf ' %11s' "$(median_s "${times[@]}")") ;;
            esac
        done
        echo "$line"
    done
    local rmed rmin
    rmed=$(ratio "$(median_s "${a_times[@]}")" "$(median_s "${c_times[@]}")")
    rmin=$(ratio "$(min_s "${a_times[@]}")" "$(min_s "${c_times[@]}")")
    echo "ratio assetsync/curl: median $rmed $(judge "$rmed" '<=' 0.67), min $rmin $(judge "$rmin" '<=' 0.67)   (target: at most 0.67)"
    results+=("$(judge "$rmed" '<=' 0.67)")
    echo
}

results=()
for c in "${cases[@]}"; do
    case $c in
        memory) memory_case ;;
        2G) speed_case 2G "one 2 GiB file" ;;
        32x64M) speed_case 32x64M "32 x 64 MiB files" ;;
        *) echo "error: unknown case '$c' in CASES (memory, 2G, 32x64M)" >&2; exit 2 ;;
    esac
done

report_targets "(speed targets judged on the median ratio)"
echo "(benchmarks are informational: the exit status is 0 unless a run failed)"
finish
