#!/usr/bin/env python3
"""The verify benchmark's data: a set of large random files and their CRC-32s.

usage: data.py OUT_DIR PULL_OUT_DIR SOURCE

SOURCE is `auto`, `pull` or `own`:
  pull  the 32 x 64 MiB files of the pull benchmark, PULL_OUT_DIR/data/many/
        part-NN.bin, with the CRC-32s it cached in PULL_OUT_DIR/data/.crc32.json
        (trusted only while each file's size and mtime_ns still match the cache);
  own   16 x 64 MiB files of random bytes under OUT_DIR/data/ (1 GiB, made once,
        CRC-32s cached in OUT_DIR/data/.crc32.json the same way);
  auto  pull when those files are all there and match, else own.

Writes OUT_DIR/files.list (``crc32<TAB>size<TAB>path``, paths relative to the
served directory, the format bench/noop/data.py's `manifest` command reads)
and prints two lines: the directory to serve, and which source was taken.

Standard library only.
"""
import json
import os
import sys
import zlib

MiB = 1 << 20
CHUNK = 4 * MiB
OWN = [("part-%02d.bin" % i, 64 * MiB) for i in range(16)]
PULL = [("many/part-%02d.bin" % i, 64 * MiB) for i in range(32)]


def log(message):
    print(message, file=sys.stderr, flush=True)


def load(path):
    try:
        with open(path) as f:
            value = json.load(f)
        return value if isinstance(value, dict) else {}
    except (OSError, ValueError):
        return {}


def cached_crc(cache, directory, relative, size):
    """The cached CRC of directory/relative if its size and mtime_ns still match, else None."""
    try:
        st = os.stat(os.path.join(directory, relative))
        recorded = cache[relative]
        if st.st_size == size == int(recorded[0]) and st.st_mtime_ns == int(recorded[1]):
            crc = recorded[2]
            return int(crc, 16) if isinstance(crc, str) else int(crc)
    except (OSError, KeyError, IndexError, TypeError, ValueError):
        pass
    return None


def pull_source(pull_out):
    directory = os.path.join(pull_out, "data")
    cache = load(os.path.join(directory, ".crc32.json"))
    listed = []
    for relative, size in PULL:
        crc = cached_crc(cache, directory, relative, size)
        if crc is None:
            return None
        listed.append((crc, size, relative))
    return directory, listed


def own_source(out):
    directory = os.path.join(out, "data")
    os.makedirs(directory, exist_ok=True)
    cache_path = os.path.join(directory, ".crc32.json")
    cache = load(cache_path)
    listed = []
    for relative, size in OWN:
        crc = cached_crc(cache, directory, relative, size)
        path = os.path.join(directory, relative)
        if crc is None:
            log(f"generating {path} ({size // MiB} MiB of random bytes)...")
            crc, left = 0, size
            with open(path + ".tmp", "wb") as f:
                while left > 0:
                    block = os.urandom(min(CHUNK, left))
                    crc = zlib.crc32(block, crc)
                    f.write(block)
                    left -= len(block)
            os.chmod(path + ".tmp", 0o644)
            os.replace(path + ".tmp", path)
            cache[relative] = [size, os.stat(path).st_mtime_ns, f"{crc:08x}"]
            with open(cache_path + ".tmp", "w") as f:
                json.dump(cache, f, indent=1)
            os.replace(cache_path + ".tmp", cache_path)
        listed.append((crc, size, relative))
    return directory, listed


def main():
    if len(sys.argv) != 4 or sys.argv[3] not in ("auto", "pull", "own"):
        sys.exit(__doc__)
    out, pull_out, source = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    chosen = None
    if source in ("auto", "pull"):
        chosen = pull_source(pull_out)
        if chosen is None and source == "pull":
            sys.exit(f"error: {pull_out}/data/many/part-00..31.bin are missing or do not match their cached CRC-32s; "
                     "run bench/pull/run.sh first, or use SOURCE=own")
        name = f"pull: 32 x 64 MiB from {os.path.join(pull_out, 'data')}/many/"
    if chosen is None:
        chosen = own_source(out)
        name = f"own: 16 x 64 MiB in {os.path.join(out, 'data')}/"
    directory, listed = chosen
    with open(os.path.join(out, "files.list.tmp"), "w") as f:
        for crc, size, relative in listed:
            f.write(f"{crc:08x}\t{size}\t{relative}\n")
    os.replace(os.path.join(out, "files.list.tmp"), os.path.join(out, "files.list"))
    print(os.path.realpath(directory))
    print(name)


if __name__ == "__main__":
    main()
