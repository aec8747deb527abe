#!/usr/bin/env python3
"""Bytes at matched SSIM less the constant-rate floor, from a `quality_bench.py` results file (issue 56).

gifx's default writes the GIF's exact schedule at a constant rate: a picture held for several ticks is followed by
repeat samples. The recipe it is measured against does not pay for those. Its MP4 is at the rate the ffmpeg CLI
guesses, inexact in time, and its VP9 WebM is at a variable rate. The floor is:
- the repeat pictures' bytes as `--stats` counts them (`pictures.repeatBytes`, at the default `crf`);
- each repeat sample's container bytes: MP4 a 4-byte `stsz` entry, WebM a 6-byte SimpleBlock header.
For each opaque GIF this prints (bytes at matched SSIM − floor) / recipe bytes, against the plain recipe and the
recipe in BT.709, and the medians and largest.

    python3 Benchmarks/quality_floor.py --codec av1 --results quality.json --gifx .build/release/gifx --real DIR
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile

CONTAINER_BYTES = {"webm": 6, "mp4": 4}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--codec", required=True, choices=["h264", "hevc", "vp9", "av1"])
    p.add_argument("--results", required=True, help="quality_bench.py's JSON for this codec")
    p.add_argument("--gifx", default=".build/release/gifx")
    p.add_argument("--real", required=True, help="folder with the GIFs by name.gif")
    args = p.parse_args()
    ext = "webm" if args.codec == "vp9" else "mp4"
    columns = {"matched_ratio": ([], []), "matched_ratio_709": ([], [])}
    with tempfile.TemporaryDirectory() as work:
        for row in json.load(open(args.results))["rows"]:
            if "default" not in row or not row["recipe"].get("opaque"):
                continue
            out = os.path.join(work, f"out.{ext}")
            run = subprocess.run(
                [args.gifx, "convert", os.path.join(args.real, row["gif"] + ".gif"), "-o", out, "--overwrite",
                 "--stats", "--quiet", "--codec", args.codec], capture_output=True, text=True, check=True)
            pictures = json.loads(run.stdout)["outputs"][0].get("pictures", {})
            repeats = pictures.get("repeats", 0)
            floor = pictures.get("repeatBytes", 0) + repeats * CONTAINER_BYTES[ext]
            cells = []
            for key, recipe in (("matched_ratio", "recipe"), ("matched_ratio_709", "recipe709")):
                ratio = row.get(key)
                if not ratio:
                    cells.append("out of range")
                    continue
                less = (ratio * row[recipe]["bytes"] - floor) / row[recipe]["bytes"]
                columns[key][0].append(ratio)
                columns[key][1].append(less)
                cells.append(f"{ratio:.2f}x -> {less:.2f}x")
            print(f"{row['gif']:32} repeats {repeats:5} floor {floor:7} B   " + "   ".join(cells), flush=True)
    for key, label in (("matched_ratio", "plain recipe"), ("matched_ratio_709", "recipe in BT.709")):
        measured, less = columns[key]
        if measured:
            print(f"{label}: median {statistics.median(measured):.3f}x -> {statistics.median(less):.3f}x, "
                  f"largest {max(measured):.2f}x -> {max(less):.2f}x ({len(measured)} GIFs)")


if __name__ == "__main__":
    main()
