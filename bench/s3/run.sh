#!/usr/bin/env bash
# The S3 comparison (issue 27, item 4): pulls of the peers benchmark's sets B and
# C from a private bucket of moto's S3 server, with authentication enforced, by
# assetsync, `aws s3 sync` (Debian's awscli), `rclone copy` (its s3 backend) and
# `s3cmd sync`, each output compared byte for byte with the source, beside what
# the server alone (curl, signed, to /dev/null) and the disk alone manage in the
# same run. Writes its section of docs/performance.md (between its markers,
# which bench/peers/run.sh keeps) and prints it. See bench/README.md.
#
#   bench/s3/run.sh BINARY
#
# Environment (all optional):
#   ROUNDS=3                     interleaved rounds of set B (the tools rotate each round)
#   C_ROUNDS=(ROUNDS)            rounds of set C
#   SETS="B C"                   which sets
#   SET_B=32x64M SET_C=5000x64K  COUNTxSIZE (K, M, G = KiB, MiB, GiB), as in the peers benchmark
#   REFS=1                       0 leaves out curl → /dev/null and the disk's write + fdatasync
#   EVIDENCE=1                   0 skips the untimed rclone -vv and s3cmd --debug runs that count
#                                the files each tool checked by MD5
#   DROP_CACHES=1                0 never drops the page cache between runs
#   ASSETSYNC_MOTO_VENV=.build/moto   moto's virtual environment (`make deps` makes it)
#   REPORT=docs/performance.md   the file whose S3 section is written (or appended)
#   BENCH_OUT=bench/out/s3       destinations, configs, logs; the sets themselves are
#                                bench/out/peers/data (made once, shared with the peers benchmark)
# A smoke run (a minute or two):
#   SET_B=4x16M SET_C=200x64K ROUNDS=1 REPORT=bench/out/s3/performance.md bench/s3/run.sh .build/release/assetsync
#
# Exits 0 whatever the figures, 1 when a run failed or a tool's output was
# wrong, 2 when the binary, moto or a tool is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
# /usr/bin/aws: Debian's awscli, not another `aws` earlier on PATH (pyenv's, say).
need_tools python3 curl /usr/bin/aws:awscli rclone s3cmd diff find /usr/bin/time
bench_out s3
probe_drop_caches

venv=${ASSETSYNC_MOTO_VENV:-$root/.build/moto}
if [[ ! -x $venv/bin/moto_server ]]; then
    echo "error: no moto in $venv (run 'make deps', or set ASSETSYNC_MOTO_VENV)" >&2
    exit 2
fi
rounds=${ROUNDS:-3}
c_rounds=${C_ROUNDS:-$rounds}
read -r -a sets <<<"${SETS:-B C}"
refs=${REFS:-1}
evidence=${EVIDENCE:-1}
report=${REPORT:-$root/docs/performance.md}
declare -A spec=([B]=${SET_B:-32x64M} [C]=${SET_C:-5000x64K})
tools=(assetsync aws rclone s3cmd)
((refs)) && tools+=(curl-null disk-sync)
bucket=assets
failures=0

# ---------------------------------------------------------------- the sets: bench/peers/data.py's, shared
peers=$root/bench/peers
docroot=$root/bench/out/peers/data
lists=$root/bench/out/peers/lists
mkdir -p "$docroot" "$lists"
bytes_of() {  # 64K → 65536
    local n=${1%[KMG]}
    case $1 in *K) echo $((n << 10)) ;; *M) echo $((n << 20)) ;; *G) echo $((n << 30)) ;; *) echo "$n" ;; esac
}
declare -A name=() count=() size=()
for s in "${sets[@]}"; do
    [[ -n ${spec[$s]:-} ]] || { echo "error: unknown set '$s' in SETS (B, C)" >&2; exit 2; }
    [[ ${spec[$s]} =~ ^([0-9]+)x([0-9]+[KMG]?)$ ]] || { echo "error: SET_$s='${spec[$s]}' is not COUNTxSIZE (e.g. 32x64M)" >&2; exit 2; }
    count[$s]=${BASH_REMATCH[1]}
    size[$s]=$(bytes_of "${BASH_REMATCH[2]}")
    name[$s]=$s-${spec[$s]}
done
list_of() { echo "$lists/${name[$1]}.list"; }
source_of() { echo "$docroot/${name[$1]}"; }
# The same files and list as bench/peers/run.sh's ensure_set makes (and the same test for staleness).
for s in "${sets[@]}"; do
    if [[ ! -s $(list_of "$s") || $peers/data.py -nt $(list_of "$s") ]]; then
        rm -rf "$(source_of "$s")" "$(list_of "$s")"
        log "generating set $s: ${count[$s]} x ${size[$s]} bytes of random data in $(source_of "$s")/ (once)..."
        python3 "$peers/data.py" make "$(source_of "$s")" "${count[$s]}" "${size[$s]}" "$(list_of "$s")"
    fi
done
set_bytes() { awk -F'\t' '{ b += $2 } END { printf "%.0f", b }' "$(list_of "$1")"; }

# ---------------------------------------------------------------- moto, authentication enforced
# As Tests/IntegrationTests/Support/ObjectStore.swift starts it: the first 10 requests
# unchecked, spent by s3_fixture.py's `auth` on an IAM user, its key, an allow-all
# policy and the bucket; it then proves a wrong secret is refused. Every object is
# held in moto's memory (MOTO_S3_DEFAULT_KEY_BUFFER_SIZE above the largest file),
# not in temporary files that dropping the page cache would send back to the disk.
moto_port=$(free_port)
endpoint=http://127.0.0.1:$moto_port
moto_log=$out/moto.log
moto_pid=""
# shellcheck disable=SC2317  # run by the traps
stop_moto() {
    if [[ -n $moto_pid ]] && kill "$moto_pid" 2>/dev/null; then wait "$moto_pid" 2>/dev/null || true; fi
    moto_pid=""
}
trap stop_moto EXIT
trap 'stop_moto; exit 130' INT
trap 'stop_moto; exit 143' TERM
largest=$(for s in "${sets[@]}"; do echo "${size[$s]}"; done | sort -n | tail -n 1)
INITIAL_NO_AUTH_ACTION_COUNT=10 MOTO_S3_DEFAULT_KEY_BUFFER_SIZE=$((largest + (1 << 20))) \
    "$venv/bin/moto_server" -H 127.0.0.1 -p "$moto_port" >"$moto_log" 2>&1 &
moto_pid=$!
listening=0
for _ in $(seq 100); do
    # A bare connect, not a request: each of the first 10 requests is one unchecked action.
    if (exec 3<>"/dev/tcp/127.0.0.1/$moto_port") 2>/dev/null; then listening=1; break; fi
    sleep 0.2
done
((listening)) || { echo "error: moto did not listen on $endpoint (see $moto_log)" >&2; exit 1; }
keys=$("$venv/bin/python" "$root/Tests/IntegrationTests/Fixtures/s3_fixture.py" "$endpoint" "$endpoint" "$bucket" auth) \
    || { echo "error: moto's authentication could not be set up (see $moto_log)" >&2; exit 1; }
key=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["key"])' "$keys")
secret=$(python3 -c 'import json, sys; print(json.loads(sys.argv[1])["secret"])' "$keys")
store() { S3_BENCH_KEY=$key S3_BENCH_SECRET=$secret "$venv/bin/python" "$here/store.py" "$endpoint" "$bucket" "$@"; }

# Every tool finds the key as the AWS tools do, and nothing else: no profile, no
# files of ~/.aws, no CA bundle (the endpoint is plain HTTP; with AWS_CA_BUNDLE set,
# rclone's s3 backend refused to start: "LoadCustomCABundleError").
unset AWS_PROFILE AWS_DEFAULT_PROFILE AWS_SESSION_TOKEN AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_CA_BUNDLE
export AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret AWS_REGION=us-east-1 AWS_DEFAULT_REGION=us-east-1
export AWS_CONFIG_FILE=$out/aws-config AWS_SHARED_CREDENTIALS_FILE=$out/aws-credentials
: >"$AWS_CONFIG_FILE"
: >"$AWS_SHARED_CREDENTIALS_FILE"
export RCLONE_CONFIG=$out/rclone.conf
umask 077
cat >"$RCLONE_CONFIG" <<CONF
[moto]
type = s3
provider = Other
access_key_id = $key
secret_access_key = $secret
endpoint = $endpoint
region = us-east-1
force_path_style = true
CONF
s3cfg=$out/s3cfg
cat >"$s3cfg" <<CONF
[default]
access_key = $key
secret_key = $secret
host_base = 127.0.0.1:$moto_port
host_bucket = 127.0.0.1:$moto_port
use_https = False
signature_v2 = False
bucket_location = us-east-1
CONF
curl_auth=$out/curl-auth.cfg
printf 'user = "%s:%s"\n' "$key" "$secret" >"$curl_auth"
umask 022

# Once per run, into the fresh moto: every set's files (64 MiB ones as multipart
# uploads in 8 MiB parts) and its manifest, PREFIX/manifest.json.
declare -A uploaded=()
for s in "${sets[@]}"; do
    log "uploading set $s into $endpoint/$bucket/${name[$s]}/ ..."
    uploaded[$s]=$(store upload "$(list_of "$s")" "$(source_of "$s")" "${name[$s]}/")
    log "  ${uploaded[$s]}"
    store curl-config "$(list_of "$s")" "${name[$s]}/" "$out/curl-null-${name[$s]}.cfg"
done

# ---------------------------------------------------------------- runs
dest=$out/dest
kept=$out/kept
# reset SET: outside the timed region, the last destination removed (set C's set
# aside until the set is done, as bench/peers/run.sh does, for ext4's reuse of
# recently freed inodes slowed the next run's creates), sync, the page cache
# dropped when permitted, the source read back (disk-sync reads it), an empty DEST.
reset() {
    if [[ -d $dest ]]; then
        if [[ $1 == C ]]; then mkdir -p "$kept" && mv "$dest" "$(mktemp -u "$kept/dest.XXXXXX")"; else rm -rf "$dest"; fi
    fi
    drop_page_cache
    find "$(source_of "$1")" -type f -exec cat {} + >/dev/null
    mkdir -p "$dest"
}
python=$(python3 -c 'import sys; print(sys.executable)')
command_of() {  # TOOL SET: sets cmd
    local n=${name[$2]}
    case $1 in
        assetsync) cmd=("$binary" pull "s3://$bucket/$n/manifest.json" --dest "$dest" --endpoint-url "$endpoint" --json) ;;
        aws) cmd=(/usr/bin/aws s3 sync "s3://$bucket/$n/" "$dest" --endpoint-url "$endpoint" --exclude manifest.json --only-show-errors --no-progress) ;;
        rclone) cmd=(rclone copy "moto:$bucket/$n/" "$dest" --exclude /manifest.json --transfers 8) ;;
        s3cmd) cmd=(s3cmd -c "$s3cfg" sync --no-progress "s3://$bucket/$n/" "$dest/" --exclude manifest.json) ;;
        curl-null) cmd=(curl -sSf -Z --parallel-max 8 --aws-sigv4 aws:amz:us-east-1:s3 -H "x-amz-content-sha256: UNSIGNED-PAYLOAD"
                        --config "$curl_auth" --config "$out/curl-null-$n.cfg") ;;
        disk-sync) cmd=("$python" "$peers/disk.py" fdatasync "$(list_of "$2")" "$(source_of "$2")" "$dest") ;;
    esac
}

# Per "SET TOOL": wall µs incl. the final sync over the rounds (ERR: failed; FAIL:
# wrong output), CPU µs, peak RSS kB, and what was wrong.
declare -A wall=() cpu=() rss=() wrong=()
measure() {  # TOOL SET
    local tool=$1 s=$2 status stdout=/dev/null
    reset "$s"
    command_of "$tool" "$s"
    [[ $tool == assetsync ]] && stdout=$out/assetsync-${name[$s]}-round$round.ndjson
    timed_stdout=$stdout timed_sync_v "${cmd[@]}"
    status=$t_total
    if ((t_rc != 0)); then
        log "FAILED: $tool, set $s, round $round: exit status $t_rc"
        tail -n 5 "$last_err" >&2 || true
        status=ERR
    elif [[ $tool != curl-null ]] && ! diff -rq -x .assetsync "$(source_of "$s")" "$dest" >"$out/diff.txt" 2>&1; then
        log "FAILED: $tool, set $s, round $round: WRONG OUTPUT"
        head -n 5 "$out/diff.txt" >&2
        status=FAIL
        wrong["$s $tool"]="$(wc -l <"$out/diff.txt") files differ, missing or extra"
    fi
    [[ $status == "$t_total" ]] || failures=$((failures + 1))
    log "  round $round, set $s: $tool $(secs "$t_total") s (sync $(secs "$t_sync") s, CPU $(secs "$t_cpu" 2) s, RSS $((t_rss / 1024)) MiB) ${status//[0-9]/}"
    wall["$s $tool"]+="$status "
    cpu["$s $tool"]+="$t_cpu "
    rss["$s $tool"]+="$t_rss "
}

# evidence SET: untimed, rclone -vv and s3cmd --debug once each, counting the files
# whose MD5 each compared with the object's (rclone: "md5 = … OK"; s3cmd: an MD5
# computed while receiving, which it compares with the ETag; "Computed MD5 = None"
# when the ETag is a multipart one).
declare -A checked=()
evidence() {
    local s=$1 n=${count[$1]} log_file
    log_file=$out/rclone-vv-${name[$s]}.log
    reset "$s"
    command_of rclone "$s"
    if "${cmd[@]}" -vv >"$log_file" 2>&1; then
        checked["$s rclone"]="MD5 of $(grep -c ': md5 = [0-9a-f]* OK$' "$log_file" || true) of $n files; $(grep -c 'Src hash empty - aborting Dst hash check' "$log_file" || true) without"
    fi
    log_file=$out/s3cmd-debug-${name[$s]}.log
    reset "$s"
    command_of s3cmd "$s"
    if "${cmd[@]}" --debug >"$log_file" 2>&1; then
        checked["$s s3cmd"]="MD5 of $(grep -c 'ReceiveFile: Computed MD5 = [0-9a-f]\{32\}$' "$log_file" || true) of $n files; $(grep -c 'ReceiveFile: Computed MD5 = None' "$log_file" || true) without"
    fi
}

# The command line as given, with the knobs that were set.
command_line=""
for knob in ROUNDS C_ROUNDS SETS SET_B SET_C REFS EVIDENCE DROP_CACHES ASSETSYNC_MOTO_VENV REPORT BENCH_OUT; do
    [[ -n ${!knob+set} ]] && command_line+="$knob=${!knob} "
done
command_line+="bench/s3/run.sh $*"
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
started=$(date -u '+%H:%M')
for s in "${sets[@]}"; do
    r=$rounds
    [[ $s == C ]] && r=$c_rounds
    for ((round = 1; round <= r; round++)); do
        n=${#tools[@]}
        for ((i = 0; i < n; i++)); do
            measure "${tools[(i + round - 1) % n]}" "$s"
        done
    done
    ((evidence)) && evidence "$s"
    rm -rf "$kept" "$dest"
done
ended=$(date -u '+%H:%M')

# ---------------------------------------------------------------- the section
spread() {  # KEY: "median (min–max)" s, or what went wrong
    local -a v
    read -r -a v <<<"${wall[$1]:-}"
    if ((${#v[@]} == 0)); then echo "-"
    elif [[ " ${v[*]} " == *" FAIL "* ]]; then echo "**FAIL: wrong output (${wrong[$1]})**"
    elif [[ " ${v[*]} " == *" ERR "* ]]; then echo "**ERR: run failed**"
    else echo "$(median_s "${v[@]}") ($(min_s "${v[@]}")–$(secs "$(max_of "${v[@]}")"))"
    fi
}
rate() {  # KEY SET: MB/s (10^6 bytes) at the median
    local -a v
    read -r -a v <<<"${wall[$1]:-}"
    local m=ERR
    [[ " ${v[*]} " == *" FAIL "* ]] || m=$(median_of "${v[@]}")
    if num "$m"; then awk -v b="$(set_bytes "$2")" -v us="$m" 'BEGIN { printf "%.0f", b / us }'; else echo "-"; fi
}
cpu_rss() {  # KEY: "CPU s (median) / peak RSS MiB (max)"
    local -a c r
    read -r -a c <<<"${cpu[$1]:-}"
    read -r -a r <<<"${rss[$1]:-}"
    local peak
    peak=$(max_of "${r[@]}")
    num "$peak" && peak=$(awk -v k="$peak" 'BEGIN { printf "%.0f", k / 1024 }')
    echo "$(median_s "${c[@]}" | cut -c1-5) s / $peak MiB"
}
output_of() {  # KEY
    if [[ $1 == *curl-null ]]; then echo "(to /dev/null)"
    elif [[ " ${wall[$1]:-} " == *" FAIL "* ]]; then echo "**FAIL**"
    elif [[ " ${wall[$1]:-} " == *" ERR "* ]]; then echo "ERR"
    else echo "identical"; fi
}
settings_of() {
    case $1 in
        assetsync) echo "assetsync \`pull s3://…/manifest.json --endpoint-url\` (defaults: --jobs 8)" ;;
        aws) echo "aws s3 sync (defaults: max_concurrent_requests 10, 8 MiB ranged parts above 8 MiB)" ;;
        rclone) echo "rclone copy, s3 backend (--transfers 8; defaults: --checkers 8)" ;;
        s3cmd) echo "s3cmd sync (defaults: one file at a time)" ;;
        curl-null) echo "reference: curl → /dev/null, every object, signed (-Z, 8 parallel)" ;;
        disk-sync) echo "reference: the disk, write + fdatasync (bs 128k; bench/peers/disk.py)" ;;
    esac
}
verified_of() {  # TOOL SET
    local s=$2
    case $1 in
        assetsync) echo "size and CRC-32 of every byte written against the manifest, before commit; data made durable (fsync, or one syncfs per group of small files); rename into place" ;;
        aws) echo "each response's length against its Content-Length; no checksum (see below)" ;;
        rclone) echo "size; MD5 against the ETag when it is one (single-part)${checked["$s rclone"]:+: ${checked["$s rclone"]}}" ;;
        s3cmd) echo "MD5 against the ETag when it is one (single-part), a mismatch only a warning${checked["$s s3cmd"]:+: ${checked["$s s3cmd"]}}" ;;
        curl-null) echo "-" ;;
        disk-sync) echo "-" ;;
    esac
}

section=$out/s3-section.md
begin_marker="<!-- bench/s3/run.sh: begin (written by bench/s3/run.sh; bench/peers/run.sh keeps it) -->"
end_marker="<!-- bench/s3/run.sh: end -->"
{
    echo "$begin_marker"
    echo "## S3: pulls from an authenticated moto server, against aws, rclone and s3cmd"
    echo
    echo "Written by \`bench/s3/run.sh\` (\`make bench-s3\`, part of \`make bench\`); see bench/README.md."
    echo
    echo '```'
    print_header "S3 benchmark" \
        "tools:    $(/usr/bin/aws --version 2>&1 | cut -d' ' -f1-2) (Debian's awscli), $(rclone version 2>&1 | head -n 1), s3cmd $(s3cmd --version 2>&1 | awk '{ print $NF }'), $(curl --version | head -n 1 | cut -d' ' -f1-2)" \
        "command:  $command_line" \
        "server:   moto_server $("$venv/bin/python" -c 'import moto; print(moto.__version__)') on $endpoint, authentication enforced (IAM user, allow-all policy; a wrong secret refused), path-style, every object in moto's memory" \
        "rounds:   $rounds (set C: $c_rounds), interleaved, the order of the tools rotating each round; load $load_before at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end ($started–$ended UTC)" \
        "caches:   before every run: an empty destination (set C's previous ones set aside), sync, drop_caches=$drop_caches, the source read back into the page cache"
    echo '```'
    echo
    for s in "${sets[@]}"; do echo "- set $s uploaded: ${uploaded[$s]}"; done
    echo
    echo "Wall seconds including a final \`sync\`, median (min–max); MB/s (10^6 bytes) at the median; CPU"
    echo "(user + sys, median) and peak RSS (largest process) from GNU time. Every output is compared byte for"
    echo "byte with the source by \`diff -rq\` (every file's bytes, and no file missing or extra; assetsync's"
    echo "\`.assetsync/\` aside): **FAIL** when anything differs. The peers are told to leave out"
    echo "\`manifest.json\`, which only assetsync reads."
    for s in "${sets[@]}"; do
        echo
        echo "### Set $s: $(printf "%'d" "${count[$s]}") x $(numfmt --to=iec-i --suffix=B "${size[$s]}") ($(mb "$(set_bytes "$s")"))"
        echo
        echo "| tool (settings) | wall s, median (min–max) | MB/s | CPU / peak RSS | output | what the tool itself verified |"
        echo "| --- | --- | --- | --- | --- | --- |"
        for t in "${tools[@]}"; do
            echo "| $(settings_of "$t") | $(spread "$s $t") | $(rate "$s $t" "$s") | $(cpu_rss "$s $t") | $(output_of "$s $t") | $(verified_of "$t" "$s") |"
        done
    done
    cat <<'NOTES'

**Reading it.** moto is one Python process (werkzeug, a thread per connection, one
interpreter lock) that checks every request's SigV4 signature and the user's policy,
on the same 2 cores as the client being timed: it is the bottleneck, and the
`curl → /dev/null` row (every object fetched, signed, 8 at a time, nothing written) is
its ceiling in this run. A tool's time beyond the larger of that row and the disk's
row is its own. Figures say how the tools compare against this server, not against
S3 or MinIO.

**Settings.** Every tool gets the key as the AWS tools look for it (`AWS_ACCESS_KEY_ID`,
`AWS_SECRET_ACCESS_KEY`, `AWS_REGION=us-east-1`, empty `AWS_CONFIG_FILE` and
`AWS_SHARED_CREDENTIALS_FILE`), rclone a generated config (`provider = Other`,
`force_path_style = true`), s3cmd a generated config (`host_base` = `host_bucket` =
the endpoint, so path style; `use_https = False`; SigV4); `AWS_CA_BUNDLE` is unset
(plain HTTP; rclone's s3 backend refused to start with it). Concurrency: assetsync's
default `--jobs 8`; aws its defaults (`max_concurrent_requests` 10, objects above 8 MiB
fetched as 8 MiB ranged GETs); rclone `--transfers 8` as in the peers benchmark
(default 4) with its default `--checkers 8`; s3cmd has no parallel transfers. The
peers leave out `manifest.json` (`--exclude`). Requests per tool, counted in moto's
log on a small set by hand (20 × 64 KiB, 2 × 16 MiB multipart): assetsync the manifest
and one GET per file; aws one listing and a 206 ranged GET per 8 MiB; rclone a
listing per directory and one GET per file; s3cmd one listing, one GET per file and
a HEAD before each multipart object.

**What each tool verified**, as far as it can be shown:

- **assetsync**: each file's size and the CRC-32 of exactly the bytes written,
  against the manifest; a file becomes visible only when proven: data made durable
  (fsync, or one `syncfs` for a group of small files), then renamed into place and its
  directory fsynced (README.md, "A file becomes visible only when proven").
- **aws s3 sync** (awscli 2.9.19, default transfer client, not CRT): no checksum of
  the downloaded bytes. Its s3transfer download code has no MD5 or ETag check, and
  botocore validates a response checksum (`x-amz-checksum-*`) only when the request
  asks for it with `ChecksumMode`, which `aws s3` does not set
  (`awscli/botocore/httpchecksum.py`, `handle_checksum_body`; no `ChecksumMode` in
  `awscli/customizations/s3/`). What is checked is each response's length against
  its Content-Length (`botocore/response.py`, `_verify_content_length`). An AWS
  maintainer's older description of the v1 CLI (MD5 checked for non-ranged downloads
  only, never for ranged ones: aws/aws-cli#1750) does not match the code of this
  version.
- **rclone copy** (1.60.1): after each transfer, the size and the MD5 of the written
  file against the object's, a mismatch an error "corrupted on transfer" (its manual,
  `/usr/share/doc/rclone/MANUAL.md.gz`: `--ignore-checksum`, and "corrupted on
  transfer: sizes differ" under `--s3-decompress`), when the object has an MD5: its
  ETag for single-part objects, or the `X-Amz-Meta-Md5chksum` metadata rclone writes on
  its own multipart uploads (the manual's s3 "Hashes"). Counted from its `-vv` log in
  this run ("md5 = … OK" against "Src hash empty - aborting Dst hash check"): set B's
  multipart objects, uploaded by boto3, carry no MD5, so only their sizes were checked.
- **s3cmd sync** (2.3.0): an MD5 computed while receiving and compared with the ETag,
  or with its own `s3cmd-attrs` metadata, unless the ETag is a multipart one (with a
  `-`; s3tools/s3cmd#604, #605); a mismatch prints `WARNING: MD5 signatures do not
  match` and the file is kept (`S3/S3.py`, `recv_file`). Counted from its `--debug`
  log ("ReceiveFile: Computed MD5 = …", `None` when not computed). It writes to a
  temporary file and renames it, without fsync.
NOTES
    echo
    echo "$end_marker"
} >"$section"

# Into REPORT: the section between the markers replaced, or appended.
mkdir -p "$(dirname "$report")"
[[ -f $report ]] || : >"$report"
if grep -qxF "$begin_marker" "$report"; then
    awk -v b="$begin_marker" -v e="$end_marker" -v f="$section" '
        $0 == b { while ((getline line < f) > 0) print line; skip = 1; next }
        $0 == e { skip = 0; next }
        !skip' "$report" >"$report.new"
else
    { cat "$report"; [[ -s $report ]] && echo; cat "$section"; } >"$report.new"
fi
mv "$report.new" "$report"
cat "$section"
echo
echo "(written to $report; benchmarks are informational: the exit status is 0 unless a run failed)"
finish
