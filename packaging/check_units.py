#!/usr/bin/env python3
"""make check-units (issue 57): no time literal in arithmetic outside the time type's file.

A duration that is a bare integer carries no unit, and code that multiplies it by the wrong constant declares ten
times its length (a WebP's milliseconds read as centiseconds: VideoPlan at ec802e3). Time conversions belong in
Sources/Timeline/MediaTime.swift. This check finds every Swift line outside it where 10, 100, 1000, 10_000 or
1_000_000 multiplies or divides (or is multiplied or divided by) something, and fails on each that
packaging/units-allowlist.txt does not name. An allowlist entry is `path | fragment | reason`: the line in that
file containing the fragment is allowed, for the reason given (a GIF's centiseconds where the format or a schema
really means them, a value that is no time at all, a wall clock). An entry that no longer matches any line fails
too, so the list stays true. Comments are skipped.

Usage: check_units.py [--root DIR] [--allowlist FILE]. Exit 0: clean; 1: findings, one line each.
"""

import argparse
import os
import re
import sys

LITERAL = r"(?:10|100|1000|10_000|1_000_000)"
ARITHMETIC = re.compile(rf"(?:[*/]\s*{LITERAL}(?![\w.]))|(?:(?<![\w.]){LITERAL}\s*[*/](?!/))")
TIME_TYPE = os.path.join("Sources", "Timeline", "MediaTime.swift")


def findings(root):
    """(path, line number, stripped line) of every literal in arithmetic, comments and the time type's file excluded."""
    found = []
    sources = os.path.join(root, "Sources")
    for folder, _, files in os.walk(sources):
        for name in sorted(files):
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            if relative == TIME_TYPE:
                continue
            with open(path, encoding="utf-8") as f:
                for number, line in enumerate(f, 1):
                    if line.strip().startswith("//"):
                        continue
                    code = line if "\"" in line else line.split("//", 1)[0]  # a trailing comment (none in a string)
                    if ARITHMETIC.search(code):
                        found.append((relative, number, line.strip()))
    return found


def allowlist(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.rstrip("\n").split(" | ")]
            if len(parts) != 3 or not all(parts):
                raise SystemExit(f"check-units: {path}:{number}: want 'path | fragment | reason'")
            entries.append((parts[0], parts[1], number))
    return entries


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--root", default=os.path.dirname(here))
    parser.add_argument("--allowlist", default=os.path.join(here, "units-allowlist.txt"))
    args = parser.parse_args()
    entries = allowlist(args.allowlist)
    used = set()
    bad = []
    for relative, number, text in findings(args.root):
        match = next((e for e in entries if e[0] == relative and e[1] in text), None)
        if match:
            used.add(match)
        else:
            bad.append(f"check-units: {relative}:{number}: a time literal in arithmetic outside MediaTime: {text}")
    for entry in entries:
        if entry not in used:
            bad.append(f"check-units: {args.allowlist}:{entry[2]}: allows '{entry[1]}' in {entry[0]}, which no line has")
    for line in bad:
        print(line)
    total = len(findings(args.root))
    print(f"check-units: {'ok' if not bad else 'FAILED'}: {total} lines with a literal in arithmetic, "
          f"{len(entries)} allowed, {len(bad)} findings")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
