#!/usr/bin/env python3
"""`make api-check`: AssetSync's public API, as swift-api-digester dumped it, against the baseline.

    api/check.py BASELINE DUMP

Both files are `swift-api-digester -dump-sdk -avoid-location -avoid-tool-args` dumps, which hold
no path and no tool argument, so the same API dumps to the same bytes on any machine. Equal files
pass. Otherwise this prints, and fails:
- the breaking changes, in the digester's words (`swift-api-digester -diagnose-sdk`);
- the declarations added, removed or changed, one line each: the signature (swift-demangle of its
  mangled name), a variable's accessors, a type's conformances, the attributes, the parameters
  with a default;
- if those lines are equal (a change they do not show), the difference of the dumps themselves;
- how to accept the change (`make api-baseline`).
"""

import difflib
import json
import re
import subprocess
import sys

MODULE_PREFIX = re.compile(r"(?<![\w.])(?:Swift|AssetSync)\.")
# What every declaration has or that tells a caller nothing, left out of the lines (not of the check).
IMPLIED_CONFORMANCES = {"Copyable", "Escapable", "SendableMetatype"}
SILENT_ATTRIBUTES = {"HasStorage", "HasInitialValue", "Implements", "Semantics"}

ACCEPT = (
    "If the change is intended, accept it with `make api-baseline` and commit api/AssetSync.json "
    "with the change that made it."
)


def declarations(root):
    """(depth, node) for every declaration under `root`, in the dump's order; accessors belong to their variable."""
    found = []

    def walk(node, depth):
        for child in node.get("children", []):
            if "declKind" not in child or child["declKind"] == "Accessor":
                continue
            found.append((depth, child))
            walk(child, depth + 1)

    walk(root, 0)
    return found


def demangled(names):
    """Each mangled name demangled, in order, without the module names `Swift.` and `AssetSync.`
    before a qualified name (`AssetSync.AssetSync.pull(_: AssetSync.PullRequest…` reads
    `AssetSync.pull(_: PullRequest…`)."""
    if not names:
        return []
    out = subprocess.run(
        ["swift-demangle", "--compact"], input="\n".join(names) + "\n", capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    if len(out) != len(names):
        raise SystemExit("api-check: swift-demangle returned %d lines for %d names" % (len(out), len(names)))
    return [MODULE_PREFIX.sub("", line) for line in out]


def payload(element):
    """An enum case's associated values with their labels (`(path: String, size: Int64)`), or nothing.
    Its type is `(E.Type) -> (payload) -> E`, or `(E.Type) -> E` without one."""
    constructor = element["children"][0]["children"][0]
    if constructor["kind"] != "TypeFunc":
        return ""
    values = MODULE_PREFIX.sub("", constructor["children"][1]["printedName"])
    return values if values.startswith("(") else "(" + values + ")"


def lines(path):
    """One line per declaration of the dump at `path`, indented by its nesting."""
    with open(path) as file:
        root = json.load(file)["ABIRoot"]
    found = declarations(root)
    signatures = iter(demangled([node["mangledName"] for _, node in found if "mangledName" in node]))
    result = []
    for depth, node in found:
        kind = node["declKind"]
        if kind == "Import":
            text = "import " + node["name"]
        elif kind == "EnumElement":
            text = "case " + next(signatures).partition("(")[0] + payload(node)
        else:
            signature = next(signatures) if "mangledName" in node else node["printedName"]
            static, _, signature = signature.rpartition("static ")
            text = "%s%s %s" % ("static " if static or _ else "", kind.lower(), signature)
        accessors = [accessor.get("accessorKind", accessor["name"].lower()) for accessor in node.get("accessors", [])]
        if accessors:
            text += " { %s }" % " ".join(accessors)
        conformances = [c["name"] for c in node.get("conformances", []) if c["name"] not in IMPLIED_CONFORMANCES]
        if conformances:
            text += " : " + ", ".join(sorted(conformances))
        if kind in ("Func", "Constructor", "Subscript"):
            labels = node["printedName"].partition("(")[2].rstrip(")").split(":")[:-1]
            defaults = [label for label, parameter in zip(labels, node.get("children", [])[1:]) if parameter.get("hasDefaultArg")]
            if defaults:
                text += "  [defaults: %s]" % ", ".join(label + ":" for label in defaults)
        attributes = [attribute for attribute in node.get("declAttributes", []) if attribute not in SILENT_ATTRIBUTES]
        if attributes:
            text = " ".join("@" + attribute for attribute in attributes) + " " + text
        result.append("    " * depth + text)
    return result


def main(baseline, dump):
    try:
        with open(baseline, "rb") as file:
            expected = file.read()
    except FileNotFoundError:
        print("api-check: there is no baseline at %s. Make it with `make api-baseline` and commit it." % baseline)
        return 1
    with open(dump, "rb") as file:
        actual = file.read()
    if expected == actual:
        print("api-check: AssetSync's public API matches %s." % baseline)
        return 0

    print("api-check: AssetSync's public API differs from %s (this build's is %s)." % (baseline, dump))
    diagnosis = subprocess.run(
        ["swift-api-digester", "-diagnose-sdk", "-input-paths", baseline, "-input-paths", dump],
        capture_output=True, text=True,
    )
    breaking = [
        line for line in (diagnosis.stdout + diagnosis.stderr).splitlines()
        if line.strip() and not line.startswith("/*")
    ]
    print()
    print("Breaking changes, as swift-api-digester -diagnose-sdk sees them (it misses some, such as a renamed label):")
    for line in breaking or ["none found"]:
        print("  " + line)

    before, after = lines(baseline), lines(dump)
    print()
    if before != after:
        print("Declarations (- in the baseline only, + in this build only):")
        for line in difflib.unified_diff(before, after, n=0, lineterm=""):
            if not line.startswith(("---", "+++", "@@")):
                print("  " + line)
    else:
        print("The declarations read the same; the dumps differ in:")
        expected_lines = expected.decode().splitlines()
        actual_lines = actual.decode().splitlines()
        shown = list(difflib.unified_diff(expected_lines, actual_lines, baseline, dump, n=2, lineterm=""))
        for line in shown[:80]:
            print("  " + line)
        if len(shown) > 80:
            print("  … %d more lines: diff %s %s" % (len(shown) - 80, baseline, dump))
    print()
    print(ACCEPT)
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: api/check.py BASELINE DUMP")
    sys.exit(main(sys.argv[1], sys.argv[2]))
