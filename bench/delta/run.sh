#!/usr/bin/env bash
# Chunk deltas over plain HTTP (issue 14): a pack modified three ways (1% of its bytes changed in
# scattered places; 64 MiB inserted near the start; truncated and appended), pulled over the old
# version in DEST with the delta (manifest --chunks), without it (the whole file), and with zsync
# (a zsyncmake control file of the same new file, served by the same nginx).
#
#   bench/delta/run.sh BINARY
#
# Environment (optional): SIZE_MIB=2048 (the pack), PLACES=20 (the scattered changes, 1% of the
# pack in all), ZSYNC=1 (0 skips zsync), RATE (nginx's limit_rate per connection, such as 50m, for
# a network slower than loopback; unset: none), CASES (a subset of "scattered inserted appended"),
# BENCH_OUT=bench/out/delta. One round each, caches warm.
# Per case: bytes changed, the chunk list's bytes, bytes downloaded and requests (nginx's log),
# wall time; against the targets of issue 14: downloaded ≤ 1.3 × (changed + list), wall time of the
# 1% case ≤ 15% of the full download's, requests < 1% of one per chunk. Exits 0 whatever the
# figures, 1 when a pull failed or gave a wrong file.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 nginx curl cmp
zsync_on=${ZSYNC:-1}
[[ $zsync_on == 0 ]] || need_tools zsync zsyncmake
bench_out delta
size_mib=${SIZE_MIB:-2048}
places=${PLACES:-20}
failures=0
served=$out/served masters=$out/old
stamp="$size_mib MiB, $places places"
rm -rf "$masters" "$out"/work-* "$out"/*.xml "$out"/zsync-* "$served"/*.zsync
# The files of an earlier run of the same size and places are kept: they are the same bytes.
if [[ $(cat "$served/stamp" 2>/dev/null) != "$stamp" ]]; then
rm -rf "$served"
mkdir -p "$served"
log "generating a ${size_mib} MiB pack and its three changed versions..."
# Each case's file, and how many bytes of it are not in the old version (written to changed.txt).
python3 - "$served" "$size_mib" "$places" <<'PY'
import os, random, sys
served, size, places = sys.argv[1], int(sys.argv[2]) << 20, int(sys.argv[3])
rng = random.Random(14)
block = 64 << 20
def random_bytes(count):
    # In pieces: randbytes of more than 256 MiB overflows.
    return b"".join(rng.randbytes(min(16 << 20, count - start)) for start in range(0, count, 16 << 20))
with open(os.path.join(served, "old.bin"), "wb") as f:
    for start in range(0, size, block):
        f.write(random_bytes(min(block, size - start)))
def copy(source, target, start, count):
    with open(source, "rb") as s:
        s.seek(start)
        while count > 0:
            piece = s.read(min(block, count))
            target.write(piece)
            count -= len(piece)
old = os.path.join(served, "old.bin")
changed = {}
# 1% of the bytes, in `places` stretches spread evenly (each at a random spot of its share).
with open(os.path.join(served, "scattered.bin"), "wb") as f:
    copy(old, f, 0, size)
with open(os.path.join(served, "scattered.bin"), "r+b") as f:
    total, each, share = 0, size // 100 // places, size // places
    for place in range(places):
        f.seek(place * share + rng.randrange(share - each))
        f.write(random_bytes(each))
        total += each
    changed["scattered"] = total
# 64 MiB inserted near the start (after the first 100 MiB, or a twentieth of a smaller pack).
insert_at, inserted = min(100 << 20, size // 20), min(64 << 20, size // 32)
with open(os.path.join(served, "inserted.bin"), "wb") as f:
    copy(old, f, 0, insert_at)
    f.write(random_bytes(inserted))
    copy(old, f, insert_at, size - insert_at)
changed["inserted"] = inserted
# Truncated to three quarters, then an eighth of new bytes appended.
kept, appended = size // 4 * 3, size // 8
with open(os.path.join(served, "appended.bin"), "wb") as f:
    copy(old, f, 0, kept)
    f.write(random_bytes(appended))
changed["appended"] = appended
with open(os.path.join(served, "changed.txt"), "w") as f:
    for name, count in changed.items():
        f.write(f"{name} {count}\n")
PY
echo "$stamp" > "$served/stamp"
fi
mkdir -p "$masters"

limit=""
[[ -z ${RATE:-} ]] || limit="limit_rate $RATE; sendfile_max_chunk 256k;"
start_nginx "$served" 'log_format bytes "$status $body_bytes_sent $http_range"; access_log '"$out"'/bytes.log bytes; '"$limit"
read -r -a cases <<< "${CASES:-scattered inserted appended}"
# One manifest per case, with and without chunks, each naming its case's file as pack.bin.
for name in old "${cases[@]}"; do
    mkdir -p "$out/manifest-$name"
    ln -f "$served/$name.bin" "$out/manifest-$name/pack.bin"
    for mode in chunks plain; do
        flag=() && [[ $mode == plain ]] || flag=(--chunks)
        "$binary" manifest "$out/manifest-$name" --base "$base" "${flag[@]}" --output "$out/$name-$mode.xml" 2>/dev/null
        sed -i "s|path=\"pack.bin\"|path=\"pack.bin\" url=\"$name.bin\"|" "$out/$name-$mode.xml"
    done
    rm -rf "$out/manifest-$name"
done
# The old version, pulled once (with its state index): each run starts from a hard-linked copy.
"$binary" pull "$out/old-plain.xml" --dest "$masters" --quiet

# fetched_since LINE: requests and body bytes nginx logged after line LINE of bytes.log.
fetched_since() {
    tail -n +"$(($1 + 1))" "$out/bytes.log" | awk '{ n++; b += $2 } END { printf "%d %d\n", n, b }'
}

print_header "chunk deltas over plain HTTP (issue 14)" \
    "pack:     ${size_mib} MiB, scattered case in $places places; one round, caches warm; nginx limit_rate per connection: ${RATE:-none}"
results=()
printf '%-10s %12s %10s %14s %9s %9s %10s %8s %10s %10s\n' case changed list downloaded "ratio" requests "1/chunk" "delta s" "full s" "zsync s"
for name in "${cases[@]}"; do
    changed=$(awk -v n="$name" '$1 == n { print $2 }' "$served/changed.txt")
    list=$(grep -o 'chunks="[^"]*"' "$out/$name-chunks.xml" | wc -c)
    chunks=$(python3 -c 'import base64, re, sys; t = re.search(r"chunks=\"[^:]*:([^\"]*)\"", open(sys.argv[1]).read()).group(1); print(len(base64.b64decode(t)) // 20)' "$out/$name-chunks.xml")
    for mode in chunks plain; do
        work=$out/work-$name-$mode
        rm -rf "$work" && cp -al "$masters" "$work"
        before=$(wc -l < "$out/bytes.log")
        timed "$binary" pull "$out/$name-$mode.xml" --dest "$work" --quiet
        ((t_rc == 0)) && cmp -s "$work/pack.bin" "$served/$name.bin" || { failures=$((failures + 1)); log "$name $mode: failed or wrong (exit $t_rc, see $last_err)"; }
        read -r requests bytes < <(fetched_since "$before")
        if [[ $mode == chunks ]]; then delta_us=$t_us delta_requests=$requests delta_bytes=$bytes; else full_us=$t_us; fi
        rm -rf "$work"
    done
    zsync_s=skipped
    if [[ $zsync_on != 0 ]]; then
        (cd "$served" && zsyncmake -u "$name.bin" -o "$name.bin.zsync" "$name.bin" >/dev/null 2>&1)
        rm -f "$out/zsync-$name"
        before=$(wc -l < "$out/bytes.log")
        timed zsync -q -i "$masters/pack.bin" -o "$out/zsync-$name" "$base$name.bin.zsync"
        cmp -s "$out/zsync-$name" "$served/$name.bin" || { failures=$((failures + 1)); log "zsync $name: failed or wrong (see $last_err)"; }
        read -r z_requests z_bytes < <(fetched_since "$before")
        zsync_s="$(secs "$t_us") ($(mb "$z_bytes"), $z_requests req)"
        rm -f "$out/zsync-$name" "$out/zsync-$name.part"
    fi
    ratio_bytes=$(ratio "$delta_bytes" "$((changed + list))")
    printf '%-10s %12s %10s %14s %9s %9s %10s %8s %10s %s\n' "$name" "$(mb "$changed")" "$((list / 1000)) kB" "$(mb "$delta_bytes")" "${ratio_bytes}×" \
        "$delta_requests" "$chunks" "$(secs "$delta_us")" "$(secs "$full_us")" "$zsync_s"
    bytes_ok=$(judge "$ratio_bytes" "<=" 1.3) requests_ok=$(judge "$(ratio "$delta_requests" "$chunks")" "<" 0.01) time_ok=""
    [[ $name != scattered ]] || time_ok=$(judge "$(ratio "$delta_us" "$full_us")" "<=" 0.15)
    results+=("$bytes_ok" "$requests_ok")
    [[ -z $time_ok ]] || results+=("$time_ok")
    echo "           downloaded ≤ 1.3× (changed + list): $bytes_ok; requests < 1% of one per chunk: $requests_ok;" \
        "wall time $(ratio "$delta_us" "$full_us")× the full download's${time_ok:+ (≤ 0.15: $time_ok)}"
done
report_targets
finish "of the pulls"
