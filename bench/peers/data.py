#!/usr/bin/env python3
"""The peers benchmark's data: sets of random files and a copy of a real tree
(made once), each tool's input files for one run, and the CRC-32 check of
what a tool wrote.

usage: data.py make DIR COUNT SIZE LIST
       data.py copy SOURCE DIR LIST
       data.py inputs LIST SET_URL DEST IN_DIR
       data.py check LIST DEST

`make` creates COUNT files of SIZE random bytes (os.urandom) under DIR:
``file.bin`` for one file, ``part-NNNNN.bin`` for up to 100, else
``dNN/file-NNNNN.bin`` (100 per folder: creating a file also means finding its
directory); then writes LIST, one line per file: ``crc32<TAB>size<TAB>path``
(CRC-32 by zlib, computed while writing). LIST is written last, through a
temporary name, so its presence means the set is complete.

`copy` copies the regular files of the tree SOURCE (set D: a real tree, such
as the Swift toolchain) into DIR, in sorted order, and writes LIST the same
way. Left out, so that every tool is given the same plain files and can be
asked for all of them: symlinks and anything else that is neither a regular
file nor a directory; dot files and directories, which nginx's listings never
show, so that rclone's http backend, which copies what they show, cannot see
them (it missed the toolchain's one .gitignore); and names no manifest may
hold (not UTF-8, a control character or a backslash). It prints what it
copied and left out.

`inputs` writes into IN_DIR what every tool needs to fetch LIST's files from
SET_URL (ending in /) into DEST: manifest.xml (assetsync, through
bench/noop/data.py's writer), curl.cfg (url/output pairs), curl-null.cfg (the
same to /dev/null), aria2.txt (aria2c -i, each URL with its out=) and wget.txt
(one URL a line). Each run writes them anew: they carry the port.

`check` reads every file of LIST under DEST and compares its size and CRC-32
with LIST's, and walks DEST for files LIST does not hold (DEST/.assetsync,
assetsync's own, aside): a tool that skips files with exit status 0 (rclone
did, on a real tree) is caught here. It prints the first few differences, then
one line that counts them (the report shows it), and exits 1 when there is any.

Standard library only.
"""
import importlib.util
import os
import stat
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
    write_list(lines, listing)


def write_list(lines, listing):
    with open(listing + ".tmp", "w", encoding="utf-8", newline="\n") as f:
        f.writelines(lines)
    os.replace(listing + ".tmp", listing)


def manifest_can_hold(path):
    """Whether a manifest may name PATH (the rules of DESIGN.md, section 1, that a real tree can break)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable bytes back as lone surrogates
        return False
    return not any(ord(c) < 0x20 or c in "\x7f\\" for c in path)


def copy(source, root, listing):
    if os.path.commonpath([os.path.realpath(root), os.path.realpath(source)]) == os.path.realpath(source):
        sys.exit("error: %s is inside %s: the copy would copy itself" % (root, source))
    lines, bytes_copied, not_files, dot_names, bad_names = [], 0, 0, 0, []
    for directory, dirs, files in os.walk(source):
        # Dot names (a top-level .assetsync, which no manifest may name, among them) are left out.
        dot_names += sum(1 for name in dirs + files if name.startswith("."))
        # os.walk descends into what is left, in this order; a symlink to a directory is listed, not followed.
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        not_files += sum(1 for d in dirs if os.path.islink(os.path.join(directory, d)))
        for entry in sorted(f for f in files if not f.startswith(".")):
            full = os.path.join(directory, entry)
            path = os.path.relpath(full, source).replace(os.sep, "/")
            if not stat.S_ISREG(os.lstat(full).st_mode):
                not_files += 1
                continue
            if not manifest_can_hold(path):
                bad_names.append(path)
                continue
            target = os.path.join(root, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            crc, size = 0, 0
            with open(full, "rb") as src, open(target, "wb") as dst:
                while block := src.read(CHUNK):
                    crc = zlib.crc32(block, crc)
                    dst.write(block)
                    size += len(block)
            lines.append("%08x\t%d\t%s\n" % (crc, size, path))
            bytes_copied += size
    write_list(lines, listing)
    print("copied %d files (%d bytes) of %s; left out %d symlinks and other non-files, %d dot files and directories,"
          " %d names no manifest may hold%s"
          % (len(lines), bytes_copied, source, not_files, dot_names, len(bad_names),
             "".join("\n  left out: %r" % p for p in bad_names[:5])), file=sys.stderr)


def read_list(listing):
    with open(listing, encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t", 2) for line in f if line.strip()]


def curl_quoted(text):
    """TEXT as a double-quoted string of a curl --config file, where a backslash escapes."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


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
            f.write('url = "%s"\noutput = %s\n' % (url, curl_quoted(os.path.join(dest, path))))
    with open(os.path.join(in_dir, "curl-null.cfg"), "w") as f:
        for url in urls:
            f.write('url = "%s"\noutput = "/dev/null"\n' % url)
    with open(os.path.join(in_dir, "aria2.txt"), "w") as f:
        for url, path in zip(urls, files):
            f.write("%s\n  out=%s\n" % (url, path))
    with open(os.path.join(in_dir, "wget.txt"), "w") as f:
        f.writelines(url + "\n" for url in urls)


def check(listing, dest):
    entries = read_list(listing)
    listed = {path for _, _, path in entries}
    missing, differ, wrong = 0, 0, []
    for crc, size, path in entries:
        full = os.path.join(dest, path)
        try:
            with open(full, "rb") as f:
                got, length = 0, 0
                while block := f.read(CHUNK):
                    got = zlib.crc32(block, got)
                    length += len(block)
        except FileNotFoundError:
            missing += 1
            wrong.append("%s: missing" % path)
            continue
        except OSError as error:
            differ += 1
            wrong.append("%s: %s" % (path, error.strerror))
            continue
        if length != int(size) or "%08x" % got != crc:
            differ += 1
            wrong.append("%s: %d bytes, CRC-32 %08x (expected %s bytes, %s)" % (path, length, got, size, crc))
    extra = 0
    for directory, dirs, files in os.walk(dest):
        if directory == dest and ".assetsync" in dirs:
            dirs.remove(".assetsync")
        for entry in files + [d for d in dirs if os.path.islink(os.path.join(directory, d))]:
            path = os.path.relpath(os.path.join(directory, entry), dest).replace(os.sep, "/")
            if path not in listed:
                extra += 1
                wrong.append("%s: not in the list" % path)
    for line in wrong[:5]:
        print(line, file=sys.stderr)
    if wrong:
        counts = [(missing, "missing"), (differ, "with other bytes"), (extra, "not in the list")]
        print("of %d files: %s" % (len(entries), ", ".join("%d %s" % c for c in counts if c[0])), file=sys.stderr)
        sys.exit(1)


def main():
    args = sys.argv[1:]
    if len(args) == 5 and args[0] == "make":
        make(args[1], int(args[2]), int(args[3]), args[4])
    elif len(args) == 4 and args[0] == "copy":
        copy(*args[1:])
    elif len(args) == 5 and args[0] == "inputs":
        inputs(*args[1:])
    elif len(args) == 3 and args[0] == "check":
        check(args[1], args[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
