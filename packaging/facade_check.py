#!/usr/bin/env python3
"""make facade-check (issue 58, item 5): the CLI and the service reach the conversion through GifxKit alone.

The command line (Sources/gifx) and `gifx serve` (Sources/Server) import GifxKit, whose public names and whose
`package` face (Sources/GifxKit/PackageFace.swift) are the one list of what they use of the conversion, and the
schedule's public product GifxTimeline. This check fails on every Swift line there that imports a module below the
facade: the conversion's internals (GifxEncoders, GifxPipeline, GifxChecks, GifxFrames) or the C libraries they wrap
(CAV, CX264, CWebP, CPng, CGif, CAvif). It also fails where Package.swift names one of them as a dependency of the
`gifx` or the `GifxServer` target: a module left out of a target's list can still be imported (SwiftPM finds every
module of the package), so both are checked. Utilities beside the conversion (GifxSystem, GifxPOSIXFiles,
ChildProcesses) are not the conversion and may be imported.

Usage: facade_check.py [--root DIR]. Exit 0: clean; 1: findings, one line each
(`facade-check: PATH:LINE: imports MODULE ...`).
"""

import argparse
import os
import re
import sys

# The folders above the facade, and the targets they are built as.
ABOVE = {os.path.join("Sources", "gifx"): "gifx", os.path.join("Sources", "Server"): "GifxServer"}
BELOW = ["GifxEncoders", "GifxPipeline", "GifxChecks", "GifxFrames", "CAV", "CX264", "CWebP", "CPng", "CGif", "CAvif"]
IMPORT = re.compile(r"^\s*(?:@[\w()]+\s+)*import\s+(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?(\w+)")


def imports(root):
    """(path, line number, module) of every import of a module below the facade in the folders above it."""
    found = []
    for folder in ABOVE:
        for directory, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(".swift"):
                    continue
                path = os.path.join(directory, name)
                with open(path, encoding="utf-8") as f:
                    for number, line in enumerate(f, 1):
                        match = IMPORT.match(line)
                        if match and match.group(1) in BELOW:
                            found.append((os.path.relpath(path, root), number, match.group(1)))
    return found


def dependencies(root):
    """(line number, target, module) of every module below the facade that Package.swift lists for a target above it."""
    found = []
    path = os.path.join(root, "Package.swift")
    if not os.path.exists(path):
        return found
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    targets = set(ABOVE.values())
    current = None  # the target whose declaration is open, and its bracket depth
    for number, line in enumerate(lines, 1):
        code = line.split("//", 1)[0]
        match = re.search(r'\.(?:executableTarget|target)\(\s*name:\s*"(\w+)"', code)
        if match is None and re.search(r"\.(?:executableTarget|target)\(\s*$", code):
            following = lines[number] if number < len(lines) else ""
            match = re.search(r'^\s*name:\s*"(\w+)"', following)
        if match:
            current = match.group(1) if match.group(1) in targets else None
        elif re.search(r"\.(?:testTarget|systemLibrary|executableTarget|target)\(", code):
            current = None
        if current:
            for module in re.findall(r'"(\w+)"', code):
                if module in BELOW:
                    found.append((number, current, module))
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    root = parser.parse_args().root
    problems = [f"facade-check: {path}:{line}: imports {module}, below the facade; name what it needs in "
                "Sources/GifxKit/PackageFace.swift and import GifxKit"
                for path, line, module in imports(root)]
    problems += [f"facade-check: Package.swift:{line}: the {target} target depends on {module}, below the facade "
                 "(GifxKit brings it in)" for line, target, module in dependencies(root)]
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("facade-check: Sources/gifx and Sources/Server import the conversion through GifxKit only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
