#!/usr/bin/env bash
# The cost of publishing a generation (issue 13, item 1): `pull --atomic` over N unchanged files
# (hard-link the tree, walk and prove it from the state index, sync, swap the symlink, prune the
# generation beyond --keep) against a stat-only walk of the same tree and a plain no-op pull.
# No server is needed: every file is current, so no request is made.
#
#   bench/atomic/run.sh BINARY
#
# Environment (optional): COUNT=100000 files of 1 KiB, ROUNDS=5, BENCH_OUT=bench/out/atomic,
# FS=xfs to run on an XFS image with reflinks mounted on a loop device (needs root and xfsprogs),
# where generations are made of clones rather than hard links.
# Prints the median of each and the ratio to the stat walk (target: at most 2×); exits 0 whatever
# the figures, 1 when a pull failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 find
bench_out atomic
count=${COUNT:-100000}
rounds=${ROUNDS:-5}
failures=0
trees=$out
if [[ ${FS:-} == xfs ]]; then
    need_tools mkfs.xfs:xfsprogs mount umount
    trees=$out/xfs
    mkdir -p "$trees"
    mountpoint -q "$trees" && umount "$trees"
    rm -f "$out/xfs.img"
    truncate -s 8G "$out/xfs.img"
    mkfs.xfs -q -m reflink=1 "$out/xfs.img"
    mount -o loop "$out/xfs.img" "$trees"
    trap 'umount "$trees"; rm -f "$out/xfs.img"' EXIT
fi
plain=$trees/plain-$count atomic=$trees/atomic-$count
rm -rf "$plain" "$atomic" "$atomic.assetsync"

echo "generating $count files of 1 KiB (in directories of 1,000)..." >&2
python3 - "$plain" "$count" <<'PY'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
for index in range(count):
    directory = os.path.join(root, "d%03d" % (index // 1000))
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "f%06d.bin" % index), "wb") as f:
        f.write(index.to_bytes(8, "little") * 128)
PY
"$binary" manifest "$plain" --base http://127.0.0.1:9/ --output "$out/manifest.xml" 2>/dev/null
cp -al "$plain" "$atomic"
# Proven once by reading (no request: every file has the manifest's size and CRC-32), then atomic.
"$binary" pull "$out/manifest.xml" --dest "$plain" --quiet
"$binary" pull "$out/manifest.xml" --dest "$atomic" --quiet --atomic
# Two generations made afresh (a link or a clone per file); from the third on, publishing recycles
# the generation beyond --keep, which is what a scheduled pull does.
"$binary" pull "$out/manifest.xml" --dest "$atomic" --quiet
"$binary" pull "$out/manifest.xml" --dest "$atomic" --quiet

walk=() noop=() publish=()
for ((round = 1; round <= rounds; round++)); do
    run_timed walk find "$atomic/" -printf '%s %T@\n'
    run_timed noop "$binary" pull "$out/manifest.xml" --dest "$plain" --quiet
    run_timed publish "$binary" pull "$out/manifest.xml" --dest "$atomic" --quiet
done
w=$(median_of "${walk[@]}") n=$(median_of "${noop[@]}") p=$(median_of "${publish[@]}")
echo "files:                      $count (of 1 KiB) on $(df --output=fstype "$atomic" | tail -1), $rounds rounds, medians; caches warm"
echo "stat walk (find -printf):   $(secs "$w") s    all: $(all_secs "${walk[@]}")"
echo "plain no-op pull:           $(secs "$n") s    all: $(all_secs "${noop[@]}")   ($(ratio "$n" "$w")× the walk)"
echo "atomic pull (publish):      $(secs "$p") s    all: $(all_secs "${publish[@]}")   ($(ratio "$p" "$w")× the walk; target ≤ 2×)"
echo "generations now:            $(ls "$atomic.assetsync" | tr '\n' ' ')"
finish "of the pulls"
