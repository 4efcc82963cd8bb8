#!/usr/bin/env bash
# `make example`: builds Examples/PullExample (the AssetSync library used from a package of its own,
# in .build/examples), makes a few random sample files and their JSON manifest, serves them with a
# private nginx (bench/lib.sh's, stopped on any exit), and checks what pull-example does: a first
# pull, a second one with nothing to do, a verification, a file the server lacks, invalid input and
# Ctrl-C, by exit status, output and `cmp` of every pulled file with its source. Its work files are
# left in .build/examples/run for a look after a failure. The last line: "example: N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=../bench/lib.sh
source bench/lib.sh
if ! command -v swift >/dev/null && [[ -x /opt/swift/usr/bin/swift ]]; then PATH=/opt/swift/usr/bin:$PATH; fi
command -v swift >/dev/null || { echo "error: no swift on PATH (a Swift 6 toolchain is needed)" >&2; exit 2; }
need_tools python3 nginx curl cmp:diffutils

scratch=$root/.build/examples
work=$scratch/run
assets=$work/assets
echo "== building Examples/PullExample in $scratch"
swift build --package-path Examples/PullExample --scratch-path "$scratch"
example=$(swift build --package-path Examples/PullExample --scratch-path "$scratch" --show-bin-path)/pull-example

# Sample files (random bytes, made afresh each run) from a few KiB to a few MiB, one name with a space.
files=("small.bin" "textures/medium.bin" "textures/maps/large map.bin")
sizes=(5000 $((300 * 1024 + 17)) $((3 * 1024 * 1024 + 1)))
rm -rf "$work"
for i in "${!files[@]}"; do
    mkdir -p "$(dirname "$assets/${files[i]}")"
    head -c "${sizes[i]}" /dev/urandom > "$assets/${files[i]}"
done
total=0
for size in "${sizes[@]}"; do total=$((total + size)); done

# nginx on a free loopback port; under /slow/ the same files, sent at 256 KiB/s unless a Range is asked
# for (so that a pull can be stopped halfway through, and its resumption goes at full speed).
start_nginx "$assets" 'map $http_range $example_rate { "" 256k; default 0; }' \
    "root $assets; location /slow/ { alias $assets/; limit_rate \$example_rate; }"
nginx_serves "${files[0]}"
echo "== nginx serving $assets on $base"

# manifest BASE [EXTRA_JSON_ENTRY]: the JSON manifest of the sample files (CRC-32 by zlib) under BASE.
manifest() {
    python3 - "$assets" "$1" "${2:-}" "${files[@]}" <<'PY'
import json, os, sys, zlib
assets, base, extra, *paths = sys.argv[1:]
entries = []
for path in paths:
    with open(os.path.join(assets, path), "rb") as f:
        data = f.read()
    entries.append({"path": path, "size": len(data), "crc32": "%08x" % zlib.crc32(data)})
if extra:
    entries.append(json.loads(extra))
json.dump({"version": 1, "base": base, "files": entries}, sys.stdout, indent=1)
PY
}
manifest "$base" > "$assets/manifest.json"
manifest "$base" '{"path": "gone.bin", "size": 10, "crc32": "0badf00d"}' > "$work/with-missing.json"
manifest "${base}slow/" > "$work/slow.json"

passed=0
failed=0
problems=()
# run_example NAME ARGUMENTS...: pull-example's output (both streams) shown and kept in $work/NAME.log; sets $rc and $log.
run_example() {
    log=$work/$1.log
    shift
    echo "\$ pull-example $*"
    rc=0
    "$example" "$@" > "$log" 2>&1 || rc=$?
    sed 's/^/    /' "$log"
    echo "    (exit status $rc)"
}
expect_status() { [[ $rc == "$1" ]] || problems+=("exit status $rc, expected $1"); }
# expect_line TEXT / expect_start TEXT: a line of $log is TEXT / begins with TEXT.
expect_line() { grep -qxF -- "$1" "$log" || problems+=("no line \"$1\""); }
expect_start() { awk -v text="$1" 'index($0, text) == 1 { found = 1 } END { exit !found }' "$log" || problems+=("no line beginning \"$1\""); }
# expect_same DEST: every sample file in DEST, byte for byte.
expect_same() {
    local file
    for file in "${files[@]}"; do cmp -s "$assets/$file" "$1/$file" || problems+=("$1/$file is not its source's bytes"); done
}
expect_all_good() {
    local file
    expect_line "verify: ${#files[@]} of ${#files[@]} good"
    for file in "${files[@]}"; do expect_line "  good $file"; done
}
# verdict NAME: PASS or FAIL (with every problem) for the expectations since the last verdict.
verdict() {
    if ((${#problems[@]} == 0)); then
        passed=$((passed + 1))
        echo "PASS $1"
    else
        failed=$((failed + 1))
        echo "FAIL $1"
        printf '  - %s\n' "${problems[@]}"
    fi
    problems=()
}

n=${#files[@]}
dest=$work/dest
echo "== 1. first pull"
run_example first-pull "${base}manifest.json" "$dest"
expect_status 0
expect_start "plan: $n files: $n new, 0 changed, 0 to check, 0 current, 0 extras; $total bytes"
expect_start "pull: $n committed, 0 current, 0 failed; $total bytes"
expect_all_good
expect_same "$dest"
verdict "first pull: $n files committed ($total bytes), verified, the sources' bytes"

echo "== 2. second pull, printing its events"
run_example second-pull --events "${base}manifest.json" "$dest"
expect_status 0
expect_line "plan: $n files: 0 new, 0 changed, 0 to check, $n current, 0 extras; 0 bytes to download"
expect_line "event: completed ($n files, succeeded)"
expect_line "pull: 0 committed, $n current, 0 failed; 0 bytes transferred"
expect_same "$dest"
verdict "second pull: all $n current, nothing transferred, events to the last"

echo "== 3. a third run, the manifest given as a path: verify finds every file good"
run_example verify "$assets/manifest.json" "$dest"
expect_status 0
expect_all_good
expect_same "$dest"
verdict "verify: $n of $n good"

echo "== 4. a file the server does not have"
run_example missing-file "$work/with-missing.json" "$work/dest-missing"
expect_status 1
expect_start "pull: $n committed, 0 current, 1 failed; "
expect_start "  failed gone.bin: "
expect_line "  missing gone.bin"
expect_same "$work/dest-missing"
verdict "a file the server lacks: exit 1, named as failed and missing, the others committed"

echo "== 5. invalid input"
run_example invalid-jobs --jobs 0 "${base}manifest.json" "$work/dest-invalid"
expect_status 2
expect_start "pull-example: jobs must be 1 to 64, not 0"
run_example no-manifest "$work/no-such-manifest.json" "$work/dest-invalid"
expect_status 2
verdict "invalid input (--jobs 0, a manifest that does not exist): exit 2"

echo "== 6. Ctrl-C halfway through a slow pull, then the pull again"
log=$work/interrupted.log
echo "\$ pull-example $work/slow.json $work/dest-slow   (SIGINT once it has run for a second)"
"$example" "$work/slow.json" "$work/dest-slow" > "$log" 2>&1 &
pid=$!
for _ in $(seq 300); do grep -q '^plan: ' "$log" && break; sleep 0.1; done
sleep 1
kill -INT "$pid"
rc=0
wait "$pid" || rc=$?
sed 's/^/    /' "$log"
echo "    (exit status $rc)"
expect_status 130
expect_start "pull-example: cancelled; partial downloads are kept"
run_example resumed "$work/slow.json" "$work/dest-slow"
expect_status 0
expect_all_good
expect_same "$work/dest-slow"
resumed=$(sed -n 's/^pull: .* failed; \([0-9]*\) bytes.*/\1/p' "$log")
[[ -n $resumed ]] && ((resumed < total)) || problems+=("the second run transferred ${resumed:-?} bytes, not less than the $total of all files: nothing was resumed")
verdict "Ctrl-C: exit 130; the next pull resumes (${resumed:-?} of $total bytes transferred) and completes"

echo "example: $passed passed, $failed failed"
((failed == 0))
