#!/usr/bin/env python3
"""Summarises what a traced no-op pull opened and read inside its cache directory.

usage: strace_summary.py TRACE CACHE_DIR

TRACE is the output of `strace -f -qq -y -s 0 -e trace=openat,open,read,
pread64,readv,preadv,preadv2,mmap,connect -o TRACE assetsync pull ...`: with
-y every file descriptor is printed with its path, so each call can be tied
to a file. Prints lines of `key: value` for run.sh to show, and the verdict
`cached-file-opens` / `cached-file-reads` (both must be 0 for a no-op).
"""
import re
import sys

CALL = re.compile(r"^(\d+)\s+(\w+)\((.*)$")
RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>(.*)$")
RESULT_FD = re.compile(r"\)\s+=\s+(-?\d+)(?:<(.*)>)?(?:\s.*)?$")
FIRST_FD = re.compile(r"^(?:AT_FDCWD|-?\d+)<([^>]*)>")
READS = {"read", "pread64", "readv", "preadv", "preadv2"}


def calls(lines):
    """Yields (name, arguments-and-result text) with unfinished/resumed pairs joined."""
    pending = {}
    for line in lines:
        line = line.rstrip("\n")
        m = RESUMED.match(line)
        if m:
            pid, name, rest = m.groups()
            head = pending.pop((pid, name), "")
            yield name, head + rest
            continue
        m = CALL.match(line)
        if not m:
            continue
        pid, name, rest = m.groups()
        if rest.endswith("<unfinished ...>"):
            pending[(pid, name)] = rest[: -len("<unfinished ...>")].rstrip()
            continue
        yield name, rest


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    trace, cache = sys.argv[1], sys.argv[2].rstrip("/")
    meta = cache + "/.assetsync"
    inside = lambda p: p == cache or p.startswith(cache + "/")
    in_meta = lambda p: p == meta or p.startswith(meta + "/")

    dir_opens = file_opens = meta_opens = 0
    meta_names = {}
    file_examples = []
    reads_cached = bytes_cached = 0
    reads_meta = bytes_meta = 0
    reads_other = 0
    connects = []
    mmaps_cached = 0
    with open(trace, encoding="utf-8", errors="replace") as f:
        for name, text in calls(f):
            if name in ("openat", "open"):
                r = RESULT_FD.search(text)
                if not r or int(r.group(1)) < 0 or r.group(2) is None:
                    continue
                path = r.group(2)
                if not inside(path):
                    continue
                if in_meta(path):
                    meta_opens += 1
                    key = path[len(meta) + 1:] or "."
                    meta_names[key] = meta_names.get(key, 0) + 1
                elif "O_DIRECTORY" in text:
                    dir_opens += 1
                else:
                    file_opens += 1
                    if len(file_examples) < 5:
                        file_examples.append(path)
            elif name in READS:
                m = FIRST_FD.match(text)
                r = RESULT_FD.search(text)
                got = int(r.group(1)) if r else 0
                path = m.group(1) if m else ""
                if inside(path) and in_meta(path):
                    reads_meta += 1
                    bytes_meta += max(got, 0)
                elif inside(path):
                    reads_cached += 1
                    bytes_cached += max(got, 0)
                else:
                    reads_other += 1
            elif name == "mmap":
                if re.search(r",\s*\d+<" + re.escape(cache) + r"/(?!\.assetsync/)", text):
                    mmaps_cached += 1
            elif name == "connect":
                r = RESULT_FD.search(text)
                address = re.search(r"sa_family=(\w+)(?:, sun_path=\"([^\"]*)\"|.*?inet_addr\(\"([^\"]*)\"\))?", text)
                what = "?"
                if address:
                    what = address.group(1) + ":" + (address.group(2) or address.group(3) or "")
                connects.append(f"{what} = {r.group(1) if r else '?'}")

    print(f"directories opened in the cache: {dir_opens}")
    print(f"cached files opened: {file_opens}" + (f" (e.g. {', '.join(file_examples)})" if file_examples else ""))
    print(f"reads of cached files: {reads_cached} calls, {bytes_cached} bytes; mmaps of cached files: {mmaps_cached}")
    print("opened in .assetsync/: " + (", ".join(f"{k} x{v}" for k, v in sorted(meta_names.items())) or "nothing"))
    print(f"reads in .assetsync/ (the state index): {reads_meta} calls, {bytes_meta} bytes")
    print(f"reads of other files (libraries, the manifest, /proc...): {reads_other} calls")
    print("connect() calls: " + (", ".join(connects) if connects else "none"))
    print(f"cached-file-opens: {file_opens}")
    print(f"cached-file-reads: {reads_cached + mmaps_cached}")


if __name__ == "__main__":
    main()
