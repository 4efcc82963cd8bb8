#!/usr/bin/env bash
# The peers benchmark (issue 10, items 1 and 7; issue 26, items 1 and 2):
# assetsync against curl, aria2c, rclone and wget on the same sets (random
# files, and a copy of a real tree), from a private loopback nginx over plain
# HTTP and over TLS (HTTP/1.1 and HTTP/2), every output checked by its CRC-32,
# beside the physical limits and the disk's own measured in the same run, with
# where assetsync's time went; then the scaling curves. Writes a Markdown
# report (docs/performance.md) and prints it. See bench/README.md.
#
#   bench/peers/run.sh BINARY
#
# Environment (all optional):
#   PARTS="peers scaling"        which parts to run
#   ROUNDS=3                     interleaved rounds (tools rotate each round)
#   C_ROUNDS=(2 x ROUNDS)        rounds of set C, whose file creation is noisy here
#   SETS="A B C D"               which sets the peers part runs
#   SET_A=1x2G SET_B=32x64M SET_C=5000x64K   COUNTxSIZE of each set (K, M, G = KiB, MiB, GiB)
#   SET_D_DIR=/opt/swift         set D: the regular files of this tree, copied once
#   PROTOCOLS="http https h2"    http: plain; https: TLS, HTTP/1.1 only;
#                                h2: TLS offering HTTP/2 (ALPN; a client without it uses 1.1)
#   D_PROTOCOLS=(first of PROTOCOLS)   which of PROTOCOLS set D runs over (3.5 GB a run: one by default)
#   REFS=1                       0 leaves out the physical limits (curl > /dev/null, the disk's writes)
#   DROP_CACHES=1                0 never drops the page cache between runs
#   PLAN_SIZES="1000 10000 100000 1000000"   scaling: plan over manifests of these sizes
#   NOOP_SIZES="1000 10000 100000"           scaling: no-op pulls over trees of these sizes
#   JOBS_LIST="1 2 4 8 16"       scaling: --jobs values for sets B and C
#   JOBS_SETS="B C"  JOBS_PROTOCOLS=(PROTOCOLS)   (an empty list skips that piece)
#   REPORT=docs/performance.md   where the Markdown report goes
#   BENCH_OUT=bench/out/peers    data (made once), inputs, destinations, logs
# A smoke run (under a minute; set D a tree of 275 files, 3 MB):
#   SET_A=1x16M SET_B=8x2M SET_C=200x64K SET_D_DIR=/opt/swift/usr/share ROUNDS=1 PLAN_SIZES=1000 \
#   NOOP_SIZES=1000 JOBS_LIST="1 8" REPORT=bench/out/peers/performance.md bench/peers/run.sh .build/release/assetsync
#
# Exits 0 whatever the figures, 1 when a run failed or a tool's output was
# wrong, 2 when the binary or a tool is missing.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/lib.sh
source "$here/../lib.sh"
check_binary "$@"
need_tools python3 nginx curl aria2c:aria2 rclone wget openssl find /usr/bin/time
bench_out peers
probe_drop_caches

rounds=${ROUNDS:-3}
c_rounds=${C_ROUNDS:-$((rounds * 2))}
read -r -a parts <<<"${PARTS:-peers scaling}"
read -r -a sets <<<"${SETS:-A B C D}"
read -r -a protocols <<<"${PROTOCOLS:-http https h2}"
read -r -a d_protocols <<<"${D_PROTOCOLS:-${protocols[0]}}"
read -r -a plan_sizes <<<"${PLAN_SIZES-1000 10000 100000 1000000}"
read -r -a noop_sizes <<<"${NOOP_SIZES-1000 10000 100000}"
read -r -a jobs_list <<<"${JOBS_LIST-1 2 4 8 16}"
read -r -a jobs_sets <<<"${JOBS_SETS-B C}"
read -r -a jobs_protocols <<<"${JOBS_PROTOCOLS:-${protocols[*]}}"
refs=${REFS:-1}
report=${REPORT:-$root/docs/performance.md}
declare -A spec=([A]=${SET_A:-1x2G} [B]=${SET_B:-32x64M} [C]=${SET_C:-5000x64K})
peers=(curl aria2c rclone wget)
failures=0
results=()

has() {  # WORD LIST...: whether WORD is one of LIST
    local word=$1 item
    shift
    for item in "$@"; do [[ $item == "$word" ]] && return 0; done
    return 1
}
for p in "${protocols[@]}" "${jobs_protocols[@]}"; do
    has "$p" http https h2 || { echo "error: unknown protocol '$p' (http, https, h2)" >&2; exit 2; }
done
for p in "${d_protocols[@]}"; do
    has "$p" "${protocols[@]}" || { echo "error: '$p' in D_PROTOCOLS is not one of PROTOCOLS (${protocols[*]})" >&2; exit 2; }
done
for part in "${parts[@]}"; do
    has "$part" peers scaling || { echo "error: unknown part '$part' in PARTS (peers, scaling)" >&2; exit 2; }
done

# ---------------------------------------------------------------- data (made once)
# bytes_of 64K → 65536
bytes_of() {
    local n=${1%[KMG]}
    case $1 in *K) echo $((n << 10)) ;; *M) echo $((n << 20)) ;; *G) echo $((n << 30)) ;; *) echo "$n" ;; esac
}
declare -A count=() size=() name=()
for s in A B C; do
    [[ ${spec[$s]} =~ ^([0-9]+)x([0-9]+[KMG]?)$ ]] || { echo "error: SET_$s='${spec[$s]}' is not COUNTxSIZE (e.g. 32x64M)" >&2; exit 2; }
    count[$s]=${BASH_REMATCH[1]}
    size[$s]=$(bytes_of "${BASH_REMATCH[2]}")
    name[$s]=$s-${spec[$s]}
done
# Set D is a copy of a tree, named after the tree's path (/opt/swift: D-opt-swift), so
# that another SET_D_DIR is another copy.
if has D "${sets[@]}"; then
    set_d_dir=$(realpath -e -- "${SET_D_DIR:-/opt/swift}" 2>/dev/null) && [[ -d $set_d_dir ]] \
        || { echo "error: SET_D_DIR='${SET_D_DIR:-/opt/swift}' is not a directory" >&2; exit 2; }
    name[D]=D-$(tr / - <<<"${set_d_dir#/}")
fi
docroot=$out/data
mkdir -p "$docroot" "$out/lists"
list_of() { echo "$out/lists/${name[$1]}.list"; }

# ensure_set SET: the set's files and list, made once and reused while newer than data.py.
ensure_set() {
    local s=$1 list
    list=$(list_of "$s")
    if [[ ! -s $list || $here/data.py -nt $list ]]; then
        rm -rf "${docroot:?}/${name[$s]}" "$list"
        if [[ $s == D ]]; then
            log "copying set D: the regular files of $set_d_dir into $docroot/${name[$s]}/ (once)..."
            python3 "$here/data.py" copy "$set_d_dir" "$docroot/${name[$s]}" "$list"
        else
            log "generating set $s: ${count[$s]} x ${size[$s]} bytes of random data in $docroot/${name[$s]}/ (once)..."
            python3 "$here/data.py" make "$docroot/${name[$s]}" "${count[$s]}" "${size[$s]}" "$list"
        fi
    fi
}
rounds_of() { if [[ $1 == C ]]; then echo "$c_rounds"; else echo "$rounds"; fi; }
# runs_over SET PROTOCOL: whether the set is pulled over the protocol (D only over D_PROTOCOLS).
runs_over() {
    if [[ $1 == D ]]; then has "$2" "${d_protocols[@]}"; else has "$2" "${protocols[@]}"; fi
}
# disk_protocol SET: the protocol in whose rounds the set's disk limits are measured
# (they do not depend on it): the first the set runs over.
disk_protocol() { if [[ $1 == D ]]; then echo "${d_protocols[0]}"; else echo "${protocols[0]}"; fi; }
# (%.0f: mawk's %d stops at 2^31 - 1)
set_bytes() { awk -F'\t' '{ b += $2 } END { printf "%.0f", b }' "$(list_of "$1")"; }
set_title() {
    if [[ $1 == D ]]; then
        echo "D: $(printf "%'d" "$(wc -l <"$(list_of D)")") files, $(numfmt --to=iec-i --suffix=B "$(set_bytes D)") ($set_d_dir)"
    else
        echo "$1: $(printf "%'d" "${count[$1]}") x $(numfmt --to=iec-i --suffix=B "${size[$1]}")"
    fi
}

# ---------------------------------------------------------------- nginx: plain, TLS (HTTP/1.1), TLS with HTTP/2
tls=$out/tls
ca=$tls/ca.pem
needs_tls=0
for p in "${protocols[@]}" "${jobs_protocols[@]}"; do [[ $p == http ]] || needs_tls=1; done
protocol_log=$out/protocols.log
: >"$protocol_log"
# `index` names a file no set holds: a directory with an index.html (set D's docc/render/)
# is then listed like any other, where nginx would serve the page, whose links lead
# elsewhere, to rclone's http backend, which copies what the listings show (48 files of
# /opt/swift were skipped so). Dot files stay out of nginx's listings whatever is set:
# set D leaves them out (data.py copy).
directives="autoindex on; index .no-index-file; keepalive_requests 1000000; log_format peers '\$server_protocol'; access_log $protocol_log peers;"
https_port="" h2_port=""
if ((needs_tls)); then
    rm -rf "$tls"
    make_tls_ca "$tls"
    https_port=$(free_port)
    h2_port=$(free_port)
    while [[ $h2_port == "$https_port" ]]; do h2_port=$(free_port); done
    certs="root $docroot; ssl_certificate $tls/server.pem; ssl_certificate_key $tls/server.key;"
    directives+=" server { listen 127.0.0.1:$https_port ssl; $certs }"
    directives+=" server { listen 127.0.0.1:$h2_port ssl http2; $certs }"
fi
chmod -R a+rX "$out"
start_nginx "$docroot" "$directives"
export RCLONE_CONFIG=$out/rclone.conf  # empty: the remote is given on the command line
: >"$RCLONE_CONFIG"

# base_of PROTOCOL: the URL of the docroot (ending in /) over PROTOCOL.
base_of() {
    case $1 in
        http) echo "$base" ;;
        https) echo "https://127.0.0.1:$https_port/" ;;
        h2) echo "https://127.0.0.1:$h2_port/" ;;
    esac
}
protocol_title() {
    case $1 in
        http) echo "HTTP/1.1 over plain TCP" ;;
        https) echo "HTTPS, HTTP/1.1 only (TLS port without http2)" ;;
        h2) echo "HTTPS offering HTTP/2 (ALPN h2, http/1.1)" ;;
    esac
}
for p in "${protocols[@]}" "${jobs_protocols[@]}"; do
    trust=()
    [[ $p == http ]] || trust=(--cacert "$ca")
    curl -sf -o /dev/null "${trust[@]}" "$(base_of "$p")" || nginx_failed "does not answer over $p"
done

dest=$out/dest
inputs_of() { echo "$out/in/$1-$2"; }  # PROTOCOL SET: that run's input files (data.py inputs)
write_inputs() {  # PROTOCOL SET
    python3 "$here/data.py" inputs "$(list_of "$2")" "$(base_of "$1")${name[$2]}/" "$dest" "$(inputs_of "$1" "$2")"
}

# reset SET: outside any timed region, the previous destination removed, sync, the
# page cache dropped if permitted, the set's source read back so that nginx serves
# it from memory, and an empty destination. A destination of set C is set aside
# (renamed) instead, and removed by clear_kept at the end of a part: ext4 skips
# inodes freed within the last minute or more when it allocates new ones
# (recently_deleted() in fs/ext4/ialloc.c), so removing 5,000 files just before a
# run made that run's creates cost several times more (perf: half of all CPU in
# recently_deleted and find_get_block_common), for every tool alike, and that
# cost swamped the differences being measured.
kept=$out/kept
last_set=""
reset() {
    if [[ $last_set == C && -d $dest ]]; then
        mkdir -p "$kept"
        mv "$dest" "$(mktemp -u "$kept/dest.XXXXXX")"
    else
        rm -rf "$dest"
    fi
    last_set=$1
    drop_page_cache
    find "$docroot/${name[$1]}" -type f -exec cat {} + >/dev/null
    mkdir -p "$dest"
}

clear_kept() { rm -rf "$kept" "$dest"; last_set=""; }

# The interpreter itself, not pyenv's shim (a shell script) that `python3` may be:
# disk.py's runs are timed.
python=$(python3 -c 'import sys; print(sys.executable)')
# command_of TOOL SET PROTOCOL: sets cmd, the command line of one run.
command_of() {
    local tool=$1 s=$2 p=$3 in
    in=$(inputs_of "$p" "$s")
    local tls_on=0
    [[ $p == http ]] || tls_on=1
    case $tool in
        assetsync)
            cmd=("$binary" pull "$in/manifest.xml" --dest "$dest")
            ((tls_on)) && cmd+=(--cacert "$ca") ;;
        curl | curl-null)
            cmd=(curl -sSf --create-dirs --config "$in/$tool.cfg")
            [[ $s == A ]] || cmd+=(-Z --parallel-max 8)
            ((tls_on)) && cmd+=(--cacert "$ca") ;;
        aria2c)
            cmd=(aria2c -q -j 8 -d "$dest" -i "$in/aria2.txt" --allow-overwrite=true --auto-file-renaming=false)
            [[ $s == A ]] && cmd+=(-x 4 -s 4)
            ((tls_on)) && cmd+=("--ca-certificate=$ca") ;;
        rclone)
            cmd=(rclone copy --http-url "$(base_of "$p")${name[$s]}/" :http: "$dest" --transfers 8)
            [[ $s == A ]] && cmd+=(--multi-thread-streams 4)
            ((tls_on)) && cmd+=(--ca-cert "$ca") ;;
        wget)
            cmd=(wget -q -x -nH --cut-dirs=1 -P "$dest" -i "$in/wget.txt")
            ((tls_on)) && cmd+=("--ca-certificate=$ca") ;;
        disk-sync | disk-direct)
            local mode=fdatasync
            [[ $tool == disk-direct ]] && mode=direct
            cmd=("$python" "$here/disk.py" "$mode" "$(list_of "$s")" "$docroot/${name[$s]}" "$dest") ;;
    esac
    return 0
}
tool_title() {
    case $1 in
        curl-null) echo "curl → /dev/null" ;;
        disk-sync) echo "write + fdatasync (bs 128k)" ;;
        disk-direct) echo "O_DIRECT write (bs 1M)" ;;
        *) echo "$1" ;;
    esac
}

# Results of every run, keyed "PROTOCOL SET TOOL" (the disk's writes: protocol
# "disk"): lists over the rounds of wall µs (ERR: a failed run; FAIL: a wrong
# output), CPU µs and peak RSS kB; what was wrong with a wrong output (the last
# one, data.py check's count); and the HTTP versions nginx logged for each tool.
declare -A wall=() cpu=() rss=() wrong=() wire=()

# assetsync's --json output of each run, for the breakdown of its time.
json_logs=$out/json
json_log_of() { echo "$json_logs/$1-$2-round$3.ndjson"; }  # PROTOCOL SET ROUND

# measure TOOL SET PROTOCOL [KEY]: one timed run into a fresh destination, then
# the check of every file it wrote (CRC-32 against the list, and no file more).
measure() {
    local tool=$1 s=$2 p=$3 key=${4:-"$3 $2 $1"} before status stdout=/dev/null
    reset "$s"
    command_of "$tool" "$s" "$p"
    if [[ $tool == assetsync ]]; then
        # One line per file and the summary with its counters: to a file, not a
        # terminal or pipe that could hold the pull up.
        cmd+=(--json)
        stdout=$(json_log_of "$p" "$s" "$round")
    fi
    before=$(wc -l <"$protocol_log")
    timed_stdout=$stdout timed_sync_v "${cmd[@]}"
    [[ $tool == disk-* ]] || wire["$p $tool"]=$(tail -n "+$((before + 1))" "$protocol_log" | sort -u | paste -sd/)
    status=$t_total
    if ((t_rc != 0)); then
        log "FAILED: $tool, set $s over $p, round $round: exit status $t_rc"
        tail -n 5 "$last_err" >&2 || true
        status=ERR
    elif [[ $tool != curl-null ]] && ! python3 "$here/data.py" check "$(list_of "$s")" "$dest" 2>"$out/check.err"; then
        log "FAILED: $tool, set $s over $p, round $round: WRONG OUTPUT"
        sed 's/^/    /' "$out/check.err" >&2
        status=FAIL
        wrong[$key]=$(tail -n 1 "$out/check.err")
    fi
    [[ $status == "$t_total" ]] || { failures=$((failures + 1)); status=" $status"; }
    log "  round $round, $p, set $s: $tool $(secs "$t_total") s (sync $(secs "$t_sync") s, CPU $(secs "$t_cpu" 2) s, RSS $((t_rss / 1024)) MiB)${status//[0-9]/}"
    wall[$key]+="${status# } "
    cpu[$key]+="$t_cpu "
    rss[$key]+="$t_rss "
}

# ---------------------------------------------------------------- statistics for the report
values() { echo "${wall[$1]:-}"; }
# med KEY: the median wall µs, or ERR (no runs, a failed run, a wrong output).
med() {
    local -a v
    read -r -a v <<<"$(values "$1")"
    ((${#v[@]})) || { echo ERR; return; }
    [[ " ${v[*]} " == *" FAIL "* ]] && { echo ERR; return; }
    median_of "${v[@]}"
}
# spread KEY: "median (min–max)" in seconds, or what went wrong.
spread() {
    local -a v
    read -r -a v <<<"$(values "$1")"
    if ((${#v[@]} == 0)); then echo "-"
    elif [[ " ${v[*]} " == *" FAIL "* ]]; then echo "**FAIL: wrong output (${wrong[$1]})**"
    elif [[ " ${v[*]} " == *" ERR "* ]]; then echo "**ERR: run failed**"
    else echo "$(median_s "${v[@]}") ($(min_s "${v[@]}")–$(secs "$(max_of "${v[@]}")"))"
    fi
}
cpu_rss() {  # KEY: "CPU s (median) / peak RSS MiB (max)"
    local -a c r
    read -r -a c <<<"${cpu[$1]:-}"
    read -r -a r <<<"${rss[$1]:-}"
    ((${#c[@]})) || { echo "-"; return; }
    local peak
    peak=$(max_of "${r[@]}")
    num "$peak" && peak=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
    echo "$(median_s "${c[@]}" | cut -c1-5) s / $peak MiB"
}
# limit P S: µs of the physical limit, max(curl → /dev/null, write + fdatasync), or ERR.
limit() {
    local a b
    a=$(med "$1 $2 curl-null")
    b=$(med "disk $2 disk-sync")
    if num "$a" && num "$b"; then echo $((a > b ? a : b)); else echo ERR; fi
}
# best_peer P S: "TOOL µs" of the peer with the smallest median.
best_peer() {
    local t m best="" best_m=""
    for t in "${peers[@]}"; do
        m=$(med "$1 $2 $t")
        num "$m" || continue
        if [[ -z $best_m ]] || ((m < best_m)); then best=$t best_m=$m; fi
    done
    echo "${best:-none} ${best_m:-ERR}"
}

# tool_table PROTOCOL CELL: a Markdown table with a row per set run and a column per tool, each
# cell printed by `CELL PROTOCOL SET TOOL`.
tool_table() {
    local protocol=$1 cell=$2 line rule set tool
    line="| set |"
    rule="|---|"
    for tool in assetsync "${peers[@]}"; do line+=" $tool |"; rule+="---|"; done
    echo "$line"
    echo "$rule"
    for set in "${ran[@]}"; do
        line="| $set |"
        for tool in assetsync "${peers[@]}"; do line+=" $("$cell" "$protocol" "$set" "$tool") |"; done
        echo "$line"
    done
}

# cpu_rss_cell PROTOCOL SET TOOL: cpu_rss of that run, as a tool_table cell.
cpu_rss_cell() { cpu_rss "$1 $2 $3"; }

# disk_share P S TOOL: the tool's share of the disk limit, as a percent: the
# median of the set's O_DIRECT write / the tool's median wall time (or ERR).
disk_share() {
    local d t
    d=$(med "disk $2 disk-direct")
    t=$(med "$1 $2 $3")
    if num "$d" && num "$t"; then awk -v d="$d" -v t="$t" 'BEGIN { printf "%.1f%%", 100 * d / t }'; else echo ERR; fi
}

# The report as it is written, copied to $report at the end: a name of its own, for
# REPORT is often $out/performance.md (cp of a file onto itself fails).
md=$out/report-draft.md

# ---------------------------------------------------------------- part 1: the peers
peers_part() {
    local s p t i n
    for s in "${sets[@]}"; do
        has "$s" A B C D || { echo "error: unknown set '$s' in SETS (A, B, C, D)" >&2; exit 2; }
        ensure_set "$s"
    done
    chmod -R a+rX "$docroot"
    for p in "${protocols[@]}"; do
        for s in "${sets[@]}"; do
            if runs_over "$s" "$p"; then write_inputs "$p" "$s"; fi
        done
    done
    rm -rf "$json_logs"
    mkdir -p "$json_logs"

    local last=$rounds
    ((c_rounds <= last)) || last=$c_rounds
    for ((round = 1; round <= last; round++)); do
        for p in "${protocols[@]}"; do
            for s in "${sets[@]}"; do
                runs_over "$s" "$p" || continue
                ((round <= $(rounds_of "$s"))) || continue
                local tools=(assetsync "${peers[@]}")
                if [[ $refs != 0 ]]; then
                    tools+=(curl-null)
                    # The disk's limits do not depend on the protocol: measured with one.
                    [[ $p == "$(disk_protocol "$s")" ]] && tools+=(disk-sync disk-direct)
                fi
                n=${#tools[@]}
                log "round $round/$(rounds_of "$s"), $p, set $s"
                for ((i = 0; i < n; i++)); do
                    t=${tools[$(((i + round - 1) % n))]}
                    if [[ $t == disk-* ]]; then measure "$t" "$s" "$p" "disk $s $t"; else measure "$t" "$s" "$p"; fi
                done
            done
        done
    done
    clear_kept

    {
        echo "## Peers: wall time including a final \`sync\`"
        echo
        echo "Seconds, median (min–max) of $rounds interleaved round(s) (set C: $c_rounds); a fresh destination each run, the"
        echo "source in the page cache; every output checked by CRC-32, and for files it should not hold (a wrong one is a **FAIL**,"
        echo "with what was wrong). Set C's destinations are set aside and removed after the part, not just before the next run:"
        echo "ext4 skips inodes freed in the last minute or so when it allocates (\`recently_deleted\`), which made every tool's"
        echo "creates several times slower."
        if has D "${sets[@]}"; then
            echo "Set D is a real tree: the regular files of \`$set_d_dir\` (symlinks, other non-files and dot files, which nginx"
            echo "never lists, left out), pulled over ${d_protocols[*]} only (\`D_PROTOCOLS\`)."
        fi
        echo "Limit (issue 10; sets A and B) = max(curl → /dev/null, write + fdatasync): the network + nginx, or the disk."
        echo "Disk limit (issue 26) = the O_DIRECT write of the set's files to the same file system; a tool's share of it is"
        echo "that write's median time / the tool's (100%: as fast as the disk takes the bytes)."
        echo
        echo "Commands: \`assetsync pull MANIFEST --dest DIR --json [--cacert CA]\` (stdout to a file);"
        echo "\`curl -sSf --create-dirs --config FILE\` (url/output pairs; \`-Z --parallel-max 8\` for every set but A);"
        echo "\`aria2c -j 8 -i FILE\` (\`-x 4 -s 4\` for A); \`rclone copy --http-url URL :http: DIR --transfers 8\`"
        echo "(\`--multi-thread-streams 4\` for A); \`wget -x -nH --cut-dirs=1 -i FILE\`; the disk's writes (\`bench/peers/disk.py\`,"
        echo "one process) from the source in the page cache to the same file system, file after file, as \`dd bs=128k"
        echo "conv=fdatasync\` and as \`dd bs=1M oflag=direct\` do (each file's last block, shorter than 1 MiB, through the page"
        echo "cache, as dd does: a set of small files is then its creates, buffered writes and the final sync)."
        for p in "${protocols[@]}"; do
            local ran=()
            for s in "${sets[@]}"; do
                if runs_over "$s" "$p"; then ran+=("$s"); fi
            done
            ((${#ran[@]})) || continue
            echo
            echo "### $p: $(protocol_title "$p")"
            echo
            local cols=(assetsync "${peers[@]}")
            [[ $refs != 0 ]] && cols+=(curl-null disk-sync disk-direct)
            local line="| set |" rule="|---|"
            for t in "${cols[@]}"; do line+=" $(tool_title "$t") |"; rule+="---|"; done
            [[ $refs != 0 ]] && { line+=" limit |"; rule+="---|"; }
            echo "$line"
            echo "$rule"
            for s in "${ran[@]}"; do
                line="| $(set_title "$s") |"
                for t in "${cols[@]}"; do
                    if [[ $t == disk-* ]]; then line+=" $(spread "disk $s $t") |"; else line+=" $(spread "$p $s $t") |"; fi
                done
                if [[ $refs != 0 ]]; then
                    if [[ $s == [AB] ]]; then line+=" $(secs "$(limit "$p" "$s")") |"; else line+=" - |"; fi
                fi
                echo "$line"
            done
            line="On the wire (nginx's log):"
            for t in assetsync "${peers[@]}"; do line+=" $t ${wire["$p $t"]:-?};"; done
            echo
            echo "${line%;}."
            echo
            echo "Ratios of the medians (assetsync / peer; below 1: assetsync is faster), the share of the physical limit (limit / assetsync)"
            echo "and of the disk limit (O_DIRECT write / assetsync):"
            echo
            line="| set |"
            rule="|---|"
            for t in "${peers[@]}"; do line+=" / $t |"; rule+="---|"; done
            echo "$line / best peer | share of limit | share of the disk limit |"
            echo "$rule---|---|---|"
            for s in "${ran[@]}"; do
                local as bp bm
                as=$(med "$p $s assetsync")
                read -r bp bm <<<"$(best_peer "$p" "$s")"
                line="| $s |"
                for t in "${peers[@]}"; do line+=" $(ratio "$as" "$(med "$p $s $t")") |"; done
                line+=" $(ratio "$as" "$bm") ($bp) |"
                if [[ $s == [AB] && $refs != 0 ]]; then line+=" $(ratio "$(limit "$p" "$s")" "$as") |"; else line+=" - |"; fi
                if [[ $refs != 0 ]]; then line+=" $(disk_share "$p" "$s" assetsync) |"; else line+=" - |"; fi
                echo "$line"
            done
            if [[ $refs != 0 ]]; then
                echo
                echo "Every tool's share of the disk limit (the set's O_DIRECT write / the tool's wall time, medians):"
                echo
                tool_table "$p" disk_share
            fi
            echo
            echo "CPU seconds (user + system, median) / peak RSS (largest of the rounds), from GNU time:"
            echo
            tool_table "$p" cpu_rss_cell
            if has C "${ran[@]}"; then
                echo
                echo "Set C round by round (file creation is noisy here): assetsync / peer in each round, and the spread:"
                echo
                line="| peer |"
                rule="|---|"
                for ((round = 1; round <= c_rounds; round++)); do line+=" round $round |"; rule+="---|"; done
                echo "$line median (min–max) |"
                echo "$rule---|"
                local -a a_runs
                read -r -a a_runs <<<"$(values "$p C assetsync")"
                for t in "${peers[@]}" best; do
                    local -a t_runs r_list=()
                    [[ $t == best ]] || read -r -a t_runs <<<"$(values "$p C $t")"
                    line="| $([[ $t == best ]] && echo "best peer of the round" || echo "$t") |"
                    for ((round = 1; round <= c_rounds; round++)); do
                        local other=ERR r
                        if [[ $t == best ]]; then
                            local u
                            for u in "${peers[@]}"; do
                                local -a u_runs
                                read -r -a u_runs <<<"$(values "$p C $u")"
                                local run=${u_runs[$((round - 1))]:-ERR}
                                num "$run" && { [[ $other == ERR ]] || ((run < other)); } && other=$run
                            done
                        else
                            other=${t_runs[$((round - 1))]:-ERR}
                        fi
                        r=$(ratio "${a_runs[$((round - 1))]:-ERR}" "$other")
                        line+=" $r |"
                        num "$r" && r_list+=("$(awk -v r="$r" 'BEGIN { printf "%d", r * 1000 }')")
                    done
                    if ((${#r_list[@]})); then
                        line+=" $(awk -v m="$(median_of "${r_list[@]}")" -v a="$(min_of "${r_list[@]}")" -v b="$(max_of "${r_list[@]}")" \
                            'BEGIN { printf "%.2f (%.2f–%.2f)", m / 1000, a / 1000, b / 1000 }') |"
                    else
                        line+=" ERR |"
                    fi
                    echo "$line"
                done
            fi
            echo
            echo "Where assetsync's time went, set by set: the counters (\`steps_ms\`, milliseconds) of its \`--json\` summary in the"
            echo "run of the median wall time, each also as a share of that run's wall time:"
            echo
            for s in "${ran[@]}"; do
                local -a runs
                read -r -a runs <<<"$(values "$p $s assetsync")"
                for i in "${!runs[@]}"; do
                    printf '%s\t%s\t%s\n' "$(set_title "$s")" "${runs[$i]}" "$(json_log_of "$p" "$s" $((i + 1)))"
                done
            done | python3 "$here/steps.py"
        done

        echo
        echo "## Targets (issues 10 and 26; ratios of medians from this run)"
        echo
        echo "| protocol | target | issue | measured | result |"
        echo "|---|---|---|---|---|"
        local verdict as
        target_row() {  # PROTOCOL TEXT ISSUES VALUE OP LIMIT (a VALUE in percent is judged without its % sign)
            verdict=$(judge "${4%\%}" "$5" "$6")
            results+=("$verdict")
            echo "| $1 | $2 | $3 | $4 | $verdict |"
        }
        for p in "${protocols[@]}"; do
            for s in "${sets[@]}"; do
                runs_over "$s" "$p" || continue
                as=$(med "$p $s assetsync")
                case $s in
                    A | B)
                        local which="curl"
                        [[ $s == B ]] && which="curl -Z8"
                        target_row "$p" "$s: assetsync ≤ 0.67 × $which" 10 "$(ratio "$as" "$(med "$p $s curl")")" '<=' 0.67
                        target_row "$p" "$s: assetsync < rclone$([[ $s == A ]] && echo ' (4 streams)')" 10 "$(ratio "$as" "$(med "$p $s rclone")")" '<' 1
                        if [[ $refs != 0 ]]; then
                            target_row "$p" "$s: ≥ 60% of the physical limit (limit / assetsync)" 10 "$(ratio "$(limit "$p" "$s")" "$as")" '>=' 0.6
                        fi ;;
                    C)
                        local bp bm
                        read -r bp bm <<<"$(best_peer "$p" C)"
                        # Issue 26: 0.67 over plain HTTP (issue 10's bar), 0.8 over TLS (https, and h2 with it).
                        target_row "$p" "C: assetsync ≤ 0.67 × the best peer ($bp)" "$([[ $p == http ]] && echo "10, 26" || echo 10)" \
                            "$(ratio "$as" "$bm")" '<=' 0.67
                        [[ $p == http ]] || target_row "$p" "C: assetsync ≤ 0.8 × the best peer ($bp)" 26 "$(ratio "$as" "$bm")" '<=' 0.8 ;;
                    D)
                        target_row "$p" "D: assetsync < rclone" 26 "$(ratio "$as" "$(med "$p D rclone")")" '<' 1
                        target_row "$p" "D: assetsync ≤ 0.8 × curl -Z8" 26 "$(ratio "$as" "$(med "$p D curl")")" '<=' 0.8 ;;
                esac
                if [[ $s != C && $refs != 0 ]]; then
                    target_row "$p" "$s: ≥ 90% of the disk limit (O_DIRECT write / assetsync)" 26 "$(disk_share "$p" "$s" assetsync)" '>=' 90
                fi
                local -a r
                read -r -a r <<<"${rss["$p $s assetsync"]:-ERR}"
                local peak
                peak=$(max_of "${r[@]}")
                num "$peak" && peak=$(awk -v k="$peak" 'BEGIN { printf "%.1f", k / 1024 }')
                target_row "$p" "$s: peak RSS ≤ 32 MiB" "$([[ $s == [AB] ]] && echo "10, 26" || echo 26)" "$peak" '<=' 32
            done
        done
        echo
        echo "$(report_targets) (ERR: not measured, a run failed or an output was wrong)."
    } >>"$md"
}

# ---------------------------------------------------------------- part 2: scaling curves
scaling_part() {
    local sc=$out/scaling n i j s p
    mkdir -p "$sc"
    echo >>"$md"
    echo "## Scaling curves (issue 10 item 7; $rounds interleaved round(s))" >>"$md"

    # Plan: empty destination, manifests of N entries (bench/manifest/generate.py), made once.
    if ((${#plan_sizes[@]})); then
        local empty=$sc/empty
        rm -rf "$empty"
        mkdir -p "$empty"
        for n in "${plan_sizes[@]}"; do
            local m=$sc/plan-$n.xml
            if [[ ! -s $m || $root/bench/manifest/generate.py -nt $m ]]; then
                log "generating a manifest of $n entries (once)..."
                python3 "$root/bench/manifest/generate.py" --entries "$n" --format xml --out "$m"
            fi
            cat "$m" >/dev/null
        done
        for ((round = 1; round <= rounds; round++)); do
            for n in "${plan_sizes[@]}"; do
                timed_v "$binary" plan "$sc/plan-$n.xml" --dest "$empty" --json
                local status=$t_us
                if ((t_rc != 0)); then
                    log "FAILED: plan of $n entries: exit status $t_rc"
                    tail -n 5 "$last_err" >&2 || true
                    status=ERR
                    failures=$((failures + 1))
                fi
                log "  round $round: plan $(short "$n") $(secs "$t_us") s, RSS $((t_rss / 1024)) MiB"
                wall["plan $n"]+="$status "
                cpu["plan $n"]+="$t_cpu "
                rss["plan $n"]+="$t_rss "
            done
        done
        {
            echo
            echo "### Plan: \`assetsync plan MANIFEST --dest EMPTY --json\`"
            echo
            echo "Manifests from \`bench/manifest/generate.py\` (XML); every entry comes out new."
            echo
            echo "| entries | manifest | wall s, median (min–max) | CPU s / peak RSS |"
            echo "|---|---|---|---|"
            for n in "${plan_sizes[@]}"; do
                echo "| $(short "$n") | $(mb "$(stat -c %s "$sc/plan-$n.xml")") | $(spread "plan $n") | $(cpu_rss "plan $n") |"
            done
        } >>"$md"
    fi

    # No-op: trees of N small files (bench/noop/data.py), pulled once, then no-op pulls against find.
    if ((${#noop_sizes[@]})); then
        for n in "${noop_sizes[@]}"; do
            local list=$out/lists/noop-$n.list tree=$docroot/noop-$n
            if [[ ! -s $list || $root/bench/noop/data.py -nt $list || $root/bench/manifest/generate.py -nt $list ]]; then
                log "generating $n files of 1-16 KiB in $tree (once)..."
                rm -rf "$tree" "$list"
                python3 "$root/bench/noop/data.py" tree "$tree" "$n" "$list"
                chmod -R a+rX "$tree"
            fi
            python3 "$root/bench/noop/data.py" manifest "$list" "${base}noop-$n/" "$sc/noop-$n.xml"
            log "priming: assetsync pull of $n files into $sc/cache-$n..."
            timed "$binary" pull "$sc/noop-$n.xml" --dest "$sc/cache-$n"
            if ((t_rc != 0)); then
                log "FAILED: the priming pull of $n files: exit status $t_rc"
                tail -n 5 "$last_err" >&2 || true
                failures=$((failures + 1))
            fi
        done
        for ((round = 1; round <= rounds; round++)); do
            for n in "${noop_sizes[@]}"; do
                local cache=$sc/cache-$n order=(noop find)
                ((round % 2)) || order=(find noop)
                for t in "${order[@]}"; do
                    find "$cache" -printf '%s %T@\n' >/dev/null 2>&1 || true  # warm metadata, untimed
                    local status
                    if [[ $t == noop ]]; then
                        timed_v "$binary" pull "$sc/noop-$n.xml" --dest "$cache"
                        status=$t_us
                        if ((t_rc != 0)) || ! grep -q "0 new, 0 updated, $n current, 0 failed" "$last_err"; then
                            log "FAILED: the no-op pull of $n files (exit status $t_rc) did not find every file current:"
                            tail -n 5 "$last_err" >&2 || true
                            status=ERR
                            failures=$((failures + 1))
                        fi
                    else
                        timed_v find "$cache" -type f -printf '%s %T@\n'
                        status=$t_us
                        ((t_rc == 0)) || status=ERR
                    fi
                    log "  round $round: $t $(short "$n") $(secs "$t_us") s"
                    wall["$t $n"]+="$status "
                    cpu["$t $n"]+="$t_cpu "
                    rss["$t $n"]+="$t_rss "
                done
            done
        done
        {
            echo
            printf '%s\n' "### No-op: \`assetsync pull\` with every file current, against \`find DIR -type f -printf '%s %T@\\n'\`"
            echo
            echo "Trees of 1–16 KiB files from \`bench/noop/data.py\`; metadata caches warm. Target (issue 10 item 6): at most 1.5 × find at 100k and 1M."
            echo
            echo "| files | no-op s, median (min–max) | CPU s / peak RSS | find s | no-op / find | target |"
            echo "|---|---|---|---|---|---|"
            for n in "${noop_sizes[@]}"; do
                local r verdict="-"
                r=$(ratio "$(med "noop $n")" "$(med "find $n")")
                if ((n >= 100000)); then verdict=$(judge "$r" '<=' 1.5); results+=("$verdict"); fi
                echo "| $(short "$n") | $(spread "noop $n") | $(cpu_rss "noop $n") | $(spread "find $n") | $r | $verdict |"
            done
        } >>"$md"
    fi

    # Pull throughput against --jobs, sets B and C, fresh destination, wall + sync.
    if ((${#jobs_list[@]})); then
        for s in "${jobs_sets[@]}"; do
            ensure_set "$s"
            for p in "${jobs_protocols[@]}"; do write_inputs "$p" "$s"; done
        done
        chmod -R a+rX "$docroot"
        local settings=()
        for j in "${jobs_list[@]}"; do settings+=("$j"); done
        for ((round = 1; round <= rounds; round++)); do
            for p in "${jobs_protocols[@]}"; do
                for s in "${jobs_sets[@]}"; do
                    for ((i = 0; i < ${#settings[@]}; i++)); do
                        j=${settings[$(((i + round - 1) % ${#settings[@]}))]}
                        reset "$s"
                        command_of assetsync "$s" "$p"
                        local key="jobs $p $s $j" status
                        timed_sync_v "${cmd[@]}" --jobs "$j"
                        status=$t_total
                        if ((t_rc != 0)); then
                            log "FAILED: --jobs $j, set $s over $p: exit status $t_rc"
                            tail -n 5 "$last_err" >&2 || true
                            status=ERR
                        elif ! python3 "$here/data.py" check "$(list_of "$s")" "$dest" 2>"$out/check.err"; then
                            log "FAILED: --jobs $j, set $s over $p: WRONG OUTPUT"
                            sed 's/^/    /' "$out/check.err" >&2
                            status=FAIL
                        fi
                        [[ $status == "$t_total" ]] || failures=$((failures + 1))
                        log "  round $round, $p, set $s: --jobs $j $(secs "$t_total") s"
                        wall[$key]+="$status "
                        cpu[$key]+="$t_cpu "
                        rss[$key]+="$t_rss "
                    done
                done
            done
        done
        clear_kept
        {
            echo
            echo "### Pull against \`--jobs\`: wall s including \`sync\`, median (min–max), and MB/s (10^6 bytes) at the median"
            echo
            local line="| set | protocol |" rule="|---|---|"
            for j in "${jobs_list[@]}"; do line+=" --jobs $j |"; rule+="---|"; done
            echo "$line"
            echo "$rule"
            for s in "${jobs_sets[@]}"; do
                for p in "${jobs_protocols[@]}"; do
                    line="| $(set_title "$s") | $p |"
                    for j in "${jobs_list[@]}"; do
                        local m rate="-"
                        m=$(med "jobs $p $s $j")
                        num "$m" && rate=$(awk -v b="$(set_bytes "$s")" -v us="$m" 'BEGIN { printf "%.0f", b / us }')
                        line+=" $(spread "jobs $p $s $j"), $rate MB/s |"
                    done
                    echo "$line"
                done
            done
        } >>"$md"
    fi
}

# ---------------------------------------------------------------- the report
version_of() { "$@" 2>&1 | head -n 1; }
if has peers "${parts[@]}" || [[ ! -s $report ]]; then
    {
        echo "# Performance: assetsync and its peers"
        echo
        echo "Written by \`bench/peers/run.sh\` (\`make bench-peers\`, the first part of \`make bench\`); see bench/README.md."
        echo
        print_header "peers benchmark" \
            "tools:    $(version_of curl --version | cut -d' ' -f1-2), $(version_of aria2c --version), $(version_of rclone version), $(version_of wget --version | cut -d' ' -f1-3), $(nginx -v 2>&1 | sed 's/.*: //') (loopback, sendfile on, 2 workers), $(version_of openssl version | cut -d' ' -f1-2)" \
            "rounds:   $rounds (set C: $c_rounds), interleaved, the order of the tools rotating each round" \
            "caches:   before every run: destination deleted (set C: set aside, deleted after the part), sync, drop_caches=$drop_caches, the source read back into the page cache" \
            | sed -e 's/^== \(.*\)/```\n== \1/'
        echo '```'
    } >"$md"
else
    cp "$report" "$md"
    { echo; echo "<!-- $(date -u '+%Y-%m-%d %H:%M:%S UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown): PARTS=${parts[*]} -->"; } >>"$md"
fi
echo >>"$md"
has peers "${parts[@]}" && peers_part
has scaling "${parts[@]}" && scaling_part
# The S3 comparison, which bench/s3/run.sh writes between its markers, is kept.
if has peers "${parts[@]}" && [[ -s $report ]]; then
    s3_section=$(sed -n '/^<!-- bench\/s3\/run.sh: begin/,/^<!-- bench\/s3\/run.sh: end -->$/p' "$report")
    [[ -z $s3_section ]] || printf '\n%s\n' "$s3_section" >>"$md"
fi

mkdir -p "$(dirname "$report")"
cp "$md" "$report"
cat "$md"
echo
echo "(written to $report; benchmarks are informational: the exit status is 0 unless a run failed)"
finish
