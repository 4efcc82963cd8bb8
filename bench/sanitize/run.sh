#!/usr/bin/env bash
# `make sanitize`: the unit tests and a pull of many files under the thread
# sanitizer, then under the address sanitizer (with its leak checker). Passes
# only with zero sanitizer reports. See bench/README.md.
#
#   bench/sanitize/run.sh [thread] [address]     (default: both, in that order)
#
# For each sanitizer: builds everything instrumented (debug, tests included)
# in its own build path, .build/tsan or .build/asan, so the normal build is
# untouched; runs Tests/AssetSyncTests; then, against a private loopback nginx,
# the instrumented binary's pull of 2,017 files (2,000 small ones, 16 medium,
# one of 200 MiB fetched in 4 segments; bench/sanitize/data.py), a no-op rerun
# (no request may reach nginx) and `verify`; then the short soak (SoakTests,
# uninstrumented test code driving the instrumented binary through a fault
# server: random faults, SIGTERM, a changing manifest, RunInvariants' I1-I5
# after every run). Every run writes its sanitizer
# reports to its own log_path (bench/out/sanitize/SANITIZER/); any report, a
# failed test, a wrong file or a non-zero exit fails the target. Prints a
# summary: what ran, how many tests, how many reports.
set -euo pipefail

# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
cd "$root"
need_tools python3 nginx curl diff swift
sanitizers=("$@")
((${#sanitizers[@]} > 0)) || sanitizers=(thread address)
for s in "${sanitizers[@]}"; do
    [[ $s == thread || $s == address ]] || { echo "error: unknown sanitizer '$s' (thread, address)" >&2; exit 2; }
done
bench_out sanitize
started=$SECONDS
summary=()
total_reports=0
suppressed=0
failures=0

fail() {  # MESSAGE
    failures=$((failures + 1))
    log "FAILED: $*"
}

# sanitizer_env SANITIZER NAME: sets $environment, the assignments that send the run NAME's
# reports to $logs/NAME.report.PID (exit status 66 after any report).
sanitizer_env() {
    case $1 in
        thread) environment=("TSAN_OPTIONS=log_path=$logs/$2.report exitcode=66 halt_on_error=0 second_deadlock_stack=1") ;;
        address) environment=("ASAN_OPTIONS=log_path=$logs/$2.report exitcode=66 detect_leaks=1 strict_string_checks=1 detect_stack_use_after_return=1"
            "LSAN_OPTIONS=suppressions=$root/bench/sanitize/lsan.supp") ;;
    esac
}

# reports NAME: sets n_reports to the number of sanitizer reports in run NAME's logs, and shows them;
# adds the leaked allocations that bench/sanitize/lsan.supp suppressed to $suppressed. A log holding
# neither a report nor the list of suppressions used still counts as one report: the sanitizer
# said something.
reports() {
    local n=0 f c
    for f in "$logs/$1.report".*; do
        [[ -e $f ]] || continue
        c=$(grep -cE '^(WARNING: ThreadSanitizer|ERROR: (AddressSanitizer|LeakSanitizer))' "$f" || true)
        suppressed=$((suppressed + $(awk '/^Suppressions used:/ { on = 1 } on && $1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n += $1 } END { print n + 0 }' "$f")))
        ((c > 0)) || grep -q '^Suppressions used:' "$f" || c=1
        ((c == 0)) && continue
        n=$((n + c))
        log "---- $f"
        cat "$f" >&2
    done
    n_reports=$n
}

# run_checked SANITIZER NAME COMMAND...: runs COMMAND under the sanitizer's options, its
# output to $logs/NAME.out, for at most 10 minutes; sets rc and n_reports (and adds them to
# the totals). Swift's backtracer is off: on a crash it forks, and under the thread sanitizer
# that fork failed a sanitizer CHECK and left the test run hanging instead of failing.
run_checked() {
    local s=$1 name=$2
    shift 2
    rc=0
    sanitizer_env "$s" "$name"
    env SWIFT_BACKTRACE=enable=no "${environment[@]}" timeout -k 10 600 "$@" >"$logs/$name.out" 2>&1 || rc=$?
    reports "$name"
    total_reports=$((total_reports + n_reports))
    ((n_reports == 0)) || fail "$s $name: $n_reports sanitizer report(s) (above; logs in $logs)"
}

# The soak's test code is not instrumented (only the binary it drives is): built once, in .build.
log "building the tests (uninstrumented) for the soak..."
swift build --build-tests --explicit-target-dependency-import-check error >"$out/tests-build.out" 2>&1 \
    || { tail -n 30 "$out/tests-build.out" >&2; echo "error: the test build failed (see $out/tests-build.out)" >&2; exit 1; }

data_line=""
start_data() {  # the nginx and the pull's data, once for every sanitizer
    [[ -z $data_line ]] || return 0
    # A log of the answers with the Range asked: proves the big file came in segments.
    start_nginx "$out/data" "log_format ranges '\$uri \$status \$http_range'; access_log $out/ranges.log ranges;"
    log "generating the pull's data in $out/data..."
    local files bytes
    read -r files bytes < <(python3 "$root/bench/sanitize/data.py" "$out" "$base")
    nginx_serves big.bin
    data_line="$files files, $(mb "$bytes")"
}

for s in "${sanitizers[@]}"; do
    short=${s:0:1}san
    build=.build/$short
    logs=$out/$short
    rm -rf "$logs" && mkdir -p "$logs"
    part_reports=$total_reports

    log "== $s sanitizer: building everything instrumented in $build..."
    t0=$SECONDS
    swift build --build-tests --sanitize="$s" --build-path "$build" \
        --explicit-target-dependency-import-check error >"$logs/build.out" 2>&1 \
        || { tail -n 30 "$logs/build.out" >&2; echo "error: the $s build failed (see $logs/build.out)" >&2; exit 1; }
    build_s=$((SECONDS - t0))

    log "== $s sanitizer: Tests/AssetSyncTests..."
    t0=$SECONDS
    run_checked "$s" unit swift test --skip-build --sanitize="$s" --build-path "$build" --filter AssetSyncTests
    unit_s=$((SECONDS - t0))
    tests=$(grep -oE 'Test run with [0-9]+ tests?' "$logs/unit.out" | grep -oE '[0-9]+' | tail -n 1 || true)
    if ((rc != 0)) || ! grep -qE 'Test run with [0-9]+ tests? .*passed' "$logs/unit.out"; then
        tail -n 40 "$logs/unit.out" >&2
        fail "$s unit tests: exit status $rc (output in $logs/unit.out)"
        unit="unit tests FAILED (status $rc)"
    else
        unit="${tests:-?} unit tests passed"
    fi
    unit_reports=$n_reports

    start_data
    bin=$build/debug/assetsync
    dest=$out/dest-$short
    rm -rf "$dest"
    log "== $s sanitizer: pull, no-op rerun and verify of $data_line..."
    t0=$SECONDS
    steps=()
    : >"$out/ranges.log"
    # Segments are at least this long: 200 MiB then comes as 4 of them (the default, 128 MiB, gives 1).
    export ASSETSYNC_SEGMENT_THRESHOLD=$((32 << 20))
    run_checked "$s" pull "$bin" pull "$out/manifest.xml" --dest "$dest" --quiet
    segments=$(grep -c '^/big\.bin 206 bytes=' "$out/ranges.log" || true)
    if ((rc != 0)); then fail "$s pull: exit status $rc ($logs/pull.out)"; tail -n 20 "$logs/pull.out" >&2; steps+=("pull FAILED")
    elif ! diff -rq -x .assetsync "$out/data" "$dest" >"$logs/diff.out" 2>&1; then
        fail "$s pull: the destination differs from the served files"; head -n 20 "$logs/diff.out" >&2; steps+=("pull WRONG FILES")
    elif ((segments < 4)); then
        fail "$s pull: big.bin came in $segments ranges, not in segments"; steps+=("pull NOT SEGMENTED")
    else steps+=("pull ok (big.bin in $segments ranges)"); fi
    requests=$(nginx_requests)
    run_checked "$s" noop "$bin" pull "$out/manifest.xml" --dest "$dest" --quiet
    if ((rc != 0)); then fail "$s no-op pull: exit status $rc ($logs/noop.out)"; steps+=("no-op FAILED")
    elif (($(nginx_requests) != requests)); then fail "$s no-op pull: $(($(nginx_requests) - requests)) request(s) reached nginx"; steps+=("no-op FETCHED")
    else steps+=("no-op ok"); fi
    run_checked "$s" verify "$bin" verify "$out/manifest.xml" --dest "$dest"
    if ((rc != 0)); then fail "$s verify: exit status $rc ($logs/verify.out)"; tail -n 20 "$logs/verify.out" >&2; steps+=("verify FAILED")
    else steps+=("verify ok"); fi
    pull_s=$((SECONDS - t0))
    rm -rf "$dest"

    log "== $s sanitizer: the short soak through $bin..."
    t0=$SECONDS
    run_checked "$s" soak env ASSETSYNC_BIN="$root/$bin" swift test --skip-build --filter 'SoakTests/short'
    soak_line=$(grep -oE '^soak: [0-9]+ runs in [0-9]+ s[^;]*' "$logs/soak.out" | head -n 1 || true)
    if ((rc != 0)) || ! grep -q '^soak: 0 violations' "$logs/soak.out"; then
        tail -n 40 "$logs/soak.out" >&2
        fail "$s soak: exit status $rc (output in $logs/soak.out)"
        soak="soak FAILED"
    else
        soak="soak ok (${soak_line#soak: })"
    fi
    soak_s=$((SECONDS - t0))

    joined=$(printf '%s, ' "${steps[@]}")
    summary+=("$(printf '%-8s build %4d s | %s in %d s (%d reports) | %s: %s in %d s | %s in %d s | reports: %d' \
        "$s" "$build_s" "$unit" "$unit_s" "$unit_reports" "$data_line" "${joined%, }" \
        "$pull_s" "$soak" "$soak_s" "$((total_reports - part_reports))")")
done

echo "== make sanitize: $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git rev-parse --short HEAD), $(nproc) cores, $((SECONDS - started)) s in all"
printf '%s\n' "${summary[@]}"
if ((failures == 0)); then
    echo "PASS: $total_reports sanitizer reports ($suppressed leaked allocations suppressed by bench/sanitize/lsan.supp: libXCTest's, and Foundation's Process.run in a test helper)"
else
    echo "FAIL: $failures failure(s), $total_reports sanitizer report(s) ($suppressed leaked allocations suppressed); logs in $out"
    exit 1
fi
