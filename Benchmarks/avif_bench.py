#!/usr/bin/env python3
"""AVIF input (issue 59): decode time against avifdec and the ffmpeg CLI, and the timing error of a conversion.

Inputs are made here (in a temporary folder, never committed) by avifenc 0.11 (`-s 10`, `end-usage=q`): frames of ffmpeg's
`testsrc2` pattern, 8-bit 4:2:0, at 25 fps, and one with alpha (4:4:4, the pattern's own alpha made by a
`geq` filter). Each file is decoded, every frame, writing nothing:

- gifx: `gifx frames X --null` (libavif + dav1d, each frame converted to RGBA8 by `avifImageYUVToRGB`);
- avifdec: `avifdec -j 2 --info X` (libavif + dav1d with 2 threads, as gifx gives it, decoding every frame; no RGB
  conversion, so a lower bound for what
  gifx does);
- ffmpeg CLI: `ffmpeg -i X -pix_fmt rgba -f null -` (the mov demuxer, libdav1d, swscale to RGBA).

The tools alternate; the table gives the median CPU time (user + system, of the process and its threads) and
wall time of `--reps` runs: on a shared, loaded machine the CPU time is the figure to compare. The timing part converts the issue's
4-frame 40/70/100/1000 ms file to MP4 with the ffmpeg CLI (default, and `-fps_mode passthrough`) and with
`gifx to-mp4 --vfr`, and reads every packet's start and the stream's duration back with ffprobe.

Standalone: `python3 Benchmarks/avif_bench.py --gifx .build/debug/gifx [--reps 5]`.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time


def run(arguments, **kwargs):
    return subprocess.run(arguments, check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kwargs)


def make_inputs(folder):
    files = {}
    for name, size, frames, alpha in [("480x270x100", "480x270", 100, False), ("1280x720x50", "1280x720", 50, False),
                                      ("480x270x100-alpha", "480x270", 100, True)]:
        frames_folder = os.path.join(folder, name)
        os.makedirs(frames_folder, exist_ok=True)
        filters = "format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='128+127*sin(X/20+N/5)'" if alpha else "format=rgb24"
        run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", f"testsrc2=size={size}:rate=25",
             "-frames:v", str(frames), "-vf", filters, os.path.join(frames_folder, "%04d.png")])
        pngs = sorted(os.path.join(frames_folder, f) for f in os.listdir(frames_folder))
        out = os.path.join(folder, name + ".avif")
        # end-usage=q: libaom 3.6 fails an assertion in its default (CBR) rate control on long sequences.
        run(["avifenc", "-s", "10", "-j", "2", "--fps", "25", "-a", "end-usage=q", "-a", "cq-level=30"]
            + (["-y", "444"] if alpha else ["-y", "420"]) + pngs
            + ["-o", out])
        files[name] = out
    # The file: 40, 70, 100 and 1000 ms at 1/1000 s.
    timing = os.path.join(folder, "timing")
    os.makedirs(timing, exist_ok=True)
    run(["ffmpeg", "-nostdin", "-v", "error", "-f", "lavfi", "-i", "testsrc2=size=64x64:rate=25", "-frames:v", "4",
         os.path.join(timing, "%d.png")])
    out = os.path.join(folder, "40-70-100-1000.avif")
    arguments = ["avifenc", "-s", "10", "--timescale", "1000"]
    for index, duration in enumerate([40, 70, 100, 1000], 1):
        arguments += ["--duration", str(duration), os.path.join(timing, f"{index}.png")]
    run(arguments + ["-o", out])
    return files, out


def decode_times(gifx, files, reps):
    tools = {
        "gifx": lambda f: [gifx, "frames", f, "--null", "--quiet"],
        "avifdec": lambda f: ["avifdec", "-j", "2", "--info", f],
        "ffmpeg": lambda f: ["ffmpeg", "-nostdin", "-v", "error", "-i", f, "-pix_fmt", "rgba", "-f", "null", "-"],
    }
    rows = []
    for name, path in files.items():
        times = {tool: [] for tool in tools}
        for rep in range(reps):
            order = list(tools) if rep % 2 == 0 else list(reversed(tools))
            for tool in order:
                before = resource.getrusage(resource.RUSAGE_CHILDREN)
                start = time.monotonic()
                run(tools[tool](path))
                wall = time.monotonic() - start
                after = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                times[tool].append((wall, cpu))
        rows.append((name, {tool: (statistics.median(w for w, _ in t), statistics.median(c for _, c in t))
                            for tool, t in times.items()}))
    return rows


def probe(path):
    packets = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time",
                   "-of", "csv=p=0", path]).stdout.decode().split()
    duration = run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "stream=duration",
                    "-of", "csv=p=0", path]).stdout.decode().strip()
    return sorted(float(p) for p in packets), float(duration)


def timing(gifx, avif, folder):
    wanted = [0.0, 0.04, 0.11, 0.21]
    results = []
    for label, arguments in [
        ("ffmpeg CLI (default)", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", avif]),
        ("ffmpeg CLI, -fps_mode passthrough", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", avif, "-fps_mode", "passthrough"]),
        ("gifx to-mp4 --vfr", [gifx, "to-mp4", avif, "--vfr", "--quiet", "--overwrite", "-o"]),
    ]:
        out = os.path.join(folder, label.split()[0] + str(len(results)) + ".mp4")
        run(arguments + [out])
        starts, duration = probe(out)
        # Frame starts compared one to one where the output has one packet per frame; else (duplicates) none.
        worst = max(abs(a - b) for a, b in zip(starts, wanted)) if len(starts) == len(wanted) else None
        results.append((label, len(starts), duration, worst, starts[:6]))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gifx", default=".build/debug/gifx")
    parser.add_argument("--reps", type=int, default=5)
    arguments = parser.parse_args()
    gifx = os.path.abspath(arguments.gifx)
    with tempfile.TemporaryDirectory(prefix="gifx-avif-bench-") as folder:
        files, avif = make_inputs(folder)
        print("| file | gifx frames --null | avifdec -j 2 --info | ffmpeg -pix_fmt rgba -f null | CPU: avifdec / gifx | CPU: ffmpeg / gifx |")
        print("|---|---|---|---|---|---|")
        for name, t in decode_times(gifx, files, arguments.reps):
            cells = " | ".join(f"{t[k][1]:.3f} s CPU ({t[k][0]:.3f} s wall)" for k in ["gifx", "avifdec", "ffmpeg"])
            print(f"| {name} | {cells} | {t['avifdec'][1] / t['gifx'][1]:.2f}× | {t['ffmpeg'][1] / t['gifx'][1]:.2f}× |")
        print()
        print("| conversion of 40/70/100/1000 ms (1.21 s) | packets | stream duration (error) | worst start error | first starts (s) |")
        print("|---|---|---|---|---|")
        for label, count, duration, worst, starts in timing(gifx, avif, folder):
            error = "n/a (duplicated frames)" if worst is None else f"{worst * 1000:.1f} ms"
            print(f"| {label} | {count} | {duration:.3f} s ({(duration - 1.21) * 1000:+.0f} ms) | {error} | "
                  f"{', '.join(f'{s:.3f}' for s in starts)} |")


if __name__ == "__main__":
    sys.exit(main())
