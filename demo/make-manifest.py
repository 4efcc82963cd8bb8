#!/usr/bin/env python3
"""Writes an assetsync manifest (XML) for every file under a directory.

usage: make-manifest.py DIR BASE_URL > manifest.xml
"""
import os
import sys
import zlib
from xml.sax.saxutils import quoteattr


def crc32_of(path):
    crc = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return crc
            crc = zlib.crc32(chunk, crc)


def main():
    root, base = sys.argv[1], sys.argv[2]
    entries = []
    for directory, subdirectories, files in os.walk(root):
        subdirectories.sort()
        for name in sorted(files):
            full = os.path.join(directory, name)
            relative = os.path.relpath(full, root).replace(os.sep, "/")
            entries.append((relative, os.path.getsize(full), crc32_of(full)))
    out = sys.stdout
    out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
    out.write("<manifest version=\"1\" base=%s>\n" % quoteattr(base))
    for path, size, crc in entries:
        out.write("  <file path=%s size=\"%d\" crc32=\"%08x\"/>\n" % (quoteattr(path), size, crc))
    out.write("</manifest>\n")


if __name__ == "__main__":
    main()
