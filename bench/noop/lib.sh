# Shared by bench/noop/run.sh and bench/verify/run.sh (sourced, not run): the
# binary and tool checks, a private nginx on a free loopback port (stopped by a
# trap on any exit), a timer, and small statistics helpers.
# shellcheck shell=bash

noop_lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$noop_lib_dir/../.." && pwd)

log() { printf '%s\n' "$*" >&2; }

# check_binary GIVEN: sets $binary to the absolute path of an executable, or exits 2.
check_binary() {
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

# need_tools TOOL...: each must be on PATH. As root with apt-get, a missing
# Debian package (rclone, strace, nginx, time...) is installed; otherwise exit 2.
need_tools() {
    local tool package missing=()
    for tool in "$@"; do
        command -v "$tool" >/dev/null || missing+=("$tool")
    done
    ((${#missing[@]} == 0)) && return 0
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
        local packages=()
        for tool in "${missing[@]}"; do
            package=${tool##*/}
            packages+=("$package")
        done
        log "installing missing tools with apt-get: ${packages[*]}"
        if DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null 2>&1 \
            || { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >/dev/null 2>&1; }; then
            return 0
        fi
    fi
    echo "error: missing: ${missing[*]} (apt-get install ${missing[*]##*/})" >&2
    exit 2
}

# start_nginx DOCROOT: a private nginx serving DOCROOT (with directory listings,
# which rclone's http backend reads) on a free 127.0.0.1 port. Sets $port,
# $nginx_dir and $access_log; a trap stops it on any exit, Ctrl-C included.
nginx_dir=""
stop_nginx() {
    if [[ -n $nginx_dir ]]; then
        if [[ -f $nginx_dir/nginx.pid ]]; then kill "$(cat "$nginx_dir/nginx.pid")" 2>/dev/null || true; fi
        sleep 0.2
        rm -rf "$nginx_dir"
        nginx_dir=""
    fi
}
start_nginx() {
    local docroot=$1
    nginx_dir=$(mktemp -d)
    trap stop_nginx EXIT
    trap 'stop_nginx; exit 130' INT
    trap 'stop_nginx; exit 143' TERM
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    access_log=$nginx_dir/access.log
    local user_line=""
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
    keepalive_requests 1000000;
    client_body_temp_path $nginx_dir/tmp; proxy_temp_path $nginx_dir/tmp; fastcgi_temp_path $nginx_dir/tmp;
    uwsgi_temp_path $nginx_dir/tmp; scgi_temp_path $nginx_dir/tmp;
    server { listen 127.0.0.1:$port; root $docroot; autoindex on; }
}
CONF
    nginx -c "$nginx_dir/nginx.conf"
    local _
    for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
    if ! curl -sf -o /dev/null "http://127.0.0.1:$port/"; then
        echo "error: nginx on 127.0.0.1:$port does not answer (see $nginx_dir/error.log)" >&2
        cat "$nginx_dir/error.log" >&2 || true
        exit 1
    fi
}

# log_lines: requests nginx has logged so far.
log_lines() { wc -l < "$access_log"; }

# timed COMMAND...: runs COMMAND with stdout to /dev/null and stderr to
# $last_err; sets t_us (wall microseconds, measured by the shell: no wrapper
# process) and t_rc.
timed() {
    local start end
    t_rc=0
    start=${EPOCHREALTIME/./}
    "$@" >/dev/null 2>"$last_err" || t_rc=$?
    end=${EPOCHREALTIME/./}
    t_us=$((end - start))
}

# Statistics over microsecond values (ERR marks a failed run and poisons them).
num() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }
median_us() {
    [[ " $* " == *" ERR "* ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "ERR"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%d", m }'
}
min_us() {
    [[ " $* " == *" ERR "* ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | head -n 1
}
secs() { if num "$1"; then awk -v x="$1" 'BEGIN { printf "%.3f", x / 1e6 }'; else echo ERR; fi; }
all_secs() { local v list=""; for v in "$@"; do list+="$(secs "$v") "; done; echo "${list% }"; }
ratio() { if num "$1" && num "$2"; then awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "ERR" }'; else echo ERR; fi; }
at_most() { if num "$1"; then awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "PASS" : "FAIL" }'; else echo ERR; fi; }
at_least() { if num "$1"; then awk -v v="$1" -v l="$2" 'BEGIN { print (v >= l) ? "PASS" : "FAIL" }'; else echo ERR; fi; }
mb() { awk -v b="$1" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
# count N → "5k", "100k"
short() { local n=$1; if ((n >= 1000 && n % 1000 == 0)); then echo "$((n / 1000))k"; else echo "$n"; fi; }

print_header() {  # TITLE
    echo "== $1"
    echo "binary:   $binary"
    echo "version:  $("$binary" --version 2>/dev/null | head -n 1 || echo '(--version failed)')"
    echo "commit:   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown) (of the checkout holding this script; the binary may be another build)"
    echo "machine:  $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || uname -m), $(uname -sr), load $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "disk:     $(df -h --output=source,fstype,avail "$out" | tail -n 1 | awk '{ print $1 " (" $2 "), " $3 " free" }')"
    echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
}
