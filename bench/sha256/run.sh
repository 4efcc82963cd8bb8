#!/usr/bin/env bash
# The cost of a SHA-256 per entry (issue 15, item 1): pulling the same files from a local nginx
# with manifests that give a CRC-32 alone and a SHA-256 too, interleaved, each into an empty DEST.
# Two sets: one large file (streamed to its partial, read back once for the SHA-256) and many
# small ones (held in memory, hashed there).
#
#   bench/sha256/run.sh BINARY
#
# Environment (optional): SIZE_MIB=1024 for the large file, COUNT=2000 small files of 64 KiB,
# ROUNDS=5, BENCH_OUT=bench/out/sha256. Prints medians, every run and the ratio; exits 0 whatever
# the figures, 1 when a pull failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools nginx head
bench_out sha256
size_mib=${SIZE_MIB:-1024}
count=${COUNT:-2000}
rounds=${ROUNDS:-5}
failures=0
served=$out/served
rm -rf "$served" && mkdir -p "$served/large" "$served/small"
head -c $((size_mib << 20)) /dev/urandom > "$served/large/pack.bin"
for ((index = 0; index < count; index++)); do head -c 65536 /dev/urandom > "$served/small/f$index.bin"; done
start_nginx "$served"
for set in large small; do
    "$binary" manifest "$served/$set" --base "$base$set/" --output "$out/$set-crc.xml"
    "$binary" manifest "$served/$set" --base "$base$set/" --sha256 --output "$out/$set-sha.xml"
done
# run_timed LIST MANIFEST: pulls MANIFEST into an empty DEST, appends the wall microseconds to LIST.
run_timed() {
    local -n list=$1
    rm -rf "$out/dest"
    timed "$binary" pull "$2" --dest "$out/dest" --quiet
    list+=("$t_us")
    ((t_rc == 0)) || { failures=$((failures + 1)); log "failed (exit $t_rc): pull $2 (see $last_err)"; }
}
for set in large small; do
    crc=() sha=()
    for ((round = 1; round <= rounds; round++)); do
        run_timed crc "$out/$set-crc.xml"
        run_timed sha "$out/$set-sha.xml"
    done
    c=$(median_of "${crc[@]}") s=$(median_of "${sha[@]}")
    if [[ $set == large ]]; then echo "one file of $size_mib MiB:"; else echo "$count files of 64 KiB:"; fi
    echo "  CRC-32 alone:       $(secs "$c") s    all: $(all_secs "${crc[@]}")"
    echo "  with SHA-256:       $(secs "$s") s    all: $(all_secs "${sha[@]}")   ($(ratio "$s" "$c")×)"
done
rm -rf "$out/dest" "$served"
finish "of the pulls"
