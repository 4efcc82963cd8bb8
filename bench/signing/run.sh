#!/usr/bin/env bash
# The cost of signed manifests (issue 15, item 2): `plan` of a 100,000-entry manifest against an
# empty cache directory with `--trusted-key` (read once, BLAKE2b-512, two Ed25519 checks, parsed
# from the checked bytes) and without, interleaved, and `assetsync sign` of the same manifest
# (read, parse, BLAKE2b-512, Ed25519). No server is needed.
#
#   bench/signing/run.sh BINARY
#
# Environment (optional): ENTRIES=100000, ROUNDS=11, BENCH_OUT=bench/out/signing.
# Signs with the test key in Tests/IntegrationTests/Fixtures (never trust it for anything else).
# Prints medians and the difference (target: under 50 ms on top of parsing); exits 0 whatever the
# figures, 1 when a run failed.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3
bench_out signing
entries=${ENTRIES:-100000}
rounds=${ROUNDS:-11}
failures=0
keys=$root/Tests/IntegrationTests/Fixtures
manifest=$out/manifest-$entries.xml
python3 "$root/bench/manifest/generate.py" --entries "$entries" --format xml --out "$manifest"
rm -rf "$out/empty" && mkdir -p "$out/empty"

plain=() trusted=() signing=()
for ((round = 1; round <= rounds; round++)); do
    run_timed signing "$binary" sign "$manifest" --key "$keys/signing-test.key" --version "$round"
    run_timed plain "$binary" plan "$manifest" --dest "$out/empty" --json
    run_timed trusted "$binary" plan "$manifest" --dest "$out/empty" --json --trusted-key "$keys/signing-test.pub"
done
p=$(median_of "${plain[@]}") t=$(median_of "${trusted[@]}") s=$(median_of "${signing[@]}")
delta=$(awk -v a="$t" -v b="$p" 'BEGIN { printf "%d", (a - b) / 1000 }')
echo "manifest:                   $entries entries, $(mb "$(stat -c %s "$manifest")"), $rounds rounds interleaved, medians"
echo "plan:                       $(secs "$p") s    all: $(all_secs "${plain[@]}")"
echo "plan --trusted-key:         $(secs "$t") s    all: $(all_secs "${trusted[@]}")"
echo "verifying costs:            $delta ms ($(ratio "$t" "$p")× the plan; target < 50 ms: $(judge "$delta" "<" 50))"
echo "sign (read, parse, sign):   $(secs "$s") s    all: $(all_secs "${signing[@]}")"
finish "of the runs"
