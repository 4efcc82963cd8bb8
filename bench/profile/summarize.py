#!/usr/bin/env python3
"""Where a pull's threads spend their time, from `strace -f -T -o TRACE` (bench/profile/run.sh).

usage: summarize.py TRACE

Each line of TRACE is `TID name(args) = result <seconds>` (or a call split into `<unfinished ...>`
and `<... name resumed>` lines). The calls' own wall time is summed per thread and per class of
call: syncs, writes, opens and creates, renames and links, removals, status calls, reads, and
waits (for the network, a timer or another thread). Threads are listed by id, the busiest outside
its waits first: the transfer thread's time is in reads of the network, the writer lanes' in
writes and opens, the main thread's in one long wait.
Standard library only.
"""
import collections
import re
import sys

CLASSES = {
    "sync": {"syncfs", "fsync", "fdatasync", "sync_file_range", "sync"},
    "write": {"pwrite64", "write", "writev", "pwritev", "pwritev2", "copy_file_range", "fallocate", "ftruncate"},
    "open": {"openat", "open", "mkdirat", "mkdir", "memfd_create"},
    "rename": {"renameat", "renameat2", "rename", "linkat", "symlinkat"},
    "remove": {"unlinkat", "unlink", "rmdir"},
    "status": {"newfstatat", "fstat", "statx", "stat", "lstat", "fstatfs", "statfs", "getdents64", "readlinkat"},
    "read": {"read", "pread64", "readv", "recvfrom", "recvmsg"},
    "wait": {"poll", "ppoll", "epoll_wait", "epoll_pwait", "select", "pselect6", "futex", "nanosleep", "clock_nanosleep"},
}
ORDER = list(CLASSES) + ["other"]
CLASS_OF = {call: name for name, calls in CLASSES.items() for call in calls}
FINISHED = re.compile(r"^(\d+)\s+(?:<\.\.\. )?([a-z0-9_]+)(?:\(| resumed>).*<(\d+\.\d+)>$")


def main(path):
    seconds = collections.defaultdict(lambda: collections.defaultdict(float))
    calls = collections.defaultdict(lambda: collections.defaultdict(int))
    with open(path, encoding="utf-8", errors="replace") as trace:
        for line in trace:
            match = FINISHED.match(line.rstrip())
            if not match:
                continue
            tid, name, spent = match.group(1), match.group(2), float(match.group(3))
            kind = CLASS_OF.get(name, "other")
            seconds[tid][kind] += spent
            calls[tid][kind] += 1
    busiest = sorted(seconds, key=lambda tid: -sum(v for k, v in seconds[tid].items() if k != "wait"))
    print("  %-8s %s" % ("thread", "".join("%11s" % kind for kind in ORDER)))
    for tid in busiest:
        if sum(calls[tid].values()) < 10:
            continue
        print("  %-8s %s" % (tid, "".join("%11.3f" % seconds[tid][kind] for kind in ORDER)))
    print("  (seconds inside the calls, per thread; threads by their time outside waits, most first)")


if __name__ == "__main__":
    main(sys.argv[1])
