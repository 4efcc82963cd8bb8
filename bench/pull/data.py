#!/usr/bin/env python3
"""The pull benchmark's data: random files (made once) and their manifests.

usage: data.py OUT_DIR BASE_URL

Makes, under OUT_DIR/data/ (only what is missing or has the wrong size):
  single-64M.bin   64 MiB      the small half of the memory case
  single-4G.bin    4 GiB       the big half of the memory case
  single-2G.bin    2 GiB       the one-big-file speed case
  many/part-NN.bin 32 x 64 MiB the many-files speed case
of random bytes (os.urandom), and writes one XML manifest per case to
OUT_DIR/manifest-{64M,4G,2G,32x64M}.xml with the given base URL. CRC-32s
(zlib) are computed while generating and kept in OUT_DIR/data/.crc32.json,
keyed by size and mtime, so later runs only rewrite the manifests (the port
changes every run).
"""
import json
import os
import sys
import zlib

MiB = 1 << 20
CHUNK = 4 * MiB

CASES = {
    "64M": [("single-64M.bin", 64 * MiB)],
    "4G": [("single-4G.bin", 4096 * MiB)],
    "2G": [("single-2G.bin", 2048 * MiB)],
    "32x64M": [("many/part-%02d.bin" % i, 64 * MiB) for i in range(32)],
}


def log(message):
    print(message, file=sys.stderr, flush=True)


def generate(path, size):
    """Writes SIZE random bytes to PATH (via a temporary name) and returns their CRC-32."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    crc = 0
    left = size
    with open(tmp, "wb") as f:
        while left > 0:
            block = os.urandom(min(CHUNK, left))
            crc = zlib.crc32(block, crc)
            f.write(block)
            left -= len(block)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)
    return crc


def crc_of(path):
    crc = 0
    with open(path, "rb") as f:
        while True:
            block = f.read(CHUNK)
            if not block:
                return crc
            crc = zlib.crc32(block, crc)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, base = sys.argv[1], sys.argv[2]
    if not base.endswith("/"):
        base += "/"
    data = os.path.join(out, "data")
    os.makedirs(data, exist_ok=True)
    cache_path = os.path.join(data, ".crc32.json")
    try:
        with open(cache_path) as f:
            cache = json.load(f)
    except (OSError, ValueError):
        cache = {}

    for case, files in CASES.items():
        for relative, size in files:
            full = os.path.join(data, relative)
            try:
                st = os.stat(full)
            except FileNotFoundError:
                st = None
            if st is None or st.st_size != size:
                log("generating %s (%d MiB of random bytes, once)..." % (relative, size // MiB))
                crc = generate(full, size)
                st = os.stat(full)
            else:
                known = cache.get(relative)
                if known and known[0] == st.st_size and known[1] == st.st_mtime_ns:
                    continue
                log("computing the CRC-32 of %s..." % relative)
                crc = crc_of(full)
            cache[relative] = [st.st_size, st.st_mtime_ns, "%08x" % crc]
            with open(cache_path + ".tmp", "w") as f:
                json.dump(cache, f, indent=1, sort_keys=True)
            os.replace(cache_path + ".tmp", cache_path)

    for case, files in CASES.items():
        manifest = os.path.join(out, "manifest-%s.xml" % case)
        with open(manifest + ".tmp", "w") as f:
            f.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            f.write('<manifest version="1" base="%s">\n' % base)
            for relative, size in files:
                f.write('  <file path="%s" size="%d" crc32="%s"/>\n' % (relative, size, cache[relative][2]))
            f.write("</manifest>\n")
        os.replace(manifest + ".tmp", manifest)


if __name__ == "__main__":
    main()
