#!/usr/bin/env python3
"""Regenerates the fixtures of manifests/invalid/ that are binary, large or
repetitive, so they need not be written by hand:

    python3 manifests/invalid/make-generated.py      # from anywhere

The output is deterministic (gzip members carry no name and mtime 0), and the
generated files are committed, so the tests never need to run this script.
Every other fixture in this directory is a small hand-written text file.
"""
import gzip
import io
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BASE = "https://cdn.example.com/game/"
MiB = 1 << 20
# ManifestReader.sizeLimit: the largest manifest accepted, after decompression.
SIZE_LIMIT = 256 * MiB


def write(name, data):
    if isinstance(data, str):
        data = data.encode("utf-8")
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def xml_manifest(file_lines, prolog=b""):
    out = b'<?xml version="1.0" encoding="UTF-8"?>\n' + prolog
    out += b'<manifest version="1" base="' + BASE.encode() + b'">\n'
    for line in file_lines:
        out += b"  " + line + b"\n"
    return out + b"</manifest>\n"


def xml_file(path):
    return b'<file path="' + path + b'" size="1" crc32="00000000"/>'


def json_manifest(entries):
    out = b'{\n  "version": 1,\n  "base": "' + BASE.encode() + b'",\n  "files": [\n'
    out += b",\n".join(b"    " + e for e in entries)
    return out + b"\n  ]\n}\n"


def json_file(path):
    return b'{"path": "' + path + b'", "size": 1, "crc32": "00000000"}'


def both(rule, path):
    """One fixture per encoding whose only entry has this raw path."""
    write(rule + ".xml", xml_manifest([xml_file(path)]))
    write(rule + ".json", json_manifest([json_file(path)]))


def gzip_bytes(chunks):
    """A deterministic gzip member of the concatenated chunks."""
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=buffer, mtime=0) as z:
        for chunk in chunks:
            z.write(chunk)
    return buffer.getvalue()


# --- raw bytes that are not UTF-8 ---------------------------------------
both("path-invalid-utf8", b"a\xffb")           # 0xFF never occurs in UTF-8
both("path-overlong-utf8", b"a\xc0\xafb")      # an overlong encoding of "/"

# --- lengths: components are limited to 255 bytes, whole paths to 4096 bytes
both("path-component-too-long", b"a/" + b"b" * 256)
# 128 characters, but 256 bytes: the limit counts bytes, not characters.
both("path-component-too-long-utf8", b"a/" + "\u00e9".encode() * 128)
# 16 components of 255 bytes and 15 slashes are 4095 bytes; "/x" makes 4097.
both("path-too-long", b"/".join([b"c" * 255] * 16) + b"/x")

# --- a path too large to hold: a streaming reader need not buffer it all --
# (gzip keeps the fixtures small; 64 MiB is well under the 256 MiB manifest limit)
huge = [b"a" * MiB] * 64
write("path-huge.xml.gz", gzip_bytes(
    [b'<manifest version="1" base="' + BASE.encode() + b'">\n  <file path="'] + huge
    + [b'" size="1" crc32="00000000"/>\n</manifest>\n']))
write("path-huge.json.gz", gzip_bytes(
    [b'{"version": 1, "base": "' + BASE.encode() + b'", "files": [\n  {"path": "'] + huge
    + [b'", "size": 1, "crc32": "00000000"}\n]}\n']))

# --- a quadratic blow-up: one ~50 KB entity referenced thousands of times -
entity = b"x" * 50_000
references = b"&big;" * 27_000
prolog = b'<!DOCTYPE manifest [\n  <!ENTITY big "' + entity + b'">\n]>\n'
write("quadratic-blowup.xml", xml_manifest([xml_file(b"a" + references)], prolog))

# --- 100,000 levels of JSON nesting ---------------------------------------
write("deep-nesting.json", b'{"version": 1, "files": ' + b"[" * 100_000 + b"\n")

# --- 100,000 levels of XML nesting, inside a <mirror> ------------------------
write("deep-nesting.xml", xml_manifest([
    b'<file path="a" size="1" crc32="00000000"><mirror url="https://m.example.com/a">'
    + b"<a>" * 100_000]))

# --- a UTF-8 byte order mark before a JSON manifest -------------------------

# --- gzip -------------------------------------------------------------------
valid_xml = xml_manifest([
    b'<file path="videos/intro.mp4" size="734003200" crc32="6a75c367"/>',
    b'<file path="packs/level1.zip" size="104857600" crc32="0f1e2d3c" url="https://other.example.com/l1.zip"/>',
    b'<file path="config/settings v2.json" size="4096" crc32="1d0a7f33"/>',
])
valid_json = json_manifest([
    b'{"path": "videos/intro.mp4", "size": 734003200, "crc32": "6a75c367"}',
    b'{"path": "packs/level1.zip", "size": 104857600, "crc32": "0f1e2d3c", "url": "https://other.example.com/l1.zip"}',
    b'{"path": "config/settings v2.json", "size": 4096, "crc32": "1d0a7f33"}',
])
for ext, valid in (("xml", valid_xml), ("json", valid_json)):
    packed = gzip_bytes([valid])
    # Only the last 4 bytes (ISIZE) cut: every byte of the manifest inflates,
    # but the stream never ends. A reader that ignores the trailer accepts it.
    write(f"gzip-truncated-trailer.{ext}.gz", packed[:-4])
    # Cut into the deflate data itself.
    write(f"gzip-truncated-data.{ext}.gz", packed[:-20])
    # A complete member followed by bytes that are not another gzip member.
    write(f"gzip-trailing-garbage.{ext}.gz", packed + b"garbage\n")
    # The CRC-32 in the trailer does not match the inflated bytes.
    write(f"gzip-bad-crc.{ext}.gz", packed[:-8] + bytes([packed[-8] ^ 0xFF]) + packed[-7:])

# A gzip bomb: well-formed-looking text that inflates past the 256 MiB limit;
# ~1000:1 compression keeps each file well under 1 MiB. The XML one is made of
# 64 KiB comments rather than millions of "<!---->": the limit under test is
# the byte count, and few nodes keep the test quick.
over = SIZE_LIMIT + 8 * MiB
comment = b"<!--" + b" " * (64 * 1024 - 7) + b"-->"
head = b'<?xml version="1.0" encoding="UTF-8"?>\n<manifest version="1" base="http://x/">\n'
write("gzip-bomb.xml.gz", gzip_bytes([head] + [comment] * (over // len(comment)) + [b"\n</manifest>\n"]))

head = b'{"version": 1, "base": "http://x/", "files": [{"path": "a", "size": 1, "crc32": "00000000"}]'
spaces = b" " * MiB
write("gzip-bomb.json.gz", gzip_bytes([head] + [spaces] * (over // MiB) + [b"}\n"]))
