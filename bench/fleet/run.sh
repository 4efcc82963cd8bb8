#!/usr/bin/env bash
# The fleet simulation (issue 12, item 6; docs/fleet.md): AGENTS assetsync processes on this
# machine pull the same set at once, first straight from an nginx origin, then through an nginx
# site cache in front of it (proxy_cache with the slice module, the settings docs/fleet.md gives).
# Prints, per scenario, the bytes the origin served and the agents' wall times.
#
#   bench/fleet/run.sh BINARY
#
# Environment (all optional):
#   AGENTS=10          agent processes, each with its own DEST
#   SET=32x64M         COUNTxSIZE of the set (K, M, G = KiB, MiB, GiB)
#   SPLAY=0            each agent's --splay (seconds of random delay before it starts)
#   BENCH_OUT=bench/out/fleet   data, DESTs, logs
#
# Exits 0 whatever the figures, 1 when an agent failed, 2 when the binary or a tool is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 nginx curl /usr/bin/time
bench_out fleet

agents=${AGENTS:-10}
set_spec=${SET:-32x64M}
splay=${SPLAY:-0}
count=${set_spec%x*}
size_spec=${set_spec#*x}
n=${size_spec%[KMG]}
case $size_spec in *K) size=$((n << 10)) ;; *M) size=$((n << 20)) ;; *G) size=$((n << 30)) ;; *) size=$n ;; esac
set_bytes=$((count * size))
failures=0

# ---------------------------------------------------------------- the set (made once)
data=$out/origin
if [[ $(find "$data" -name '*.bin' -size "${size}c" 2>/dev/null | wc -l) != "$count" ]]; then
    log "making $count files of $size bytes in $data"
    rm -rf "$data"
    mkdir -p "$data"
    for i in $(seq -w 1 "$count"); do head -c "$size" /dev/urandom >"$data/asset-$i.bin"; done
fi

# ---------------------------------------------------------------- two nginx: origin and site cache
# Each logs the body bytes of its responses (a log of its own, beside the default one).
bytes_log() { echo "log_format bytes '\$body_bytes_sent \$status \"\$http_range\" \$request_uri'; access_log $out/$1.log bytes;"; }
served_bytes() { awk '{ s += $1 } END { printf "%.0f", s }' "$out/$1.log"; }  # not %d: mawk caps it at 2^31-1
: >"$out/origin.log"
: >"$out/cache.log"

start_nginx "$data" "$(bytes_log origin) keepalive_requests 100000;"
origin_url=$base
start_nginx "$data" "$(bytes_log cache) keepalive_requests 100000;
    proxy_cache_path $out/cache-store levels=1:2 keys_zone=assets:16m max_size=$((set_bytes * 2)) inactive=1d use_temp_path=off;" \
    "location / {
        slice 1m;
        proxy_cache assets;
        proxy_cache_key \$uri\$is_args\$args\$slice_range;
        proxy_set_header Range \$slice_range;
        proxy_http_version 1.1;
        proxy_set_header Connection \"\";
        proxy_cache_valid 200 206 1h;
        proxy_cache_lock on;
        proxy_cache_lock_age 5m;
        proxy_cache_lock_timeout 5m;
        proxy_cache_bypass \$http_cache_control \$http_pragma;
        proxy_pass ${origin_url%/};
    }"
cache_url=$base

# ---------------------------------------------------------------- the agents
# run_fleet NAME BASE: AGENTS pulls at once into fresh DESTs; prints the scenario's line.
run_fleet() {
    local name=$1 url=$2 i start end walls=() rc origin_before origin_after manifest=$out/manifest.xml
    "$binary" manifest "$data" --base "$url" --output "$manifest" >/dev/null 2>&1
    rm -rf "$out/dest-"*
    sync
    origin_before=$(served_bytes origin)
    start=${EPOCHREALTIME/./}
    for i in $(seq 1 "$agents"); do
        /usr/bin/time -f '%e' -o "$out/wall-$i" \
            "$binary" pull "$manifest" --dest "$out/dest-$i" --quiet --splay "$splay" \
            2>"$out/agent-$i.err" &
    done
    for i in $(seq 1 "$agents"); do
        rc=0
        wait -n || rc=$?
        ((rc == 0)) || { failures=$((failures + 1)); log "an agent failed (exit $rc); see $out/agent-*.err"; }
    done
    end=${EPOCHREALTIME/./}
    sleep 0.5  # nginx writes a request's log line as it finishes
    origin_after=$(served_bytes origin)
    for i in $(seq 1 "$agents"); do walls+=("$(awk '{ printf "%d", $1 * 1e6 }' "$out/wall-$i" 2>/dev/null || echo ERR)"); done
    local origin=$((origin_after - origin_before))
    printf '| %s | %s | %s | %s (%s–%s) | %s |\n' "$name" "$(mb "$origin")" "$(ratio "$origin" "$set_bytes")" \
        "$(median_s "${walls[@]}")" "$(min_s "${walls[@]}")" "$(secs "$(max_of "${walls[@]}")")" "$(secs $((end - start)))"
}

print_header "fleet simulation: $agents agents × $set_spec ($(mb "$set_bytes")), splay $splay s" \
    "origin:   $origin_url (nginx, sendfile)" "cache:    $cache_url (nginx proxy_cache, slice 1m, lock, store $out/cache-store)"
echo
echo "| scenario | origin served | × the set | agent wall time, median (min–max), s | fleet wall time, s |"
echo "|---|---|---|---|---|"
run_fleet "straight from the origin" "$origin_url"
rm -rf "$out/cache-store"/*
run_fleet "through the site cache (cold)" "$cache_url"
run_fleet "through the site cache (warm)" "$cache_url"
rm -rf "$out/dest-"*
finish "of the agents"
