#!/usr/bin/env python3
"""`make api-dump`: keeps only the public declarations in a swift-api-digester dump, in place.

    api/public_only.py DUMP

The digester lists `package` declarations too (marked `isInternal`): the AssetSync module's package
side, which only the command line in this package may use, is not its API, so it is left out of
the dump that `make api-check` compares with the baseline.
"""

import json
import sys


def prune(node):
    children = node.get("children")
    if children is not None:
        node["children"] = [prune(child) for child in children if not child.get("isInternal", False)]
    return node


def main(path):
    with open(path, encoding="utf-8") as file:
        dump = json.load(file)
    prune(dump["ABIRoot"])
    with open(path, "w", encoding="utf-8") as file:
        json.dump(dump, file, indent=2, ensure_ascii=False)
        file.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])
