#!/usr/bin/env bash
# The no-op benchmark (issue 4, item 2): how much a pull costs when everything
# is current, against a stat-only walk of the same tree and against rclone's
# no-op copy of the same set, for 5,000 and 100,000 small files served by a
# private nginx on loopback. See bench/README.md.
#
#   bench/noop/run.sh BINARY
#
# Environment (all optional):
#   ROUNDS=5                 timed rounds; the tools interleaved, the order rotating
#   COUNTS="5000 100000"     tree sizes (files of 1-16 KiB)
#   FRESH=1                  0 keeps the caches of an earlier run (quicker; the
#                            first pull and rclone's first copy are then no-ops too)
#   RCLONE=1                 0 leaves rclone out
#   BENCH_OUT=bench/out/noop where the trees, caches and logs are kept
#
# Prints PASS/FAIL beside each target but exits 0 whatever the figures; 1 when
# the binary failed (a no-op exiting non-zero or finding files not current),
# 2 when the binary or a tool is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 nginx curl find strace /usr/bin/time
rounds=${ROUNDS:-5}
read -r -a counts <<<"${COUNTS:-5000 100000}"
fresh=${FRESH:-1}
use_rclone=${RCLONE:-1}
((use_rclone)) && need_tools rclone
bench_out noop
failures=0

tools=(assetsync find)
((use_rclone)) && tools+=(rclone)

print_header "assetsync no-op benchmark"
rclone_version="rclone left out"
if ((use_rclone)); then rclone_version=$(rclone version 2>/dev/null || true); rclone_version=${rclone_version%%$'\n'*}; fi
find_version=$(find --version); find_version=${find_version%%$'\n'*}
echo "tools:    $find_version, ${rclone_version:-rclone}, $(nginx -v 2>&1 | sed 's/.*: //') (loopback, 2 workers, autoindex on)"
echo "rounds:   $rounds, tools interleaved and rotated each round; page cache and dentry/inode caches warm"
echo "          (before every timed run, untimed: the stat walk over the trees that run touches)"
echo

# ---------------------------------------------------------------- data (made once)
for n in "${counts[@]}"; do
    list=$out/src-$n.list
    if [[ ! -s $list || $here/data.py -nt $list || $root/bench/manifest/generate.py -nt $list ]]; then
        log "generating $n files of 1-16 KiB in $out/src-$n/ (once)..."
        rm -rf "$out/src-$n" "$list"
        python3 "$here/data.py" tree "$out/src-$n" "$n" "$list"
    fi
done
chmod -R a+rX "$out"

start_nginx "$out" "autoindex on; keepalive_requests 1000000;"
nginx_serves ""
base_of() { echo "${base}src-$1/"; }
export RCLONE_CONFIG=$out/rclone.conf  # an empty config: the remote is given on the command line
: >"$RCLONE_CONFIG"
echo "nginx:    $base serving $out (src-N/)"

# warm TREE...: the stat-only walk, untimed, so every timed run starts with warm metadata.
warm() { local t; for t in "$@"; do find "$t" -printf '%s %T@\n' >/dev/null; done; }

# ---------------------------------------------------------------- priming: one real pull, one full rclone copy
declare -A bytes=() first_pull=() first_rclone=()
for n in "${counts[@]}"; do
    bytes[$n]=$(awk -F'\t' '{ s += $2 } END { print s }' "$out/src-$n.list")
    python3 "$here/data.py" manifest "$out/src-$n.list" "$(base_of "$n")" "$out/manifest-$n.xml"
    cache=$out/cache-$n
    if ((fresh)); then rm -rf "$cache" "$out/rclone-$n"; fi
    log "priming $(short "$n"): assetsync pull into $cache..."
    timed "$binary" pull "$out/manifest-$n.xml" --dest "$cache" --quiet
    first_pull[$n]=$t_us
    if ((t_rc != 0)); then
        log "FAILED: the first pull of $n files exited with status $t_rc:"
        tail -n 5 "$last_err" >&2
        exit 1
    fi
    got=$(find "$cache" -path "$cache/.assetsync" -prune -o -type f -print | wc -l)
    if ((got != n)); then
        log "FAILED: the first pull left $got files in $cache, expected $n"
        exit 1
    fi
    if ((use_rclone)); then
        log "priming $(short "$n"): rclone copy into $out/rclone-$n..."
        timed rclone copy --http-url "$(base_of "$n")" :http: "$out/rclone-$n"
        first_rclone[$n]=$t_us
        if ((t_rc != 0)); then
            log "FAILED: rclone's first copy of $n files exited with status $t_rc:"
            tail -n 5 "$last_err" >&2
            exit 1
        fi
    fi
done

# ---------------------------------------------------------------- strace, once per size (not timed)
declare -A trace_opens=() trace_reads=()
trace_report=$out/strace-summary.txt
: >"$trace_report"
for n in "${counts[@]}"; do
    cache=$out/cache-$n
    warm "$cache"
    trace=$out/strace-$n.txt
    strace -f -qq -y -s 0 -e trace=openat,open,read,pread64,readv,preadv,preadv2,mmap,connect -o "$trace" \
        "$binary" pull "$out/manifest-$n.xml" --dest "$cache" >/dev/null 2>"$last_err" || {
        log "FAILED: the traced no-op of $n files exited non-zero:"
        tail -n 5 "$last_err" >&2
        failures=$((failures + 1))
    }
    summary=$(python3 "$here/strace_summary.py" "$trace" "$cache")
    trace_opens[$n]=$(awk -F': ' '/^cached-file-opens:/ { print $2 }' <<<"$summary")
    trace_reads[$n]=$(awk -F': ' '/^cached-file-reads:/ { print $2 }' <<<"$summary")
    { echo "$(short "$n") files:"; grep -v '^cached-file-' <<<"$summary" | sed 's/^/    /'; } >>"$trace_report"
done

# ---------------------------------------------------------------- timed rounds
declare -A runs=()      # "tool n" → "µs µs ..."
declare -A requests=()  # n → requests nginx logged during assetsync's no-ops
declare -A rewrites=()  # n → no-ops after which .assetsync/state had changed
state_id() { stat -c '%i %Y %s' "$1/.assetsync/state" 2>/dev/null || echo none; }

measure() {  # TOOL N
    local tool=$1 n=$2 cache=$out/cache-$2 before after state_before
    case $tool in
        assetsync)
            warm "$cache"
            before=$(nginx_requests)
            state_before=$(state_id "$cache")
            timed "$binary" pull "$out/manifest-$n.xml" --dest "$cache"
            after=$(nginx_requests)
            requests[$n]=$(( ${requests[$n]:-0} + after - before ))
            [[ $(state_id "$cache") == "$state_before" ]] || rewrites[$n]=$(( ${rewrites[$n]:-0} + 1 ))
            if ((t_rc != 0)) || ! grep -q "0 new, 0 updated, $n current, 0 failed" "$last_err"; then
                log "FAILED: the no-op pull of $n files (exit status $t_rc) did not find every file current:"
                tail -n 5 "$last_err" >&2
                failures=$((failures + 1))
                runs["$tool $n"]+="ERR "
                return
            fi
            ;;
        find)
            warm "$cache"
            timed find "$cache" -type f -printf '%s %T@\n'
            ;;
        rclone)
            warm "$out/src-$n" "$out/rclone-$n"
            timed rclone copy --http-url "$(base_of "$n")" :http: "$out/rclone-$n"
            ;;
    esac
    if ((t_rc != 0)); then
        log "FAILED: $tool over $n files exited with status $t_rc:"
        tail -n 5 "$last_err" >&2
        [[ $tool == assetsync ]] && failures=$((failures + 1))
        runs["$tool $n"]+="ERR "
        return
    fi
    runs["$tool $n"]+="$t_us "
}

for ((round = 1; round <= rounds; round++)); do
    for n in "${counts[@]}"; do
        order=()
        for ((i = 0; i < ${#tools[@]}; i++)); do order+=("${tools[$(( (i + round - 1) % ${#tools[@]} ))]}"); done
        log "round $round/$rounds, $(short "$n") files: ${order[*]}"
        for tool in "${order[@]}"; do measure "$tool" "$n"; done
    done
done

# ---------------------------------------------------------------- peak RSS (one more no-op each, under GNU time)
declare -A rss=() cpu=()
for n in "${counts[@]}"; do
    warm "$out/cache-$n"
    if /usr/bin/time -v -o "$out/time-$n.txt" "$binary" pull "$out/manifest-$n.xml" --dest "$out/cache-$n" >/dev/null 2>"$last_err"; then
        rss[$n]=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time-$n.txt")
        cpu[$n]=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%.2f user + %.2f sys", u, s }' "$out/time-$n.txt")
    else
        log "FAILED: the no-op of $n files under /usr/bin/time -v exited non-zero"
        failures=$((failures + 1))
    fi
done

# ---------------------------------------------------------------- report
echo
results=()
mark() { results+=("$1"); echo "$1"; }
for n in "${counts[@]}"; do
    echo "== no-op over $(short "$n") files ($n files, $(mb "${bytes[$n]}"), $(find "$out/cache-$n" -type d | wc -l) directories)"
    printf '   first (untimed) assetsync pull: %s s' "$(secs "${first_pull[$n]}")"
    ((use_rclone)) && printf ';  first rclone copy: %s s' "$(secs "${first_rclone[$n]}")"
    ((fresh)) || printf '  (FRESH=0: caches kept from an earlier run)'
    echo
    printf '   %-44s %9s %9s   %s\n' TOOL "MEDIAN s" "MIN s" "RUNS s (in round order)"
    for tool in "${tools[@]}"; do
        case $tool in
            assetsync) title="assetsync pull MANIFEST --dest CACHE" ;;
            find) title="find CACHE -type f -printf '%s %T@\\n'" ;;
            rclone) title="rclone copy --http-url URL :http: COPY" ;;
        esac
        read -r -a values <<<"${runs["$tool $n"]:-}"
        printf '   %-44s %9s %9s   (%s)\n' "$title" "$(median_s "${values[@]}")" "$(min_s "${values[@]}")" "$(all_secs "${values[@]}")"
    done
    read -r -a a <<<"${runs["assetsync $n"]:-}"
    read -r -a f <<<"${runs["find $n"]:-}"
    r_med=$(ratio "$(median_of "${a[@]}")" "$(median_of "${f[@]}")")
    r_min=$(ratio "$(min_of "${a[@]}")" "$(min_of "${f[@]}")")
    printf '   %-44s median %6sx   min %6sx   target <= 1.5x   ' "assetsync / find" "$r_med" "$r_min"
    mark "$(judge "$r_med" '<=' 1.5)"
    if ((use_rclone)); then
        read -r -a c <<<"${runs["rclone $n"]:-}"
        r_med=$(ratio "$(median_of "${c[@]}")" "$(median_of "${a[@]}")")
        r_min=$(ratio "$(min_of "${c[@]}")" "$(min_of "${a[@]}")")
        printf '   %-44s median %6sx   min %6sx   target >= 5x     ' "rclone / assetsync" "$r_med" "$r_min"
        mark "$(judge "$r_med" '>=' 5)"
    fi
    printf '   %-44s %-38s' "HTTP requests during the $rounds no-op pulls" "${requests[$n]:-0} (nginx access log)"
    if ((${requests[$n]:-0} == 0)); then mark PASS; else mark FAIL; fi
    printf '   %-44s %-38s' "cached files opened / read (strace, once)" "${trace_opens[$n]:-?} opened, ${trace_reads[$n]:-?} read"
    if [[ ${trace_opens[$n]:-x} == 0 && ${trace_reads[$n]:-x} == 0 ]]; then mark PASS; else mark FAIL; fi
    printf '   %-44s %s\n' ".assetsync/state rewritten by a no-op" "$( ((${rewrites[$n]:-0} == 0)) && echo "no" || echo "yes, ${rewrites[$n]} of $rounds times")"
    if [[ -n ${rss[$n]:-} ]]; then
        rss_mb=$(awk -v k="${rss[$n]}" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')
        if ((n == 100000)); then
            printf '   %-44s %s   target < 150 MB   ' "peak RSS (/usr/bin/time -v, one no-op)" "$rss_mb MB (${cpu[$n]} s)"
            mark "$(judge "$rss_mb" '<' 150)"
        else
            printf '   %-44s %s\n' "peak RSS (/usr/bin/time -v, one no-op)" "$rss_mb MB (${cpu[$n]} s)"
        fi
    fi
    echo
done
echo "strace -f -y -e trace=openat,open,read,pread64,readv,preadv,preadv2,mmap,connect of one no-op each"
echo "(full traces in $out/strace-N.txt):"
sed 's/^/   /' "$trace_report"
echo
report_targets
echo "(benchmarks are informational: the exit status is 0 unless a run failed to complete)"
finish "of the binary"
