#!/usr/bin/env python3
"""The no-op benchmark's data: a tree of many small files (made once) and its manifest.

usage: data.py tree DIR COUNT LIST
       data.py manifest LIST BASE_URL OUT

`tree` creates COUNT files of random bytes under DIR, 1 to 16 KiB each, at the
nested paths bench/manifest/generate.py gives (``textures/d0042/sub7/
file_042731.png``: 1,000 files per ``dNNNN`` folder, 100 per ``subN``, a few
names with a space or a non-ASCII letter), and then writes LIST, one line per
file: ``crc32<TAB>size<TAB>path`` (CRC-32 by zlib, computed while writing).
LIST is written last, through a temporary name, so its presence means the
tree is complete.

`manifest` writes an XML manifest of LIST's files with the given base URL
(the port changes every run, so this is done every time; it is quick).

Standard library only.
"""
import os
import random
import sys
import zlib
from xml.sax.saxutils import quoteattr

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "manifest"))
import generate  # noqa: E402  (bench/manifest/generate.py: the realistic path layout)

SEED = 20240602
SMALLEST, LARGEST = 1 << 10, 16 << 10


def tree(root, count, listing):
    rng = random.Random(SEED)
    made = set()
    lines = []
    # Only the paths are taken from generate.py; sizes and contents are ours.
    for path, *_ in generate.entries(count, SEED, 1 << 20):
        directory = os.path.join(root, os.path.dirname(path))
        if directory not in made:
            os.makedirs(directory, exist_ok=True)
            made.add(directory)
        size = rng.randint(SMALLEST, LARGEST)
        data = os.urandom(size)
        fd = os.open(os.path.join(root, path), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)
        lines.append(f"{zlib.crc32(data):08x}\t{size}\t{path}\n")
    with open(listing + ".tmp", "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    os.replace(listing + ".tmp", listing)


def manifest(listing, base, out):
    with open(listing, encoding="utf-8") as f, open(out + ".tmp", "w", encoding="utf-8", newline="\n") as o:
        o.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        o.write(f"<manifest version=\"1\" base={quoteattr(base)}>\n")
        batch = []
        for line in f:
            crc, size, path = line.rstrip("\n").split("\t", 2)
            batch.append(f"  <file path={quoteattr(path)} size=\"{size}\" crc32=\"{crc}\"/>\n")
            if len(batch) >= 4096:
                o.write("".join(batch))
                batch.clear()
        o.write("".join(batch))
        o.write("</manifest>\n")
    os.replace(out + ".tmp", out)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "tree":
        tree(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 5 and sys.argv[1] == "manifest":
        manifest(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
