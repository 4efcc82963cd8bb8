#!/usr/bin/env bash
# The main job end to end: generate ~1 GiB of sample assets, describe them in a
# manifest, serve them with a local nginx, pull them into ./demo-cache, pull
# again to show the no-op, and stop nginx (also on failure or Ctrl-C).
# DEMO_UNIT (bytes, default 1 MiB) scales every sample file, for a quick run.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.build/release/assetsync}
WORK=demo/out
ASSETS=$WORK/assets
CACHE=./demo-cache
UNIT=${DEMO_UNIT:-1048576}
mkdir -p "$WORK"

# 1. Sample assets (random bytes, made once): a 512 MiB "video", zip-sized packs, a nested folder.
make_file() {  # path size-in-units
    [ -f "$ASSETS/$1" ] && [ "$(stat -c %s "$ASSETS/$1")" -eq $(($2 * UNIT)) ] && return
    mkdir -p "$(dirname "$ASSETS/$1")"
    head -c $(($2 * UNIT)) /dev/urandom > "$ASSETS/$1.tmp" && mv "$ASSETS/$1.tmp" "$ASSETS/$1"
}
echo "== generating sample assets in $ASSETS ($((1009 * UNIT)) bytes, made once)"
make_file videos/intro.mp4 512
make_file packs/level1.zip 160
make_file packs/level2.zip 128
make_file packs/level3.zip 96
make_file packs/dlc/winter/textures.zip 64
make_file packs/dlc/winter/sounds.zip 48
make_file config/settings.bin 1
chmod -R a+rX "$WORK"

# 2. nginx on a free loopback port, with a config of its own.
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
NGINX_DIR=$(mktemp -d)
cleanup() {
    if [ -f "$NGINX_DIR/nginx.pid" ]; then kill "$(cat "$NGINX_DIR/nginx.pid")" 2>/dev/null || true; fi
    sleep 0.2
    rm -rf "$NGINX_DIR"
}
trap cleanup EXIT INT TERM
# Run as root, nginx's workers would be 'nobody', who cannot read a checkout under a private (0700)
# directory such as root's home or a mktemp -d: they serve it as the user who runs the demo.
USER_LINE=""
[ "$(id -u)" = 0 ] && USER_LINE="user root;"
cat > "$NGINX_DIR/nginx.conf" <<CONF
$USER_LINE
worker_processes 2;
pid $NGINX_DIR/nginx.pid;
error_log $NGINX_DIR/error.log;
events { worker_connections 256; }
http {
    access_log $NGINX_DIR/access.log;
    sendfile on;
    client_body_temp_path $NGINX_DIR/tmp; proxy_temp_path $NGINX_DIR/tmp; fastcgi_temp_path $NGINX_DIR/tmp;
    uwsgi_temp_path $NGINX_DIR/tmp; scgi_temp_path $NGINX_DIR/tmp;
    server { listen 127.0.0.1:$PORT; root $(realpath "$ASSETS"); }
}
CONF
nginx -c "$NGINX_DIR/nginx.conf"
for _ in $(seq 50); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.1; done
echo "== nginx serving $ASSETS on http://127.0.0.1:$PORT/"

# 3. The manifest, made by assetsync itself (sizes and CRC-32s computed on all cores).
"$BIN" manifest "$ASSETS" --base "http://127.0.0.1:$PORT/" --output "$WORK/manifest.xml"
echo "== manifest: $WORK/manifest.xml ($(grep -c '<file' "$WORK/manifest.xml") files)"

# 4. Pull into a fresh ./demo-cache (the demo's own directory), then pull again: the second run has nothing to do.
rm -rf "$CACHE"
echo "== assetsync plan"
"$BIN" plan "$WORK/manifest.xml" --dest "$CACHE"
echo "== assetsync pull (first run)"
"$BIN" pull "$WORK/manifest.xml" --dest "$CACHE"
echo "== assetsync pull (second run: nothing to download)"
"$BIN" pull "$WORK/manifest.xml" --dest "$CACHE"
echo "== done: $CACHE holds $(find "$CACHE" -path "$CACHE/.assetsync" -prune -o -type f -print | wc -l) verified files"
