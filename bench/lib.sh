# The one library of the benchmarks (bench/*/run.sh, bench/pull/sweep.sh) and
# of demo/run.sh, sourced, not run: the binary and tool checks, where output
# goes, a private nginx on a free loopback port (stopped by a trap on any exit),
# the page-cache drop, timers (with GNU time's CPU and peak RSS), a CA and
# server certificate for TLS runs, statistics helpers and the report's header
# and closing lines. Sets $root, the checkout holding this file.
# shellcheck shell=bash
# Its functions set variables for the scripts (SC2034) and read theirs (SC2154).
# shellcheck disable=SC2034,SC2154

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

log() { printf '%s\n' "$*" >&2; }

# check_binary "$@": exactly one argument naming an executable file (a path, or a
# name on PATH); sets $binary to its absolute path. Otherwise exits 2.
check_binary() {
    if [[ $# -ne 1 ]]; then
        echo "usage: $0 BINARY   (e.g. $0 .build/release/assetsync)" >&2
        exit 2
    fi
    local given=$1
    binary=$given
    [[ $binary == */* ]] || binary=$(command -v -- "$binary" || true)
    if [[ -z $binary || ! -x $binary || -d $binary ]]; then
        echo "error: '$given' is not an executable file (build it with 'make build')" >&2
        exit 2
    fi
    binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
    if [[ -z ${EPOCHREALTIME:-} ]]; then
        echo "error: bash ${BASH_VERSION} lacks EPOCHREALTIME; bash 5 or later is needed" >&2
        exit 2
    fi
}

# need_tools TOOL[:PACKAGE]...: each must be on PATH (and /usr/bin/time must be GNU
# time). As root with apt-get, a missing Debian package (rclone, strace, nginx,
# time...; PACKAGE when it is not named as the tool, e.g. aria2c:aria2) is
# installed; otherwise exits 2.
need_tools() {
    local tool missing=() packages=()
    for tool in "$@"; do
        if ! command -v "${tool%%:*}" >/dev/null; then
            missing+=("${tool%%:*}")
            [[ $tool == *:* ]] && packages+=("${tool#*:}") || packages+=("${tool##*/}")
        fi
    done
    if ((${#missing[@]} > 0)); then
        if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
            log "installing missing tools with apt-get: ${packages[*]}"
            if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null 2>&1 \
                || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null 2>&1; }; then
                missing=()
            fi
        fi
        if ((${#missing[@]} > 0)); then
            echo "error: missing: ${missing[*]} (apt-get install ${packages[*]})" >&2
            exit 2
        fi
    fi
    if [[ " $* " == *" /usr/bin/time "* ]] && ! /usr/bin/time -v true 2>/dev/null; then
        echo "error: /usr/bin/time is not GNU time (it lacks -v): apt-get install time" >&2
        exit 2
    fi
}

# bench_out NAME: sets $out to the absolute, existing BENCH_OUT (default bench/out/NAME)
# and $last_err to the file that keeps the last timed command's stderr.
bench_out() {
    out=${BENCH_OUT:-$root/bench/out/$1}
    mkdir -p "$out"
    out=$(cd "$out" && pwd -P)
    last_err=$out/last.err
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on right now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_nginx DOCROOT [DIRECTIVES] [SERVER]: a private nginx (its config, pid and logs
# in a temporary directory) serving DOCROOT on a free 127.0.0.1 port with sendfile
# and 2 workers; DIRECTIVES (such as "autoindex on;", or a log_format and another
# access_log) go into its http block, SERVER (default "root DOCROOT;", such as a
# proxying location) into its server block. Run as root, its workers run as root
# too: as 'nobody' they could not read a checkout under a private (0700) directory
# such as root's home or a mktemp -d. Sets $port, $base (its URL, ending in /),
# $nginx_dir and $access_log; a trap stops it, and any other started, on any
# exit, Ctrl-C included.
nginx_dir=""
nginx_dirs=()
start_nginx() {
    local directives=${2:-} server=${3:-"root $1;"} user_line=""
    nginx_dir=$(mktemp -d)
    nginx_dirs+=("$nginx_dir")
    trap stop_nginx EXIT
    trap 'stop_nginx; exit 130' INT
    trap 'stop_nginx; exit 143' TERM
    port=$(free_port)
    base="http://127.0.0.1:$port/"
    access_log=$nginx_dir/access.log
    [[ $(id -u) == 0 ]] && user_line="user root;"
    cat > "$nginx_dir/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $nginx_dir/nginx.pid;
error_log $nginx_dir/error.log;
events { worker_connections 1024; }
http {
    access_log $access_log;
    sendfile on;
    client_body_temp_path $nginx_dir/tmp; proxy_temp_path $nginx_dir/tmp; fastcgi_temp_path $nginx_dir/tmp;
    uwsgi_temp_path $nginx_dir/tmp; scgi_temp_path $nginx_dir/tmp;
    $directives
    server { listen 127.0.0.1:$port; $server }
}
CONF
    nginx -c "$nginx_dir/nginx.conf"
    local _
    for _ in $(seq 50); do curl -s -o /dev/null "$base" && return 0; sleep 0.1; done
    nginx_failed "does not answer"
}

# make_tls_ca DIR: a CA made for this run (openssl, EC P-256, valid 2 days) and a
# server certificate it signs for 127.0.0.1 and localhost: DIR/ca.pem (give it
# to the clients), DIR/server.pem and DIR/server.key (give them to nginx's
# ssl_certificate and ssl_certificate_key). Exits 1 when openssl fails.
make_tls_ca() {
    local dir=$1
    mkdir -p "$dir"
    {
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj "/CN=assetsync bench CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
            -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" &&
        openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -subj "/CN=127.0.0.1" -keyout "$dir/server.key" -out "$dir/server.csr" &&
        printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature" \
            "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" > "$dir/server.ext" &&
        openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial \
            -days 2 -extfile "$dir/server.ext" -out "$dir/server.pem"
    } >"$dir/openssl.log" 2>&1 || { echo "error: openssl could not make the CA (see $dir/openssl.log)" >&2; exit 1; }
}

# nginx_serves PATH: exits 1 unless nginx serves PATH (relative to its docroot)
# with a success status, as it does not when its workers may not read the file.
nginx_serves() {
    curl -sf -o /dev/null -r 0-0 "$base$1" || nginx_failed "does not serve /$1"
}

nginx_failed() {  # WHAT
    echo "error: nginx on $base $1 (see $nginx_dir/error.log)" >&2
    cat "$nginx_dir/error.log" >&2 || true
    exit 1
}

# stop_nginx: stops every private nginx started (waiting for each master to exit)
# and removes their directories.
stop_nginx() {
    local dir pid _
    for dir in "${nginx_dirs[@]}"; do
        if [[ -f $dir/nginx.pid ]]; then
            pid=$(cat "$dir/nginx.pid")
            if kill "$pid" 2>/dev/null; then
                for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
            fi
        fi
        rm -rf "$dir"
    done
    nginx_dirs=()
    nginx_dir=""
}

# nginx_requests: requests nginx has logged so far.
nginx_requests() { wc -l < "$access_log"; }

# probe_drop_caches: sets $drop_caches to yes when the page cache may be dropped
# (root, not forbidden by a container, DROP_CACHES not 0; dropping it once to
# find out), else to no.
probe_drop_caches() {
    drop_caches=no
    if [[ ${DROP_CACHES:-1} != 0 ]] && { sync; echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
        drop_caches=yes
    fi
}

# drop_page_cache: sync, then drop the page cache if $drop_caches is yes.
drop_page_cache() {
    sync
    if [[ $drop_caches == yes ]]; then echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; fi
}

# timed COMMAND...: runs COMMAND with stdout to /dev/null (to the file
# $timed_stdout when it is set, e.g. `timed_stdout=FILE timed ...`) and stderr to
# $last_err; sets t_us (wall microseconds, measured by the shell: no wrapper
# process), t_end (the clock when it ended, in microseconds) and t_rc.
timed() {
    local start
    t_rc=0
    start=${EPOCHREALTIME/./}
    "$@" >"${timed_stdout:-/dev/null}" 2>"$last_err" || t_rc=$?
    t_end=${EPOCHREALTIME/./}
    t_us=$((t_end - start))
}

# run_timed LIST COMMAND...: `timed`, appending COMMAND's wall microseconds to the array LIST;
# a failed run is logged and counted in $failures.
run_timed() {
    local -n list=$1
    shift
    timed "$@"
    list+=("$t_us")
    ((t_rc == 0)) || { failures=$((failures + 1)); log "failed (exit $t_rc): $* (see $last_err)"; }
}

# timed_v COMMAND...: `timed` under GNU time -v (its report in $out/time-v.txt).
# Sets t_us, t_end and t_rc as `timed` does, t_cpu (µs of user + system CPU of
# the command and its children) and t_rss (kB, the largest resident set of the
# command or of any one child; ERR when GNU time reported none).
timed_v() {
    timed /usr/bin/time -v -o "$out/time-v.txt" "$@"
    t_cpu=$(awk -F': ' '/User time/ { u = $2 } /System time/ { s = $2 } END { printf "%d", (u + s) * 1e6 }' "$out/time-v.txt")
    t_rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$out/time-v.txt")
    num "$t_rss" || t_rss=ERR
}

# timed_sync_v COMMAND...: `timed_v`, then `sync`; also sets t_total (µs, command
# + sync) and t_sync (µs, the sync alone), so a tool that leaves dirty pages
# behind pays for them.
timed_sync_v() {
    timed_v "$@"
    sync
    t_sync=$((${EPOCHREALTIME/./} - t_end))
    t_total=$((t_us + t_sync))
}

# cpu_us FILE: user + system CPU microseconds from GNU time's -f '%U %S' output
# (0 when it holds none).
cpu_us() {
    awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { c = ($1 + $2) * 1e6 } END { printf "%d", c }' "$1"
}

# Statistics over the values of the rounds (microseconds, or kB of RSS; secs,
# median_s and min_s turn microseconds into seconds). A failed run is recorded
# as ERR, and any ERR (or no value at all) makes the statistic, and what uses
# it, ERR.
num() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }
median_of() {
    [[ " $* " == *" ERR "* ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | awk 'NF { v[++n] = $1 } END {
        if (n == 0) { print "ERR"; exit }
        m = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2; printf "%d", m }'
}
min_of() {
    [[ " $* " == *" ERR "* || $# == 0 ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | head -n 1
}
max_of() {
    [[ " $* " == *" ERR "* || $# == 0 ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | tail -n 1
}
# secs MICROSECONDS [DECIMALS]: seconds, with 3 decimals unless told.
secs() { if num "$1"; then awk -v x="$1" -v d="${2:-3}" 'BEGIN { printf "%.*f", d, x / 1e6 }'; else echo ERR; fi; }
median_s() { secs "$(median_of "$@")"; }
min_s() { secs "$(min_of "$@")"; }
all_secs() { local v list=""; for v in "$@"; do list+="$(secs "$v") "; done; echo "${list% }"; }
ratio() { if num "$1" && num "$2"; then awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "ERR" }'; else echo ERR; fi; }
# judge VALUE OP LIMIT (OP one of < <= >= >) → PASS, FAIL, or ERR when VALUE is not a number.
judge() {
    if num "$1"; then
        awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
            ok = (op == "<") ? v < l : (op == "<=") ? v <= l : (op == ">=") ? v >= l : v > l
            print ok ? "PASS" : "FAIL" }'
    else
        echo ERR
    fi
}
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
# count N → "5k", "1M"
short() {
    local n=$1
    if ((n >= 1000000 && n % 1000000 == 0)); then echo "$((n / 1000000))M"
    elif ((n >= 1000 && n % 1000 == 0)); then echo "$((n / 1000))k"
    else echo "$n"; fi
}

# print_header TITLE [LINE...]: the report's first lines (what ran where), the
# LINEs before the date. Needs $binary and $out.
print_header() {
    local title=$1
    shift
    echo "== $title"
    echo "binary:   $binary"
    echo "version:  $("$binary" --version 2>/dev/null | head -n 1 || echo '(--version failed)')"
    echo "commit:   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$root" diff --quiet HEAD -- Sources Package.swift 2>/dev/null || echo ' (+ uncommitted changes in Sources/)') (of the checkout holding this script; the binary may be another build)"
    echo "machine:  $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || uname -m), $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "disk:     $(df -h --output=source,fstype,avail "$out" | tail -n 1 | awk '{ print $1 " (" $2 "), " $3 " free" }')"
    (($# == 0)) || printf '%s\n' "$@"
    echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
}

# shellcheck disable=SC2120  # NOTE is optional
# report_targets [NOTE]: the closing count of $results (PASS, FAIL, or anything
# else: not measured; an empty entry is a column without a target).
report_targets() {
    local r pass=0 fail=0 err=0
    for r in "${results[@]}"; do
        case $r in PASS) pass=$((pass + 1)) ;; FAIL) fail=$((fail + 1)) ;; "") ;; *) err=$((err + 1)) ;; esac
    done
    echo "targets: $pass passed, $fail failed, $err could not be measured${1:+ $1}"
}

# shellcheck disable=SC2120  # OF is optional
# finish [OF]: exits 1 with an error line when $failures runs (OF what) failed, else 0.
finish() {
    if ((failures > 0)); then
        echo "ERROR: $failures run(s)${1:+ $1} failed; see the messages above" >&2
        exit 1
    fi
    exit 0
}
