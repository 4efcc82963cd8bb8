#!/usr/bin/env python3
"""The peers benchmark's data: sets of random files (made once), each tool's
input files for one run, and the CRC-32 check of what a tool wrote.

usage: data.py make DIR COUNT SIZE LIST
       data.py inputs LIST SET_URL DEST IN_DIR
       data.py check LIST DEST

`make` creates COUNT files of SIZE random bytes (os.urandom) under DIR:
``file.bin`` for one file, ``part-NNNNN.bin`` for up to 100, else
``dNN/file-NNNNN.bin`` (100 per folder: creating a file also means finding its
directory); then writes LIST, one line per file: ``crc32<TAB>size<TAB>path``
(CRC-32 by zlib, computed while writing). LIST is written last, through a
temporary name, so its presence means the set is complete.

`inputs` writes into IN_DIR what every tool needs to fetch LIST's files from
SET_URL (ending in /) into DEST: manifest.xml (assetsync, through
bench/noop/data.py's writer), curl.cfg (url/output pairs), curl-null.cfg (the
same to /dev/null), aria2.txt (aria2c -i, each URL with its out=) and wget.txt
(one URL a line). Each run writes them anew: they carry the port.

`check` reads every file of LIST under DEST and compares its size and CRC-32
with LIST's; it prints the first few differences and exits 1 when there is any.

Standard library only.
"""
import importlib.util
import os
import sys
import zlib
from urllib.parse import quote

CHUNK = 4 << 20
HERE = os.path.dirname(os.path.abspath(__file__))


def paths(count):
    if count == 1:
        return ["file.bin"]
    if count <= 100:
        return ["part-%05d.bin" % i for i in range(count)]
    return ["d%02d/file-%05d.bin" % (i // 100, i) for i in range(count)]


def make(root, count, size, listing):
    lines = []
    for path in paths(count):
        full = os.path.join(root, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        crc, left = 0, size
        with open(full, "wb") as f:
            while left > 0:
                block = os.urandom(min(CHUNK, left))
                crc = zlib.crc32(block, crc)
                f.write(block)
                left -= len(block)
        lines.append("%08x\t%d\t%s\n" % (crc, size, path))
    with open(listing + ".tmp", "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    os.replace(listing + ".tmp", listing)


def read_list(listing):
    with open(listing, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t", 2) for line in f if line.strip()]


def inputs(listing, set_url, dest, in_dir):
    os.makedirs(in_dir, exist_ok=True)
    spec = importlib.util.spec_from_file_location("noop_data", os.path.join(HERE, "..", "noop", "data.py"))
    noop_data = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(noop_data)
    noop_data.manifest(listing, set_url, os.path.join(in_dir, "manifest.xml"))
    files = [path for _, _, path in read_list(listing)]
    urls = [set_url + quote(path) for path in files]
    with open(os.path.join(in_dir, "curl.cfg"), "w") as f:
        for url, path in zip(urls, files):
            f.write('url = "%s"\noutput = "%s"\n' % (url, os.path.join(dest, path)))
    with open(os.path.join(in_dir, "curl-null.cfg"), "w") as f:
        for url in urls:
            f.write('url = "%s"\noutput = "/dev/null"\n' % url)
    with open(os.path.join(in_dir, "aria2.txt"), "w") as f:
        for url, path in zip(urls, files):
            f.write("%s\n  out=%s\n" % (url, path))
    with open(os.path.join(in_dir, "wget.txt"), "w") as f:
        f.writelines(url + "\n" for url in urls)


def check(listing, dest):
    wrong = []
    for crc, size, path in read_list(listing):
        full = os.path.join(dest, path)
        try:
            with open(full, "rb") as f:
                got, length = 0, 0
                while True:
                    block = f.read(CHUNK)
                    if not block:
                        break
                    got = zlib.crc32(block, got)
                    length += len(block)
        except OSError as error:
            wrong.append("%s: %s" % (path, error.strerror))
            continue
        if length != int(size) or "%08x" % got != crc:
            wrong.append("%s: %d bytes, CRC-32 %08x (expected %s bytes, %s)" % (path, length, got, size, crc))
    for line in wrong[:5]:
        print(line, file=sys.stderr)
    if wrong:
        print("%d of the files differ from their source" % len(wrong), file=sys.stderr)
        sys.exit(1)


def main():
    args = sys.argv[1:]
    if len(args) == 5 and args[0] == "make":
        make(args[1], int(args[2]), int(args[3]), args[4])
    elif len(args) == 5 and args[0] == "inputs":
        inputs(*args[1:])
    elif len(args) == 3 and args[0] == "check":
        check(args[1], args[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
