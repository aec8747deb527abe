#!/usr/bin/env python3
"""Real WebP and APNG files tried as a new user would (issue 35; run by hand, not by CI).

For every WebP and PNG/APNG under FOLDER (found by content): `gifx to-mp4`, `gifx timeline --json` and
`gifx to-sprite`, each must exit 0 with its output, or 65 with exactly one line on stderr and nothing
written; any other exit (a signal above all) is a failure. Prints one row per file (markdown with
--markdown) and "N passed, F failed". Used on files fetched from other projects' test folders
(docs/conformance.md lists them).
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile


def sniff(path):
    with open(path, "rb") as f:
        head = f.read(200)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp (animated)" if b"ANIM" in head else "webp (still)"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        with open(path, "rb") as f:
            return "apng" if b"acTL" in f.read() else "png (still)"
    return None


def one(gifx, path, work):
    result = {"exits": {}, "problems": [], "message": ""}
    outputs = {
        "to-mp4": ([gifx, "to-mp4", path, "-o", os.path.join(work, "o.mp4"), "--quiet"], ["o.mp4"]),
        "timeline": ([gifx, "timeline", path, "--json"], []),
        "to-sprite": ([gifx, "to-sprite", path, "-o", os.path.join(work, "s.png"), "--json",
                       os.path.join(work, "s.json"), "--quiet"], ["s.png", "s.json"]),
    }
    for name, (cmd, files) in outputs.items():
        for f in os.listdir(work):
            os.remove(os.path.join(work, f))
        p = subprocess.run(cmd, capture_output=True, timeout=600)
        err = p.stderr.decode(errors="replace").strip()
        result["exits"][name] = p.returncode
        if p.returncode == 0:
            missing = [f for f in files if not os.path.exists(os.path.join(work, f))]
            if missing:
                result["problems"].append(f"{name}: exit 0 without {missing}")
            if name == "timeline":
                try:
                    doc = json.loads(p.stdout)
                    result["frames"] = len(doc["frames"])
                    result["duration_s"] = doc["duration"]["seconds"]
                except (ValueError, KeyError):
                    result["problems"].append("timeline: unreadable JSON")
            if "warning" in err and not result["message"]:
                result["message"] = err.splitlines()[0].split(": warning: ", 1)[-1]
        elif p.returncode == 65:
            if len(err.splitlines()) != 1:
                result["problems"].append(f"{name}: exit 65 with {len(err.splitlines())} lines")
            left = [f for f in os.listdir(work)]
            if left:
                result["problems"].append(f"{name}: exit 65 left {left}")
            result["message"] = err.split(": ", 1)[-1]
        else:
            result["problems"].append(f"{name}: exit {p.returncode}: {err[-200:]}")
    if len(set(result["exits"].values())) != 1:
        result["problems"].append(f"exits differ: {result['exits']}")
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folder")
    ap.add_argument("--gifx", default=".build/debug/gifx")
    ap.add_argument("--markdown")
    args = ap.parse_args()
    files = []
    for root, _, names in os.walk(args.folder):
        for name in sorted(names):
            path = os.path.join(root, name)
            kind = sniff(path)
            if kind:
                files.append((path, kind))
    files.sort()
    work = tempfile.mkdtemp(prefix="gifx-try-")
    rows = []
    try:
        for path, kind in files:
            r = one(args.gifx, path, work)
            rel = os.path.relpath(path, args.folder)
            rows.append((rel, kind, r))
            print(f"{'FAIL' if r['problems'] else 'ok':4} {rel} [{kind}] exits {sorted(set(r['exits'].values()))} "
                  f"{r.get('frames', '')} frames {r.get('duration_s', '')} s {r['message'][:100]}"
                  + "".join(f"\n     problem: {p}" for p in r["problems"]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = sum(1 for *_, r in rows if r["problems"])
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("| file | kind | exit (to-mp4, timeline, to-sprite) | frames | duration s | result |\n"
                    "|---|---|---|---|---|---|\n")
            for rel, kind, r in rows:
                e = r["exits"]
                res = ("FAIL: " + "; ".join(r["problems"])) if r["problems"] else "ok"
                if r["message"]:
                    res += f" ({r['message']})"
                f.write(f"| {rel} | {kind} | {e.get('to-mp4')}, {e.get('timeline')}, {e.get('to-sprite')} | "
                        f"{r.get('frames', '–')} | {r.get('duration_s', '–')} | {res.replace('|', '/')} |\n")
    print(f"{len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
