#!/usr/bin/env bash
# Where a pull's time goes (issue 26, item 2): one fresh pull of each set, timed plainly and then
# under `strace -f -T`, whose calls' wall time is summed per thread and grouped into what each
# thread waits on (bench/profile/summarize.py): syncs, writes, opens and creates, renames and
# links, removals, status calls, reads, waits for the network, a timer or another thread. strace
# slows a pull several times over, small files most: the shares, not the seconds, are the figures.
# The sets: C (2,000 files of 64 KiB) and B (16 files of 64 MiB), served by a private nginx on
# loopback. See bench/README.md.
#
#   bench/profile/run.sh BINARY
#
# Environment (all optional):
#   SETS="C B"                  which sets
#   BENCH_OUT=bench/out/profile where the data (about 1.1 GiB, made once), destinations and traces go
#
# Exits 0 whatever the figures; 1 when a pull failed.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 nginx curl strace
read -r -a sets <<<"${SETS:-C B}"
bench_out profile

make_set() {  # NAME COUNT BYTES: DIR/NAME with COUNT random files of BYTES each, once
    local dir=$out/$1 i
    [[ -f $dir/.complete ]] && return 0
    log "making set $1: $2 files of $3 bytes in $dir (once)..."
    rm -rf "$dir" && mkdir -p "$dir"
    for ((i = 0; i < $2; i++)); do head -c "$3" /dev/urandom > "$dir/f$(printf %05d "$i").bin"; done
    touch "$dir/.complete"
}
make_set C 2000 65536
make_set B 16 67108864
chmod -R a+rX "$out"
start_nginx "$out" "keepalive_requests 1000000;"

print_header "assetsync: where a pull's time goes"
echo "each set: a plain fresh pull (wall), then one under strace -f -T (each thread's time inside its calls)"
echo
status=0
for set in "${sets[@]}"; do
    manifest=$out/$set.xml
    "$binary" manifest "$out/$set" --base "${base}$set/" --output "$manifest" 2>/dev/null
    rm -rf "$out/dest-$set"
    sync
    started=$EPOCHREALTIME
    "$binary" pull "$manifest" --dest "$out/dest-$set" --quiet || status=1
    plain=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    rm -rf "$out/dest-$set"
    sync
    trace=$out/strace-$set.txt
    started=$EPOCHREALTIME
    strace -f -T -o "$trace" "$binary" pull "$manifest" --dest "$out/dest-$set" --quiet || status=1
    traced=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')
    echo "set $set: $(find "$out/$set" -type f -name '*.bin' | wc -l) files; pull ${plain} s, under strace ${traced} s"
    python3 "$here/summarize.py" "$trace"
    echo "  (trace: $trace)"
    echo
done
exit $status
