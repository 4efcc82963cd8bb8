#!/usr/bin/env bash
# The cost of publishing a generation (issue 13, item 1): `pull --atomic` over N unchanged files
# (hard-link the tree, walk and prove it from the state index, sync, swap the symlink, prune the
# generation beyond --keep) against a stat-only walk of the same tree and a plain no-op pull.
# No server is needed: every file is current, so no request is made.
#
#   bench/atomic/run.sh BINARY
#
# Environment (optional): COUNT=100000 files of 1 KiB, ROUNDS=5, BENCH_OUT=bench/out/atomic.
# Prints the median of each and the ratio to the stat walk (target: at most 2×); exits 0 whatever
# the figures, 1 when a pull failed.
set -euo pipefail
binary=$(realpath "${1:?usage: bench/atomic/run.sh BINARY}")
count=${COUNT:-100000}
rounds=${ROUNDS:-5}
out=$(realpath -m "${BENCH_OUT:-bench/out/atomic}")
mkdir -p "$out"
plain=$out/plain-$count atomic=$out/atomic-$count
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

seconds() { local start end; start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N); echo "$end - $start" | bc; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
declare -a walk=() noop=() publish=()
for ((round = 1; round <= rounds; round++)); do
    walk+=("$(seconds find "$atomic/" -printf '%s %T@\n')")
    noop+=("$(seconds "$binary" pull "$out/manifest.xml" --dest "$plain" --quiet)")
    publish+=("$(seconds "$binary" pull "$out/manifest.xml" --dest "$atomic" --quiet)")
done
w=$(printf '%s\n' "${walk[@]}" | median) n=$(printf '%s\n' "${noop[@]}" | median) p=$(printf '%s\n' "${publish[@]}" | median)
echo "files:                      $count (of 1 KiB), $rounds rounds, medians; caches warm"
echo "stat walk (find -printf):   ${w} s    all: ${walk[*]}"
echo "plain no-op pull:           ${n} s    all: ${noop[*]}   ($(echo "scale=2; $n / $w" | bc)× the walk)"
echo "atomic pull (publish):      ${p} s    all: ${publish[*]}   ($(echo "scale=2; $p / $w" | bc)× the walk; target ≤ 2×)"
echo "generations now:            $(ls "$atomic.assetsync" | tr '\n' ' ')"
