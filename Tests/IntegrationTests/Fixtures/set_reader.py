#!/usr/bin/env python3
"""A consumer of an atomic DEST, in a process of its own (AtomicTortureTests' reader).

    set_reader.py DEST VERSIONS.json STOPFILE

VERSIONS.json is a list with, per version, an object {path: crc32 hex}. Until STOPFILE exists,
and at least once however late the reader starts (a busy machine may start it after STOPFILE is
made), each pass opens DEST once and reads every path relative to that descriptor, as a consumer
of a set must, and prints one line: "v0", "v1", … for a pass that saw exactly that version,
"missing PATH" or "mix PATH=vN …" otherwise. Prints "end" last.
"""
import json
import os
import sys
import zlib


def read_pass(dest, paths):
    fd = os.open(dest, os.O_RDONLY | os.O_DIRECTORY)
    try:
        seen = {}
        for path in paths:
            try:
                file = os.open(path, os.O_RDONLY, dir_fd=fd)
            except FileNotFoundError:
                return None, path
            try:
                crc = 0
                while True:
                    block = os.read(file, 1 << 16)
                    if not block:
                        break
                    crc = zlib.crc32(block, crc)
            finally:
                os.close(file)
            seen[path] = "%08x" % crc
        return seen, None
    finally:
        os.close(fd)


def main():
    dest, versions_file, stop_file = sys.argv[1:4]
    with open(versions_file) as f:
        versions = json.load(f)
    paths = sorted(versions[0])
    passes = 0
    while passes == 0 or not os.path.exists(stop_file):
        passes += 1
        try:
            seen, missing = read_pass(dest, paths)
        except FileNotFoundError:
            seen, missing = None, "DEST"
        if seen is None:
            print("missing " + missing, flush=True)
            continue
        matches = [index for index, version in enumerate(versions) if version == seen]
        if matches:
            print("v%d" % matches[0], flush=True)
        else:
            def which(path):
                found = [i for i, v in enumerate(versions) if v[path] == seen[path]]
                return "v%d" % found[0] if found else "neither"
            print("mix " + " ".join("%s=%s" % (p, which(p)) for p in paths), flush=True)
    print("end", flush=True)


if __name__ == "__main__":
    main()
