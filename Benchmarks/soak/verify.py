"""Checks a finished soak (Benchmarks/soak/run.sh) against its manifest, independently of gifx:
- every good GIF has OUT/<name>.mp4 that ffprobe decodes to the end, with as many frames as the GIF's
  total delay (from the manifest) at the stream's frame rate (±1), and that duration;
- no other file under a real name (nothing half-written), no hidden temporary left;
- every damaged / hang-prone / memory-hungry GIF's last report line has status failed (malformed) /
  timeout / memory;
then prints the figures for docs/reliability.md.
"""

import argparse
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

EXPECTED_STATUS = {"damaged": ("failed",), "hang": ("timeout",), "hungry": ("memory",)}


def probe(path):
    out = subprocess.run(
        ["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
         "-show_entries", "stream=nb_read_frames,r_frame_rate,duration", "-of", "json", path],
        capture_output=True, text=True)
    if out.returncode != 0 or out.stderr.strip():
        return None, out.stderr.strip() or f"ffprobe exit {out.returncode}"
    stream = json.loads(out.stdout)["streams"][0]
    return stream, None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("soak")
    parser.add_argument("--runs", type=int, default=0)
    parser.add_argument("--kills", type=int, default=0)
    parser.add_argument("--seconds", type=float, default=0)
    args = parser.parse_args()
    soak = args.soak
    manifest = json.load(open(os.path.join(soak, "manifest.json")))
    out = os.path.join(soak, "out")
    inp = os.path.join(soak, "in")

    last = {}
    lines = 0
    with open(os.path.join(soak, "report.jsonl")) as f:
        for raw in f:
            lines += 1
            line = json.loads(raw)          # a torn line would raise here: the report must hold whole lines
            name = os.path.relpath(line["input"], inp)
            last[name] = line
    problems = []

    def check_good(item):
        name, entry = item
        mp4 = os.path.join(out, name[:-4] + ".mp4")
        if not os.path.exists(mp4):
            return f"{name}: no output"
        stream, error = probe(mp4)
        if error:
            return f"{name}: ffprobe: {error}"
        rate = Fraction(stream["r_frame_rate"])
        seconds = Fraction(entry["centiseconds"], 100)
        frames = int(stream["nb_read_frames"])
        expected = seconds * rate
        if abs(frames - expected) > 1:
            return f"{name}: {frames} frames, expected {float(expected):.1f} ({entry['centiseconds']} cs at {rate} fps)"
        return None

    goods = [(n, e) for n, e in manifest.items() if e["kind"] == "good"]
    with ThreadPoolExecutor(max_workers=2) as pool:
        for problem in pool.map(check_good, goods):
            if problem:
                problems.append(problem)

    expected_names = {n[:-4] + ".mp4" for n, e in goods}
    real, hidden = [], []
    for folder, _, files in os.walk(out):
        for file in files:
            rel = os.path.relpath(os.path.join(folder, file), out)
            (hidden if file.startswith(".") else real).append(rel)
    unexpected = sorted(set(real) - expected_names)
    for rel in unexpected:
        problems.append(f"{rel}: a file under a real name that no good GIF should produce")
    for rel in hidden:
        problems.append(f"{rel}: hidden temporary left")

    by_kind = {}
    for name, entry in manifest.items():
        kind = entry["kind"]
        by_kind[kind] = by_kind.get(kind, 0) + 1
        line = last.get(name)
        if kind == "good":
            if line is None or line["status"] not in ("ok", "skipped"):
                problems.append(f"{name}: good, last report line {line and line['status']}: {line and line['error']}")
            continue
        if line is None:
            problems.append(f"{name}: {kind}, no report line")
        elif line["status"] not in EXPECTED_STATUS[kind]:
            problems.append(f"{name}: {kind}, status {line['status']} ({line['error']})")
        elif kind == "damaged" and line.get("exitClass") != "malformed":
            problems.append(f"{name}: damaged, exitClass {line.get('exitClass')} ({line['error']})")

    removed = 0
    stderr = os.path.join(soak, "stderr.log")
    if os.path.exists(stderr):
        for text in open(stderr, errors="replace"):
            if "removed " in text and "temporary file" in text:
                removed += int(text.split("removed ")[1].split(" ")[0])
    statuses = {}
    for line in last.values():
        statuses[line["status"]] = statuses.get(line["status"], 0) + 1
    print(f"inputs: {len(manifest)} ({', '.join(f'{v} {k}' for k, v in sorted(by_kind.items()))})")
    print(f"runs: {args.runs} ({args.kills} ended by SIGKILL), total {args.seconds:.0f} s")
    print(f"report: {lines} lines; last status per input: {json.dumps(statuses, sort_keys=True)}")
    print(f"good outputs checked with ffprobe: {len(goods)}")
    print(f"hidden temporaries removed by reruns: {removed}; left at the end: {len(hidden)}")
    print(f"problems: {len(problems)}")
    for problem in problems[:50]:
        print("  " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
