# Shared by bench/pull/run.sh and bench/pull/sweep.sh (sourced, not run):
# arguments, prerequisites, the data and manifests, a private nginx on a free
# loopback port (stopped by a trap on any exit), the reset between timed runs,
# the timer, and small statistics helpers.
# shellcheck shell=bash

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)

log() { printf '%s\n' "$*" >&2; }

# pull_setup BINARY: checks the binary and the tools; sets $binary, $out, $drop_caches.
pull_setup() {
    local given=$1
    binary=$given
    [[ $binary == */* ]] || binary=$(command -v -- "$binary" || true)
    if [[ -z $binary || ! -x $binary || -d $binary ]]; then
        echo "error: '$given' is not an executable file (build it with 'make build')" >&2
        exit 2
    fi
    binary=$(cd "$(dirname "$binary")" && pwd)/$(basename "$binary")
    local tool
    for tool in python3 nginx curl cmp /usr/bin/time; do
        if ! command -v "$tool" >/dev/null; then
            echo "error: $tool is missing (make deps installs everything this benchmark needs)" >&2
            exit 2
        fi
    done
    if ! /usr/bin/time -v true 2>/dev/null; then
        echo "error: /usr/bin/time is not GNU time (it lacks -v): apt-get install time" >&2
        exit 2
    fi
    if [[ -z ${EPOCHREALTIME:-} ]]; then
        echo "error: bash ${BASH_VERSION} lacks EPOCHREALTIME; bash 5 or later is needed" >&2
        exit 2
    fi
    out=${BENCH_OUT:-$root/bench/out/pull}
    mkdir -p "$out"
    out=$(cd "$out" && pwd)
    # Can we drop the page cache between runs? (root, and not forbidden by a container)
    drop_caches=no
    if [[ ${DROP_CACHES:-1} != 0 ]] && { sync; echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null; then
        drop_caches=yes
    fi
}

# start_nginx: a private nginx serving $out/data on a free 127.0.0.1 port; sets $port and $base.
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
    nginx_dir=$(mktemp -d)
    trap stop_nginx EXIT
    trap 'stop_nginx; exit 130' INT
    trap 'stop_nginx; exit 143' TERM
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    local user_line=""
    [[ $(id -u) == 0 ]] && user_line="user root;"
    cat > "$nginx_dir/nginx.conf" <<CONF
$user_line
worker_processes 2;
pid $nginx_dir/nginx.pid;
error_log $nginx_dir/error.log;
events { worker_connections 1024; }
http {
    access_log $nginx_dir/access.log;
    sendfile on;
    client_body_temp_path $nginx_dir/tmp; proxy_temp_path $nginx_dir/tmp; fastcgi_temp_path $nginx_dir/tmp;
    uwsgi_temp_path $nginx_dir/tmp; scgi_temp_path $nginx_dir/tmp;
    server { listen 127.0.0.1:$port; root $out/data; }
}
CONF
    nginx -c "$nginx_dir/nginx.conf"
    base="http://127.0.0.1:$port/"
    local _
    for _ in $(seq 50); do curl -s -o /dev/null "$base" && break; sleep 0.1; done
    if ! curl -sf -o /dev/null -r 0-0 "${base}single-64M.bin"; then
        echo "error: nginx on $base does not serve $out/data (see $nginx_dir/error.log)" >&2
        cat "$nginx_dir/error.log" >&2 || true
        exit 1
    fi
}

# prepare_data: the files (made once) and this run's manifests (they carry the port).
prepare_data() {
    python3 "$here/data.py" "$out" "$base"
}

# Files of each case, relative to $out/data (and to a destination).
case_files() {
    case $1 in
        64M) echo single-64M.bin ;;
        4G) echo single-4G.bin ;;
        2G) echo single-2G.bin ;;
        32x64M) local i; for ((i = 0; i < 32; i++)); do printf 'many/part-%02d.bin\n' "$i"; done ;;
    esac
}

# reset DEST CASE: outside any timed region, remove the previous destination,
# flush, drop the page cache if permitted, then read the case's source files
# back so nginx serves them from memory for every tool alike.
reset() {
    local dest=$1 case=$2 f
    rm -rf "$dest"
    sync
    if [[ $drop_caches == yes ]]; then echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; fi
    while read -r f; do cat "$out/data/$f" >/dev/null; done < <(case_files "$case")
    mkdir -p "$dest"
}

# timed COMMAND...: runs COMMAND (stdout and stderr to $out/last.log), then `sync`.
# Sets t_total (µs, command + sync), t_sync (µs, the sync alone), t_cpu (µs of
# user + system CPU of the command and its children, from GNU time) and t_rc.
timed() {
    local start mid end
    t_rc=0
    start=${EPOCHREALTIME/./}
    /usr/bin/time -f '%U %S' -o "$out/cpu.txt" "$@" >"$out/last.log" 2>&1 || t_rc=$?
    mid=${EPOCHREALTIME/./}
    sync
    end=${EPOCHREALTIME/./}
    t_total=$((end - start))
    t_sync=$((end - mid))
    t_cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%d", ($1 + $2) * 1e6 }' "$out/cpu.txt")
    t_cpu=${t_cpu:-0}
}

curl_parallel_config() {  # CASE DEST CONFIG: a curl --config file, one url/output pair per file
    local case=$1 dest=$2 config=$3 f target
    : >"$config"
    while read -r f; do
        if [[ $dest == /dev/null ]]; then
            target=/dev/null
        else
            target=$dest/$f
            mkdir -p "$(dirname "$target")"
        fi
        printf 'url = "%s%s"\noutput = "%s"\n' "$base" "$f" "$target" >>"$config"
    done < <(case_files "$case")
}

# check_dest TOOL CASE DEST [cmp]: every file present at its size; with "cmp",
# one file (rotating by round) compared byte for byte with its source.
# Returns 1 (after a message) when something is wrong.
check_dest() {
    local tool=$1 case=$2 dest=$3 mode=${4:-} f n=0 bad=0 files=()
    mapfile -t files < <(case_files "$case")
    for f in "${files[@]}"; do
        if [[ ! -f $dest/$f ]] || [[ $(stat -c %s "$dest/$f") != $(stat -c %s "$out/data/$f") ]]; then
            log "FAILED: $tool, $case: $dest/$f is missing or has the wrong size"
            bad=1
        fi
        n=$((n + 1))
    done
    if [[ $mode == cmp && $bad == 0 ]]; then
        f=${files[$(( ${round:-1} % ${#files[@]} ))]}
        if ! cmp -s "$dest/$f" "$out/data/$f"; then
            log "FAILED: $tool, $case: $dest/$f differs from its source"
            bad=1
        fi
    fi
    return $bad
}

# Statistics over microsecond values → seconds, 3 decimals. A failed run is
# recorded as ERR, and any ERR makes the statistic (and what uses it) ERR.
num() { [[ $1 =~ ^[0-9]+(\.[0-9]+)?$ ]]; }
median_s() {
    [[ " $* " == *" ERR "* ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END {
        if (NR == 0) { print "-"; exit }
        m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m / 1e6 }'
}
min_s() {
    [[ " $* " == *" ERR "* ]] && { echo ERR; return; }
    printf '%s\n' "$@" | sort -n | head -n 1 | awk '{ printf "%.3f", $1 / 1e6 }'
}
secs() { if num "$1"; then awk -v x="$1" 'BEGIN { printf "%.3f", x / 1e6 }'; else echo ERR; fi; }
ratio() { if num "$1" && num "$2"; then awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; else echo ERR; fi; }
gbps() { if num "$1" && num "$2"; then awk -v bytes="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", bytes / s / 1e9; else print "-" }'; else echo ERR; fi; }
at_most() { if num "$1"; then awk -v v="$1" -v l="$2" 'BEGIN { print (v <= l) ? "PASS" : "FAIL" }'; else echo ERR; fi; }
case_bytes() { local f sum=0; while read -r f; do sum=$((sum + $(stat -c %s "$out/data/$f"))); done < <(case_files "$1"); echo "$sum"; }

print_header() {  # TITLE
    echo "== $1"
    echo "binary:   $binary"
    echo "version:  $("$binary" --version 2>/dev/null | head -n 1 || echo '(--version failed)')"
    echo "commit:   $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown) (of the checkout holding this script; the binary may be another build)"
    echo "machine:  $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo), $(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || uname -m), $(uname -sr)"
    echo "disk:     $(df -h --output=source,fstype,avail "$out" | tail -n 1 | awk '{ print $1 " (" $2 "), " $3 " free" }')"
    echo "tools:    $(curl --version | head -n 1 | cut -d' ' -f1-3), $(nginx -v 2>&1 | sed 's/.*: //') (loopback, sendfile on, 2 workers)"
    echo "date:     $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
    echo "caches:   before every timed run: previous destination deleted, sync, drop_caches=$drop_caches$([[ $drop_caches == yes ]] && echo ' (echo 3 > /proc/sys/vm/drop_caches worked)' || echo ' (not permitted, or DROP_CACHES=0)'), then the case's source files read back into the page cache"
}
