#!/usr/bin/env bash
# make fuzz: libFuzzer with the address sanitizer on every parser of outside input (issue 11, item 3).
#
#   fuzz/run.sh [BINARY]     BINARY: a release assetsync, used only to make a state-index seed
#
# Environment: FUZZ_SECONDS=400 per target (3 targets: 20 minutes in all); FUZZ_JOBS=1.
# Replays fuzz/regressions/<target>/ first (every input that once crashed), then fuzzes each target
# from a seed corpus. Findings go to .build/fuzz/findings/<target>/; exits 1 when there is any.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds=${FUZZ_SECONDS:-400}
binary=${1:-.build/release/assetsync}
out=.build/fuzz
bash fuzz/build.sh >/dev/null

# ---------------------------------------------------------------- seed corpora
corpus=$out/corpus
rm -rf "$corpus"
mkdir -p "$corpus"/{manifest,records,http}
cp manifests/example.xml manifests/example.json manifests/invalid/* manifests/metalink/* "$corpus/manifest/"
gzip -c manifests/example.xml >"$corpus/manifest/example.xml.gz"
printf 'assetsync-resume 1\npath a/b.bin\nsize 1048576\ncrc32 12345678\nurl http://h/a\netag "v1"\nsegments 0-1048575:0\n' \
    >"$corpus/records/resume"
if [[ -x $binary ]]; then
    tree=$(mktemp -d)
    trap 'rm -rf "$tree"' EXIT
    mkdir -p "$tree/d/sub"
    printf 'one' >"$tree/d/a.bin"
    printf 'two' >"$tree/d/sub/b.bin"
    : >"$tree/d/empty.bin"
    # Files already present are proven by their CRC and recorded without a request: a real state index.
    "$binary" manifest "$tree/d" --base http://127.0.0.1:9/ --output "$tree/m.xml" >/dev/null 2>&1
    "$binary" pull "$tree/m.xml" --dest "$tree/d" --quiet
    cp "$tree/d/.assetsync/state" "$corpus/records/state"
else
    echo "note: $binary missing: no state-index seed (make build first)" >&2
fi
printf 'https://example.org/a/b.bin\nhttps://cdn.example.org/x?y=1\nHTTP/1.1 206 Partial Content\nETag: "abc"\nContent-Range: bytes 0-99/1000\nRetry-After: 5\nLast-Modified: Tue, 01 Dec 2026 00:00:00 GMT\n' \
    >"$corpus/http/redirect"
printf 'http://h/a\n/relative/../b\nHTTP/2 503\nretry-after: 120\n' >"$corpus/http/relative"

# ---------------------------------------------------------------- regressions, then fuzzing
findings=0
summary=()
for target in manifest records http; do
    bin=$out/bin/fuzz-$target
    regressions=(fuzz/regressions/$target/*)
    if [[ -e ${regressions[0]} ]]; then
        if ! "$bin" "${regressions[@]}" >"$out/$target-regressions.log" 2>&1; then
            echo "FAIL: fuzz-$target crashes on a regression input (see $out/$target-regressions.log)"
            findings=$((findings + 1))
        fi
    fi
    # Only this run's findings count: an earlier run's are kept in its log and, once fixed, in regressions/.
    rm -rf "$out/findings/$target"
    mkdir -p "$out/findings/$target" "$out/work/$target"
    log=$out/$target.log
    status=0
    "$bin" -max_total_time="$seconds" -rss_limit_mb=512 -timeout=10 -max_len=65536 -print_final_stats=1 \
        -artifact_prefix="$out/findings/$target/" "$out/work/$target" "$corpus/$target" >"$log" 2>&1 || status=$?
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    peak=$(grep -o 'stat::peak_rss_mb: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    found=$(find "$out/findings/$target" -type f | wc -l)
    if ((status != 0 || found > 0)); then
        findings=$((findings + 1))
        summary+=("fuzz-$target: FAIL after $runs runs (exit $status, $found finding(s) in $out/findings/$target/, log $log)")
    else
        summary+=("fuzz-$target: $runs runs in ${seconds} s, peak RSS ${peak} MB, no crash, no leak")
    fi
done
printf '%s\n' "${summary[@]}"
if ((findings)); then
    echo "fuzz: $findings target(s) found something; copy each input into fuzz/regressions/<target>/ once fixed"
    exit 1
fi
echo "fuzz: no findings"
