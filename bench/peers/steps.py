#!/usr/bin/env python3
"""Where assetsync's wall time went, set by set: the counters its `pull --json`
summary line carries (`"steps_ms": {...}`), from the median round.

usage: steps.py < RUNS

RUNS has one line per timed assetsync run: SET<TAB>WALL_US<TAB>LOG, where SET
names the set (the table's first column), WALL_US is the bench's wall time of
the run including its final sync (ERR or FAIL when the run failed or its
output was wrong) and LOG the run's --json output. For each set, in the order
first seen, the run whose wall time is the median of its successful runs (the
lower of the middle two for an even count) is chosen, and the last line of its
LOG whose "type" is "summary" read: its "milliseconds" (assetsync's own clock)
and every key of "steps_ms", in the order given. The names are the binary's,
so they are not interpreted here: the columns are the keys of every set in the
order first seen. Prints a Markdown table, each counter in ms and as a share
of that run's wall time (counters of work done in parallel can add up to more
than 100%); or, when no summary has "steps_ms" (a build without the counters),
one line saying so.

Standard library only.
"""
import json
import sys


def summary_of(log):
    """The last summary object of LOG, or None."""
    try:
        with open(log, encoding="utf-8") as f:
            lines = f.readlines()
    except OSError:
        return None
    for line in reversed(lines):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("type") == "summary":
            return event
    return None


def main():
    runs = {}  # set -> [(wall µs, log)] of the successful runs, in the order given
    for line in sys.stdin:
        if not line.strip():
            continue
        name, wall, log = line.rstrip("\n").split("\t", 2)
        runs.setdefault(name, [])
        if wall.isdigit():
            runs[name].append((int(wall), log))

    rows, keys = [], []
    for name, done in runs.items():
        if not done:
            rows.append((name, None, None, {}))
            continue
        wall, log = sorted(done)[(len(done) - 1) // 2]
        summary = summary_of(log) or {}
        steps = summary.get("steps_ms")
        steps = steps if isinstance(steps, dict) else {}
        keys += [k for k in steps if k not in keys]
        rows.append((name, wall, summary.get("milliseconds"), steps))

    if not keys:
        print("No counters in this build (its `--json` summary has no `steps_ms`).")
        return
    print("| set | wall ms (median run, incl. sync) | assetsync's own ms | " + " | ".join(keys) + " |")
    print("|---|---|---|" + "---|" * len(keys))
    for name, wall, own, steps in rows:
        if wall is None:
            print("| %s | ERR: no successful run |" % name + " - |" * (len(keys) + 1))
            continue
        cells = []
        for key in keys:
            value = steps.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                cells.append("%d (%.0f%%)" % (value, 100 * value * 1000 / wall))
            else:
                cells.append("-")
        own_cell = "%d" % own if isinstance(own, (int, float)) else "-"
        print("| %s | %d | %s | %s |" % (name, round(wall / 1000), own_cell, " | ".join(cells)))


if __name__ == "__main__":
    main()
