# The pull benchmark's own part, shared by bench/pull/run.sh and
# bench/pull/sweep.sh (sourced, not run; bench/lib.sh holds the rest): the
# setup, the data and manifests, the reset between timed runs, the timer with
# its sync, and the checks of what a tool wrote.
# shellcheck shell=bash
# Its functions set variables for the scripts that source it.
# shellcheck disable=SC2034

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"

# pull_setup "$@": checks the binary and the tools; sets $binary, $out, $last_err, $drop_caches.
pull_setup() {
    check_binary "$@"
    need_tools python3 nginx curl cmp /usr/bin/time
    bench_out pull
    probe_drop_caches
}

# pull_header TITLE: the report's header, with the tools and the page-cache policy.
pull_header() {
    print_header "$1" "tools:    $(curl --version | head -n 1 | cut -d' ' -f1-3), $(nginx -v 2>&1 | sed 's/.*: //') (loopback, sendfile on, 2 workers)"
    echo "caches:   before every timed run: previous destination deleted, sync, drop_caches=$drop_caches$([[ $drop_caches == yes ]] && echo ' (echo 3 > /proc/sys/vm/drop_caches worked)' || echo ' (not permitted, or DROP_CACHES=0)'), then the case's source files read back into the page cache"
}

# start_pull_nginx: the private nginx serving $out/data, and this run's manifests.
start_pull_nginx() {
    start_nginx "$out/data"
    prepare_data
    nginx_serves single-64M.bin
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
    drop_page_cache
    while read -r f; do cat "$out/data/$f" >/dev/null; done < <(case_files "$case")
    mkdir -p "$dest"
}

# timed_sync COMMAND...: `timed` (stderr to $last_err) under GNU time, then `sync`.
# Sets t_total (µs, command + sync), t_sync (µs, the sync alone), t_cpu (µs of
# user + system CPU of the command and its children) and t_rc.
timed_sync() {
    timed /usr/bin/time -f '%U %S' -o "$out/cpu.txt" "$@"
    sync
    t_sync=$((${EPOCHREALTIME/./} - t_end))
    t_total=$((t_us + t_sync))
    t_cpu=$(cpu_us "$out/cpu.txt")
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
    local tool=$1 case=$2 dest=$3 mode=${4:-} f bad=0 files=()
    mapfile -t files < <(case_files "$case")
    for f in "${files[@]}"; do
        if [[ ! -f $dest/$f ]] || [[ $(stat -c %s "$dest/$f") != $(stat -c %s "$out/data/$f") ]]; then
            log "FAILED: $tool, $case: $dest/$f is missing or has the wrong size"
            bad=1
        fi
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

# case_bytes CASE: the bytes of the case's files.
case_bytes() { local f sum=0; while read -r f; do sum=$((sum + $(stat -c %s "$out/data/$f"))); done < <(case_files "$1"); echo "$sum"; }
# gbps BYTES SECONDS: gigabytes (10^9) per second.
gbps() { if num "$1" && num "$2"; then awk -v bytes="$1" -v s="$2" 'BEGIN { if (s > 0) printf "%.2f", bytes / s / 1e9; else print "-" }'; else echo ERR; fi; }
