#!/usr/bin/env python3
"""The data of `make sanitize`'s pull: many files of every sink kind, and one segmented file.

usage: data.py OUT_DIR BASE_URL

Writes OUT_DIR/data/ afresh (the same bytes every run: a seeded generator) and
OUT_DIR/manifest.xml naming every file with BASE_URL:
  small/DD/NNNN.bin  2,000 files of 0 to 64 KiB, over 20 directories: held in a
                     writer buffer and written by a lane once proven (SmallFileSink),
                     committed in groups
  medium/NN.bin      8 files of 300 KiB (written directly) and 8 of 3 MiB
                     (handed to the writer pool: QueuedSink)
  big.bin            200 MiB: fetched as 4 segments at once
Prints the number of files and of bytes.
"""
import os
import random
import shutil
import sys
import zlib

KiB = 1 << 10
MiB = 1 << 20


def files(rng):
    for i in range(2000):
        yield "small/%02d/%04d.bin" % (i % 20, i), rng.randrange(0, 64 * KiB + 1)
    for i in range(16):
        yield "medium/%02d.bin" % i, 300 * KiB if i < 8 else 3 * MiB
    yield "big.bin", 200 * MiB


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    out, base = sys.argv[1], sys.argv[2].rstrip("/") + "/"
    data = os.path.join(out, "data")
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    rng = random.Random(11)
    count = total = 0
    with open(os.path.join(out, "manifest.xml"), "w") as manifest:
        manifest.write('<?xml version="1.0" encoding="UTF-8"?>\n<manifest version="1" base="%s">\n' % base)
        for relative, size in files(rng):
            full = os.path.join(data, relative)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            crc = 0
            with open(full, "wb") as f:
                left = size
                while left > 0:
                    block = rng.randbytes(min(4 * MiB, left))
                    crc = zlib.crc32(block, crc)
                    f.write(block)
                    left -= len(block)
            manifest.write('  <file path="%s" size="%d" crc32="%08x"/>\n' % (relative, size, crc))
            count += 1
            total += size
        manifest.write("</manifest>\n")
    print(count, total)


if __name__ == "__main__":
    main()
