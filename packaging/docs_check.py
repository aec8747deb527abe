#!/usr/bin/env python3
"""make docs (issue 58): the docs name only what exists, and every environment variable the code reads has one entry.

Rules, each failure one line `docs-check: FILE:LINE: ...`:

1. Paths. Every repository path named in docs/*.md and README.md (a word starting with Sources/, Tests/, Fuzz/,
   packaging/, Benchmarks/, docs/ or Examples/; `*` is a glob; a `:36-77` line suffix is not part of it) and
   every relative Markdown link `[text](target)` exists. A path git ignores (`git check-ignore`: an output a
   command shown in the doc makes, such as Examples/bouncing-ball.mp4) is not checked.
2. Foreign and absent paths. Paths in other projects' trees (Pillow's `Tests/images/apng/`, APNGKit's
   `Tests/APNGKitTests/...`) and folders made at run time are marked with an HTML comment, invisible when rendered:
   - `<!-- docs-check: foreign PROJECT -->` or `<!-- docs-check: absent WHY -->` at the end of a line: that
     line's paths are not checked;
   - the same comment alone on a line: nothing is checked from there to the next heading, or, where the next
     line opens a fenced code block, in that block only (a transcript of an older commit's files).
   A path written after a project's name and a slash or colon (`FFmpeg/libavcodec/...`, `Pillow:Tests/...`) is
   not taken for ours either.
3. Make targets. Every `make TARGET` in inline code or a fenced code block of docs/*.md and README.md
   (`VAR=value` and `-flags` before the target skipped) is a target of the Makefile (rules parsed from it).
4. Docs named in Sources. Every `docs/NAME` that Sources/ (Swift, C, headers: comments and strings) names exists.
   A section named beside a doc, `docs/NAME.md, "Title"` or `docs/NAME.md ("Title"`, in Sources/, docs/*.md or
   the README, is a heading of that doc, or a bold run-in heading (`**Title.**`), containing Title (case and
   backticks aside).
5. Environment variables. Every variable Sources/ reads or sets (a string literal in UPPER_CASE with an
   underscore, such as "GIFX_REPEATS", or the name in getenv/setenv/unsetenv/environment[...]/
   EnvironmentVariable.value(...)/environment(...), such as "TMPDIR") is documented exactly once: one row of
   a table in docs/environment.md whose first cell names it in backticks (`NAME` or `NAME=value`). Other docs
   may mention a variable and link there; they do not define it. A row naming a variable that nothing in
   Sources/, Tests/, Fuzz/, Benchmarks/, packaging/, Examples/, .ci/ or the Makefile mentions is stale and fails.
6. The map. docs/architecture.md is one screen: at most 60 lines, each at most 100 characters.

Usage: docs_check.py [--root DIR]. Exit 0: clean; 1: findings, one line each, then a summary line.
"""

import argparse
import glob
import os
import re
import subprocess
import sys

OURS = ("Sources", "Tests", "Fuzz", "packaging", "Benchmarks", "docs", "Examples")
# A path of ours: not inside a longer word or path (a project prefix `Pillow/` or `Pillow:` makes it foreign).
PATH = re.compile(r"(?<![\w/.:@$-])((?:%s)/[A-Za-z0-9_.*/+@{},-]*)" % "|".join(OURS))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
MARK = re.compile(r"<!--\s*docs-check:\s*(foreign|absent)\b[^>]*-->")
HEADING = re.compile(r"^#{1,6}\s")
INLINE_CODE = re.compile(r"`([^`]+)`")
MAKE = re.compile(
    r"(?:^|[\s;&|(])make((?:\s+(?:-[A-Za-z-]+|[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S+)))*)\s+([a-z][a-z0-9_.-]*)")
ENV_FILE = os.path.join("docs", "environment.md")
ENV_LITERAL = re.compile(r"\"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\"")
ENV_CALL = re.compile(
    r"(?:getenv|setenv|unsetenv|EnvironmentVariable\.value|environment)\s*[(\[]\s*\"([A-Z][A-Z0-9_]*)\"")
ENV_ROW_NAME = re.compile(r"`([A-Z][A-Z0-9_]*[A-Z0-9])(?:=[^`]*)?`")
MENTION_FOLDERS = ("Sources", "Tests", "Fuzz", "Benchmarks", "packaging", "Examples", ".ci")


def doc_files(root):
    files = sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    readme = os.path.join(root, "README.md")
    return files + ([readme] if os.path.exists(readme) else [])


def ignored(root, paths):
    """The paths among `paths` that git ignores under `root` (none when `root` is not a work tree)."""
    if not paths:
        return set()
    try:
        run = subprocess.run(["git", "-C", root, "check-ignore", "--no-index", "--stdin"], input="\n".join(paths),
                             capture_output=True, text=True)
    except OSError:
        return set()
    return set(run.stdout.split()) if run.returncode in (0, 1) else set()


def exists(root, path):
    path = path.rstrip("/")
    if any(c in path for c in "*{"):
        for pattern in expand_braces(path):
            if glob.glob(os.path.join(root, pattern)):
                return True
        return False
    return os.path.exists(os.path.join(root, path))


def expand_braces(pattern):
    match = re.search(r"\{([^{}]*)\}", pattern)
    if not match:
        return [pattern]
    return [p for alternative in match.group(1).split(",")
            for p in expand_braces(pattern[:match.start()] + alternative + pattern[match.end():])]


def checked_lines(path):
    """(line number, text, in a fenced block) of each line whose paths are checked: marked lines and regions left out."""
    lines = []
    region = None  # "heading": left out up to the next heading; "block": up to the end of the next fenced block
    fenced = False
    previous_mark = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("```"):
                if previous_mark and not fenced:
                    region = "block"
                fenced = not fenced
                previous_mark = False
                if not fenced and region == "block":
                    region = None
                continue
            if not fenced and HEADING.match(line):
                region = None
            mark = MARK.search(line)
            previous_mark = bool(mark) and MARK.sub("", line).strip() == ""
            if previous_mark:
                region = "heading"
                continue
            if region or mark:
                continue
            lines.append((number, line, fenced))
    return lines


def check_paths(root, findings):
    named = []  # (doc, line number, path)
    for doc in doc_files(root):
        relative_doc = os.path.relpath(doc, root)
        for number, line, _ in checked_lines(doc):
            for match in PATH.finditer(line):
                path = match.group(1).rstrip(".,:;)")
                if path.endswith("..."):
                    path = path[:-3]
                named.append((relative_doc, number, path))
            for match in LINK.finditer(line):
                target = match.group(1).split("#", 1)[0]
                if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # an anchor in the same page, or a URL
                path = os.path.normpath(os.path.join(os.path.dirname(relative_doc), target))
                named.append((relative_doc, number, path))
    missing = [(d, n, p) for d, n, p in named if not exists(root, p)]
    skip = ignored(root, sorted({p.rstrip("/") for _, _, p in missing}))
    for doc, number, path in missing:
        if path.rstrip("/") not in skip:
            findings.append(f"{doc}:{number}: names {path}, which does not exist")
    return len(named)


def makefile_targets(root):
    targets = set()
    with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
        for line in f:
            if line.startswith(("\t", "#", " ")):
                continue
            match = re.match(r"^([A-Za-z0-9_.%/ -]+?)\s*::?(?![=])", line)
            if match and not re.match(r"^\s*[A-Za-z0-9_]+\s*[:?+]?=", line):
                targets.update(t for t in match.group(1).split() if not t.startswith("."))
    return targets


def check_make_targets(root, findings):
    targets = makefile_targets(root)
    count = 0
    for doc in doc_files(root):
        relative_doc = os.path.relpath(doc, root)
        for number, line, fenced in checked_lines(doc):
            spans = [line.split(" # ", 1)[0]] if fenced else INLINE_CODE.findall(line)
            for span in spans:
                for match in MAKE.finditer(span):
                    count += 1
                    if match.group(2) not in targets:
                        findings.append(f"{relative_doc}:{number}: names `make {match.group(2)}`, "
                                        f"which is no target of the Makefile")
    return count


def source_files(root, extensions=(".swift", ".c", ".h")):
    for folder, _, files in os.walk(os.path.join(root, "Sources")):
        for name in sorted(files):
            if name.endswith(extensions):
                yield os.path.join(folder, name)


def check_docs_in_sources(root, findings):
    count = 0
    for path in source_files(root):
        relative = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if "docs/" not in line:
                    continue
                for match in re.finditer(r"(?<![\w/.-])(docs/[A-Za-z0-9_./-]*[A-Za-z0-9_])", line):
                    count += 1
                    if not exists(root, match.group(1)):
                        findings.append(f"{relative}:{number}: names {match.group(1)}, which does not exist")
    return count


SECTION = re.compile(r"(?<![\w/.-])(docs/[\w.-]+\.md)(?:,\s*|\s*\()\"([^\"]+)\"")
_headings = {}


def headings(root, doc):
    """The headings and bold run-in headings of `doc`, lowercased and without backticks; None when it is missing."""
    if doc not in _headings:
        path = os.path.join(root, doc)
        if not os.path.exists(path):
            _headings[doc] = None
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            titles = [re.sub(r"^#+\s*", "", line) for line in text.splitlines() if HEADING.match(line)]
            titles += re.findall(r"\*\*([^*]+)\*\*", text)
            _headings[doc] = [t.replace("`", "").strip().lower() for t in titles]
    return _headings[doc]


def check_sections(root, findings):
    count = 0
    files = list(source_files(root)) + doc_files(root)
    for path in files:
        relative = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if "docs/" not in line:
                    continue
                for match in SECTION.finditer(line):
                    titles = headings(root, match.group(1))
                    if titles is None:
                        continue  # the missing doc is reported by the path rules
                    count += 1
                    wanted = match.group(2).replace("`", "").strip().lower()
                    if not any(wanted in title for title in titles):
                        findings.append(f"{relative}:{number}: names the section \"{match.group(2)}\" of "
                                        f"{match.group(1)}, which has no such heading")
    return count


def variables_read(root):
    """{name: first place} of every environment variable Sources reads or sets, comments left out."""
    found = {}
    for path in source_files(root):
        relative = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                stripped = line.strip()
                if stripped.startswith(("//", "/*", "*")):
                    continue
                head, _, tail = line.partition("//")
                code = head if "\"" not in tail else line  # a trailing comment (none inside a string)
                for name in ENV_LITERAL.findall(code) + ENV_CALL.findall(code):
                    found.setdefault(name, f"{relative}:{number}")
    return found


def documented_rows(root):
    """[(name, line number)] of every table row of docs/environment.md, by the names its first cell gives."""
    rows = []
    path = os.path.join(root, ENV_FILE)
    if not os.path.exists(path):
        return rows
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.startswith("|") or re.match(r"^\|[\s|:-]*$", line):
                continue
            first = line.split("|")[1]
            for name in ENV_ROW_NAME.findall(first):
                rows.append((name, number))
    return rows


def mentioned_anywhere(root, names):
    """The names among `names` that the code, tests, tools, CI or the Makefile mention (as a whole word)."""
    word = re.compile(r"\b[A-Z][A-Z0-9_]*[A-Z0-9]\b")
    seen = set()
    paths = [os.path.join(root, "Makefile")]
    for top in MENTION_FOLDERS:
        for folder, folders, files in os.walk(os.path.join(root, top)):
            folders[:] = [f for f in folders if not f.startswith(".build") and f != "out"]
            paths += [os.path.join(folder, name) for name in files]
    for path in paths:
        if not os.path.isfile(path) or os.path.getsize(path) > 2_000_000:
            continue
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                seen.update(names.intersection(word.findall(f.read())))
        except OSError:
            continue
    return seen


def check_environment(root, findings):
    read = variables_read(root)
    rows = documented_rows(root)
    by_name = {}
    for name, number in rows:
        by_name.setdefault(name, []).append(number)
    for name, where in sorted(read.items()):
        lines = by_name.get(name, [])
        if not lines:
            findings.append(f"{where}: reads the environment variable {name}, which {ENV_FILE} has no row for")
    for name, lines in sorted(by_name.items()):
        if len(lines) > 1:
            findings.append(f"{ENV_FILE}:{lines[1]}: {name} has {len(lines)} rows (lines "
                            f"{', '.join(map(str, lines))}); one defines it")
    stale = set(by_name) - mentioned_anywhere(root, set(by_name))
    for name in sorted(stale):
        findings.append(f"{ENV_FILE}:{by_name[name][0]}: documents {name}, which nothing reads or sets")
    return len(read), len(by_name)


MAP = os.path.join("docs", "architecture.md")
MAP_LINES, MAP_COLUMNS = 60, 100


def check_map(root, findings):
    path = os.path.join(root, MAP)
    if not os.path.exists(path):
        return
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    if len(lines) > MAP_LINES:
        findings.append(f"{MAP}: {len(lines)} lines, more than the {MAP_LINES} of one screen (move detail to a topic doc)")
    for number, line in enumerate(lines, 1):
        if len(line) > MAP_COLUMNS:
            findings.append(f"{MAP}:{number}: {len(line)} columns, more than {MAP_COLUMNS}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    findings = []
    paths = check_paths(root, findings)
    targets = check_make_targets(root, findings)
    cited = check_docs_in_sources(root, findings)
    sections = check_sections(root, findings)
    read, rows = check_environment(root, findings)
    check_map(root, findings)
    for line in findings:
        print(f"docs-check: {line}")
    print(f"docs-check: {'ok' if not findings else 'FAILED'}: {paths} paths and {targets} make commands in "
          f"{len(doc_files(root))} docs, {cited} docs named in Sources, {sections} sections named, "
          f"{read} environment variables read "
          f"({rows} documented in {ENV_FILE}); {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
