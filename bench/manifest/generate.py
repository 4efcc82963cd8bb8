#!/usr/bin/env python3
"""Writes a large, realistic assetsync manifest (DESIGN.md section 1) for benchmarks.

    generate.py --entries N --format xml|json --out FILE [--gzip]
                [--seed S] [--max-size BYTES] [--tree DIR]

Entries look like a real asset cache: nested paths such as
``textures/d0042/sub7/file_004271.png`` (five top-level folders, 1,000 files per
``dNNNN`` folder, 100 per ``subN``), a few names with a space or a non-ASCII
letter, sizes spread log-uniformly from a few bytes up to --max-size (8 GiB by
default, so "several GiB" files are common among the biggest), random 8-hex
CRC-32s, a ``base`` URL, about 1 entry in 10 with its own ``url`` (most of
them signed URLs whose query strings hold ``&``, escaped as ``&amp;`` in XML;
some relative to ``base``) and about 1 in 50 with one or two mirrors.

The output is deterministic: the same --entries, --seed and --max-size give
the same entries in both encodings (only the encoding differs), and --gzip
output is byte-for-byte reproducible (gzip header mtime 0). The document is
streamed in batches, never built whole in memory, so 10 million entries are
as cheap in memory as 10 thousand.

--tree DIR also creates, under DIR, every listed file as a sparse file of its
exact size (open + ftruncate, as `truncate -s SIZE` does: no data blocks are
written), so that `assetsync plan` finds all of them present; pair it with a
small --max-size to keep the tree cheap to create and to delete.

Standard library only.
"""

import argparse
import gzip
import io
import json
import math
import os
import random
import sys
from urllib.parse import quote

BASE = "https://cdn.example.com/game/"
# (top-level folder, file extensions used in it)
TOPS = [
    ("assets", (".bin", ".dat")),
    ("textures", (".png", ".ktx2")),
    ("audio", (".ogg", ".wav")),
    ("video", (".mp4", ".webm")),
    ("packs", (".zip", ".pak")),
]
BATCH = 4096  # entries formatted per write


def entries(count, seed, max_size):
    """Yields (path, size, crc32, url, mirrors) for each entry, in manifest order."""
    rng = random.Random(seed)
    width = max(6, len(str(max(count - 1, 0))))
    log_max = math.log(max(max_size, 1) + 1)
    for i in range(count):
        directory = i // 1000
        top, extensions = TOPS[directory % len(TOPS)]
        extension = extensions[(i // 7) % len(extensions)]
        if i % 997 == 500:
            name = f"file {i:0{width}d} v2{extension}"  # a space: percent-encoded in URLs
        elif i % 1009 == 600:
            name = f"fichier_\u00e9t\u00e9_{i:0{width}d}{extension}"  # UTF-8 in the path
        else:
            name = f"file_{i:0{width}d}{extension}"
        path = f"{top}/d{directory:04d}/sub{(i // 100) % 10}/{name}"

        if i % 499 == 13:
            size = 0
        else:
            size = min(int(math.exp(rng.uniform(0.0, log_max))) - 1, max_size)
            size = max(size, 1)
        crc = f"{rng.getrandbits(32):08x}"

        url = None
        roll = rng.random()
        if roll < 0.10:
            encoded = quote(path, safe="/-._~")
            kind = rng.random()
            if kind < 0.60:  # a signed URL: the query string holds several "&"
                expires = 1700000000 + rng.randrange(10_000_000)
                signature = f"{rng.getrandbits(64):016x}"
                url = (f"https://storage.example.com/bucket/{encoded}"
                       f"?X-Expires={expires}&X-Key-Id=bench&X-Signature={signature}")
            elif kind < 0.85:
                url = f"https://other.example.com/game/{encoded}"
            elif kind < 0.95:  # relative to base, resolved by the reader
                url = f"../shared/{quote(name, safe='-._~')}"
            else:
                url = f"/static/v{rng.randrange(1, 9)}/{encoded}?rev={rng.randrange(1000)}&lang=en"

        mirrors = []
        if rng.random() < 0.02:
            for k in range(1 + rng.randrange(2)):
                mirrors.append(f"https://mirror{k + 1}.example.net/game/{quote(path, safe='/-._~')}")

        yield path, size, crc, url, mirrors


def xml_attribute(value):
    return value.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def xml_lines(items):
    for path, size, crc, url, mirrors in items:
        line = f'  <file path="{xml_attribute(path)}" size="{size}" crc32="{crc}"'
        if url is not None:
            line += f' url="{xml_attribute(url)}"'
        if mirrors:
            yield line + ">\n"
            for mirror in mirrors:
                yield f'    <mirror url="{xml_attribute(mirror)}"/>\n'
            yield "  </file>\n"
        else:
            yield line + "/>\n"


def json_lines(items):
    first = True
    for path, size, crc, url, mirrors in items:
        line = f'    {{"path": {json.dumps(path, ensure_ascii=False)}, "size": {size}, "crc32": "{crc}"'
        if url is not None:
            line += f', "url": {json.dumps(url)}'
        if mirrors:
            line += ', "mirrors": [' + ", ".join(json.dumps(m) for m in mirrors) + "]"
        line += "}"
        yield ("" if first else ",\n") + line
        first = False
    if not first:
        yield "\n"


def write_batched(out, pieces):
    batch = []
    for piece in pieces:
        batch.append(piece)
        if len(batch) >= BATCH:
            out.write("".join(batch))
            batch.clear()
    if batch:
        out.write("".join(batch))


def tree_hook(items, root):
    """Passes entries through, creating each one's sparse file under `root` on the way."""
    made = set()
    for item in items:
        path, size = item[0], item[1]
        directory = os.path.join(root, os.path.dirname(path))
        if directory not in made:
            os.makedirs(directory, exist_ok=True)
            made.add(directory)
        fd = os.open(os.path.join(root, path), os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            os.ftruncate(fd, size)
        finally:
            os.close(fd)
        yield item


def main():
    parser = argparse.ArgumentParser(description="Write a large, realistic assetsync manifest for benchmarks.")
    parser.add_argument("--entries", type=int, required=True, help="number of <file> entries")
    parser.add_argument("--format", choices=("xml", "json"), required=True)
    parser.add_argument("--out", required=True, help="output file ('-' for standard output)")
    parser.add_argument("--gzip", action="store_true", help="gzip-compress the output")
    parser.add_argument("--seed", type=int, default=20240601, help="random seed (default: %(default)s)")
    parser.add_argument("--max-size", type=int, default=8 << 30,
                        help="largest file size in bytes (default: 8 GiB)")
    parser.add_argument("--tree", metavar="DIR",
                        help="also create every listed file under DIR as a sparse file of its size")
    args = parser.parse_args()
    if args.entries < 0 or args.max_size < 0:
        parser.error("--entries and --max-size must not be negative")

    raw = sys.stdout.buffer if args.out == "-" else open(args.out, "wb")
    try:
        binary = gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=6) if args.gzip else raw
        out = io.TextIOWrapper(binary, encoding="utf-8", newline="\n", write_through=False)
        items = entries(args.entries, args.seed, args.max_size)
        if args.tree:
            items = tree_hook(items, args.tree)
        note = f"generated by bench/manifest/generate.py: {args.entries} entries, seed {args.seed}, max size {args.max_size}"
        if args.format == "xml":
            out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
            out.write(f"<!-- {note} -->\n")
            out.write(f'<manifest version="1" base="{xml_attribute(BASE)}">\n')
            write_batched(out, xml_lines(items))
            out.write("</manifest>\n")
        else:
            out.write('{\n  "version": 1,\n')
            out.write(f'  "base": {json.dumps(BASE)},\n')
            out.write('  "files": [\n')
            write_batched(out, json_lines(items))
            out.write("  ]\n}\n")
        out.flush()
        out.detach()
        if binary is not raw:
            binary.close()
    finally:
        if raw is not sys.stdout.buffer:
            raw.close()


if __name__ == "__main__":
    main()
