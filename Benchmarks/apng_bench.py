#!/usr/bin/env python3
"""APNG output against the paths users take today (issue 49, item 2): bytes and wall time of

  gifx convert in.gif -o out.apng
  ffmpeg -i in.gif -plays 0 -f apng out.png
  apngasm out.png frame0000.png ... (Debian's apngasm 2.91, default compression; frames and their delays as
  the GIF's composited canvases from gifx frames, each delay in a frameNNNN.txt; only apngasm itself is timed)

Usage: apng_bench.py GIFX_BINARY OUT_DIR GIF... (each tool run `--repeats` times, the best time kept; every gifx
output is checked with `gifx verify`). Prints a Markdown table.
"""

import argparse
import json
import os
import shutil
import subprocess
import time


def best_time(command, repeats, env=None):
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        elapsed = time.perf_counter() - start
        best = elapsed if best is None else min(best, elapsed)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("gifx")
    parser.add_argument("out")
    parser.add_argument("gifs", nargs="+")
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--no-apngasm", action="store_true")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    apngasm = None if args.no_apngasm else shutil.which("apngasm")
    rows = []
    for gif in args.gifs:
        name = os.path.splitext(os.path.basename(gif))[0]
        ours = os.path.join(args.out, name + ".apng")
        theirs = os.path.join(args.out, name + ".ffmpeg.png")
        gifx_s = best_time([args.gifx, "convert", gif, "-o", ours, "--overwrite"], args.repeats)
        verify = subprocess.run([args.gifx, "verify", gif, ours], capture_output=True, text=True)
        ffmpeg_s = best_time(
            ["ffmpeg", "-y", "-v", "error", "-i", gif, "-plays", "0", "-f", "apng", theirs], args.repeats)
        row = {
            "gif": name, "gifx_bytes": os.path.getsize(ours), "gifx_s": gifx_s, "verified": verify.returncode == 0,
            "ffmpeg_bytes": os.path.getsize(theirs), "ffmpeg_s": ffmpeg_s,
        }
        if apngasm:
            frames = os.path.join(args.out, name + "-frames")
            shutil.rmtree(frames, ignore_errors=True)
            os.makedirs(frames)
            subprocess.run([args.gifx, "frames", gif, "--out", frames], check=True, stdout=subprocess.DEVNULL)
            timeline = json.loads(subprocess.run(
                [args.gifx, "timeline", gif, "--json"], check=True, capture_output=True, text=True).stdout)
            pngs = sorted(f for f in os.listdir(frames) if f.endswith(".png"))
            for png, frame in zip(pngs, timeline["frames"]):
                with open(os.path.join(frames, png[:-4] + ".txt"), "w") as text:
                    text.write(f"delay={frame['delay']}/100\n")
            asm_out = os.path.join(args.out, name + ".apngasm.png")
            row["apngasm_s"] = best_time(
                [apngasm, asm_out] + [os.path.join(frames, p) for p in pngs] + ["/l0"], args.repeats)
            row["apngasm_bytes"] = os.path.getsize(asm_out)
        rows.append(row)
        print(json.dumps(row), flush=True)
    print()
    print("| GIF | gifx bytes | ffmpeg bytes | gifx/ffmpeg | apngasm bytes | gifx/apngasm | gifx s | ffmpeg s | apngasm s | verify |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for r in rows:
        asm_bytes = r.get("apngasm_bytes")
        print(
            f"| {r['gif']} | {r['gifx_bytes']:,} | {r['ffmpeg_bytes']:,} | {r['gifx_bytes'] / r['ffmpeg_bytes']:.2f} | "
            + (f"{asm_bytes:,} | {r['gifx_bytes'] / asm_bytes:.2f} | " if asm_bytes else "– | – | ")
            + f"{r['gifx_s']:.2f} | {r['ffmpeg_s']:.2f} | "
            + (f"{r['apngasm_s']:.2f} | " if asm_bytes else "– | ")
            + ("ok" if r["verified"] else "FAILED") + " |")


if __name__ == "__main__":
    main()
