#!/usr/bin/env bash
# The main job end to end: generate ~1 GiB of sample assets, describe them in a
# manifest, serve them with a local nginx, pull them into ./demo-cache, pull
# again to show the no-op, and stop nginx (also on failure or Ctrl-C).
# DEMO_UNIT (bytes, default 1 MiB) scales every sample file, for a quick run.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/lib.sh
source bench/lib.sh
check_binary "${1:-.build/release/assetsync}"
need_tools python3 nginx curl
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
start_nginx "$(realpath "$ASSETS")"
nginx_serves config/settings.bin
echo "== nginx serving $ASSETS on $base"

# 3. The manifest, made by assetsync itself (sizes and CRC-32s computed on all cores).
"$binary" manifest "$ASSETS" --base "$base" --output "$WORK/manifest.xml"
echo "== manifest: $WORK/manifest.xml ($(grep -c '<file' "$WORK/manifest.xml") files)"

# 4. Pull into a fresh ./demo-cache (the demo's own directory), then pull again: the second run has nothing to do.
rm -rf "$CACHE"
echo "== assetsync plan"
"$binary" plan "$WORK/manifest.xml" --dest "$CACHE"
echo "== assetsync pull (first run)"
"$binary" pull "$WORK/manifest.xml" --dest "$CACHE"
echo "== assetsync pull (second run: nothing to download)"
"$binary" pull "$WORK/manifest.xml" --dest "$CACHE"
echo "== done: $CACHE holds $(find "$CACHE" -path "$CACHE/.assetsync" -prune -o -type f -print | wc -l) verified files"
