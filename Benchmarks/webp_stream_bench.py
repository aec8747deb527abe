#!/usr/bin/env python3
"""The streaming animated WebP writer (issue 38) against the WebPAnimEncoder one it replaced, and gif2webp.

    python3 Benchmarks/webp_stream_bench.py --old OLD_GIFX --new NEW_GIFX [--reps 3] [--bench-gifs DIR] [--quick]

OLD_GIFX: a gifx built before the change (WebPAnimEncoder), NEW_GIFX: after; both release builds for the
times. GIFs: Examples/*.gif, 22 generated here (sprites moving over transparency with each disposal, noise,
small changes, identical frames, odd offsets, holes appearing, single frames, lavfi sources through ffmpeg),
and the bench GIFs found in --bench-gifs (Benchmarks/make_gifs.py builds them). Each GIF to .webp lossless and
lossy (quality 75) by both gifx builds, and lossless by gif2webp (its defaults; -lossy -q 75 for lossy): bytes,
best-of-REPS wall time (old and new alternated), instructions retired (perf stat, one run each: repeatable on
a loaded machine, where wall times are not); every new output read back by webpmux -info (frame count, loop count), Pillow (frame
count, durations) and compared with the old output's frames and durations (the same schedule). Prints a
markdown table and the ratios new/old (bytes, time) as geometric means and worst cases.
"""

import argparse
import glob
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gifwriter  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def palette(n, seed):
    rng = random.Random(seed)
    return [(rng.randrange(256), rng.randrange(256), rng.randrange(256)) for _ in range(n)]


def frame(left, top, w, h, indices, delay=6, disposal=1, transparent=None):
    return dict(left=left, top=top, width=w, height=h, indices=indices, delay=delay, disposal=disposal,
                transparent=transparent)


def sprite_frames(W, H, count, disposal, seed, bg_transparent=True):
    rng = random.Random(seed)
    sw, sh = 12, 14
    body = [1 + rng.randrange(20) for _ in range(sw * sh)]
    frames = []
    if not bg_transparent:
        frames.append(frame(0, 0, W, H, [21 + (x // 8 + y // 8) % 6 for y in range(H) for x in range(W)], delay=5))
    for i in range(count):
        x = (i * 5) % (W - sw)
        y = (i * 3) % (H - sh)
        pix = [0 if (c + i) % 7 == 0 else c for c in body]
        frames.append(frame(x, y, sw, sh, pix, delay=4 + i % 5, disposal=disposal, transparent=0))
    return frames


def noise_frames(W, H, count, seed, colours=64):
    rng = random.Random(seed)
    return [frame(0, 0, W, H, [rng.randrange(colours) for _ in range(W * H)], delay=5) for _ in range(count)]


def blink_frames(W, H, count, seed):
    rng = random.Random(seed)
    base = [(x // 6 + y // 5) % 30 for y in range(H) for x in range(W)]
    frames = [frame(0, 0, W, H, base, delay=10)]
    for i in range(count):
        x, y = rng.randrange(W - 4), rng.randrange(H - 4)
        frames.append(frame(x, y, 4, 4, [40 + i % 20] * 16, delay=3))
    return frames


def repeat_frames(W, H, count):
    a = [(x + y) % 12 for y in range(H) for x in range(W)]
    b = [(x * y) % 12 for y in range(H) for x in range(W)]
    return [frame(0, 0, W, H, a if (i // 4) % 2 == 0 else b, delay=2 + i % 3) for i in range(count)]


def scroll_frames(W, H, count):
    return [frame(0, 0, W, H, [((x + 3 * i) // 4) % 48 for y in range(H) for x in range(W)], delay=4)
            for i in range(count)]


def odd_offset_frames(W, H, count, seed):
    rng = random.Random(seed)
    frames = [frame(0, 0, W, H, [5] * (W * H), delay=8)]
    for i in range(count):
        w, h = 3 + rng.randrange(9), 3 + rng.randrange(9)
        x, y = 1 + 2 * rng.randrange((W - w) // 2), 1 + 2 * rng.randrange((H - h) // 2)
        frames.append(frame(x, y, w, h, [rng.randrange(60) for _ in range(w * h)], delay=5))
    return frames


def holes_frames(W, H, count, seed):
    rng = random.Random(seed)
    frames = [frame(0, 0, W, H, [1 + (x // 4 + y // 4) % 9 for y in range(H) for x in range(W)], delay=6)]
    for i in range(count):
        w, h = 6, 6
        x, y = rng.randrange(W - w), rng.randrange(H - h)
        # disposal 2 on a frame that covers a block with transparency: pixels turn transparent afterwards
        frames.append(frame(x, y, w, h, [0 if (k + i) % 3 else 11 for k in range(w * h)], delay=5, disposal=2,
                            transparent=0))
    return frames


def checker_frames(W, H, count):
    return [frame(0, 0, W, H, [((x // 8 + y // 8 + i) % 2) * 3 + 1 for y in range(H) for x in range(W)], delay=7)
            for i in range(count)]


def progress_frames(W, H, count):
    frames = [frame(0, 0, W, H, [2] * (W * H), delay=5)]
    for i in range(1, count):
        x = (i - 1) * (W - 2) // count + 1
        frames.append(frame(x, 2, 3, H - 4, [9] * (3 * (H - 4)), delay=5))
    return frames


def glyph_frames(W, H, count, seed):
    rng = random.Random(seed)
    frames = [frame(0, 0, W, H, [0] * (W * H), delay=10)]
    for i in range(count):
        x, y = (i * 6) % (W - 6), ((i * 6) // (W - 6)) * 8 % (H - 8)
        frames.append(frame(x, y, 6, 8, [rng.choice([0, 0, 7]) for _ in range(48)], delay=6))
    return frames


def long_pause_frames(W, H):
    return [frame(0, 0, W, H, [(x + y + i) % 16 for y in range(H) for x in range(W)], delay=d)
            for i, d in enumerate([5, 500, 5, 5, 250, 3, 3, 1000])]


def generated(folder):
    specs = {
        "gen-sprite-dispose-none": (64, 48, sprite_frames(64, 48, 30, 1, 1)),
        "gen-sprite-dispose-bg": (64, 48, sprite_frames(64, 48, 30, 2, 2)),
        "gen-sprite-dispose-prev": (64, 48, sprite_frames(64, 48, 30, 3, 3, bg_transparent=False)),
        "gen-sprite-over-opaque": (80, 60, sprite_frames(80, 60, 24, 2, 4, bg_transparent=False)),
        "gen-noise": (48, 48, noise_frames(48, 48, 10, 5)),
        "gen-noise-few-colours": (64, 40, noise_frames(64, 40, 12, 6, colours=4)),
        "gen-blink": (80, 60, blink_frames(80, 60, 40, 7)),
        "gen-repeats": (32, 32, repeat_frames(32, 32, 24)),
        "gen-scroll": (96, 64, scroll_frames(96, 64, 24)),
        "gen-odd-offsets": (75, 55, odd_offset_frames(75, 55, 20, 8)),
        "gen-holes": (60, 60, holes_frames(60, 60, 20, 9)),
        "gen-checker": (64, 64, checker_frames(64, 64, 6)),
        "gen-progress": (120, 16, progress_frames(120, 16, 50)),
        "gen-glyphs": (100, 40, glyph_frames(100, 40, 40, 10)),
        "gen-one-frame": (40, 30, noise_frames(40, 30, 1, 11)),
        "gen-two-identical": (40, 30, repeat_frames(40, 30, 2)),
        "gen-long-pauses": (50, 50, long_pause_frames(50, 50)),
    }
    paths = []
    for name, (w, h, frames) in specs.items():
        path = os.path.join(folder, name + ".gif")
        gifwriter.write_indexed_gif(path, w, h, palette(64, sum(name.encode())), frames)
        paths.append(path)
    lavfi = {
        "gen-lavfi-testsrc2": "testsrc2=size=160x120:rate=10",
        "gen-lavfi-mandelbrot": "mandelbrot=size=128x96:rate=10",
        "gen-lavfi-life": "life=size=96x96:rate=10:mold=10:ratio=0.3:seed=3",
        "gen-lavfi-cellauto": "cellauto=size=128x64:rate=10:rule=110:seed=5",
        "gen-lavfi-testsrc": "testsrc=size=120x90:rate=10",
    }
    for name, source in lavfi.items():
        path = os.path.join(folder, name + ".gif")
        # -t 3 before -i ends the (otherwise endless) source: palettegen waits for the end of its input.
        subprocess.run(["ffmpeg", "-v", "error", "-y", "-t", "3", "-f", "lavfi", "-i", source, "-frames:v", "30",
                        "-filter_complex", "split[a][b];[a]palettegen[p];[b][p]paletteuse", "-bitexact", path],
                       check=True)
        paths.append(path)
    return paths


def run(cmd):
    start = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[:300]}")
    return elapsed


def instructions(cmd):
    """Instructions retired (perf stat), the whole run: repeatable whatever else the machine is doing."""
    done = subprocess.run(["perf", "stat", "-x,", "-e", "instructions"] + cmd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    for line in done.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2].startswith("instructions") and fields[0].isdigit():
            return int(fields[0])
    return None


def best_time(cmd, reps):
    return min(run(cmd) for _ in range(reps))


def webpmux_info(path):
    out = subprocess.run(["webpmux", "-info", path], capture_output=True, text=True)
    if out.returncode != 0:
        return None
    frames = loop = None
    for line in out.stdout.splitlines():
        if line.startswith("Number of frames:"):
            frames = int(line.split(":")[1])
        if "Loop Count" in line:
            loop = int(line.rsplit(":", 1)[1])
    return frames if frames is not None else 1, loop


def pillow_schedule(path):
    from PIL import Image
    im = Image.open(path)
    durations = []
    for i in range(getattr(im, "n_frames", 1)):
        im.seek(i)
        durations.append(im.info.get("duration", 0))
    return durations, im.info.get("loop")


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--bench-gifs", default=os.path.join(REPO, ".build-bench/gifs"))
    parser.add_argument("--skip-large", action="store_true", help="leave out bench GIFs over 20 MB")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="gifx-webp-bench-")
    try:
        gifs = sorted(glob.glob(os.path.join(REPO, "Examples/*.gif"))) + generated(work)
        for path in sorted(glob.glob(os.path.join(args.bench_gifs, "*.gif"))):
            if args.skip_large and os.path.getsize(path) > 20e6:
                continue
            gifs.append(path)
        rows, problems = [], []
        ratios = {"lossless": ([], [], []), "lossy": ([], [], [])}
        for gif in gifs:
            name = os.path.basename(gif)[:-4]
            for mode, extra, peer in (("lossless", [], []), ("lossy", ["--webp-quality", "75"], ["-lossy", "-q", "75"])):
                old_out = os.path.join(work, f"{name}.{mode}.old.webp")
                new_out = os.path.join(work, f"{name}.{mode}.new.webp")
                peer_out = os.path.join(work, f"{name}.{mode}.gif2webp.webp")
                reps = 1 if os.path.getsize(gif) > 20e6 else args.reps
                times = {"old": [], "new": []}
                for _ in range(reps):  # alternated, so both see the same machine load
                    times["old"].append(run([args.old, "convert", gif, "-o", old_out, "--overwrite", "--quiet"] + extra))
                    times["new"].append(run([args.new, "convert", gif, "-o", new_out, "--overwrite", "--quiet"] + extra))
                peer_t = best_time(["gif2webp", "-quiet"] + peer + [gif, "-o", peer_out], reps)
                old_t, new_t = min(times["old"]), min(times["new"])
                old_i = instructions([args.old, "convert", gif, "-o", old_out, "--overwrite", "--quiet"] + extra)
                new_i = instructions([args.new, "convert", gif, "-o", new_out, "--overwrite", "--quiet"] + extra)
                if old_i and new_i:
                    ratios[mode][2].append(new_i / old_i)
                old_b, new_b, peer_b = (os.path.getsize(p) for p in (old_out, new_out, peer_out))
                info_new, info_old = webpmux_info(new_out), webpmux_info(old_out)
                sched_new, sched_old = pillow_schedule(new_out), pillow_schedule(old_out)
                if info_new is None:
                    problems.append(f"{name} {mode}: webpmux cannot read the new output")
                elif info_new != info_old:
                    problems.append(f"{name} {mode}: webpmux frames/loop {info_new} against the old {info_old}")
                if sched_new != sched_old:
                    problems.append(f"{name} {mode}: Pillow durations/loop differ from the old output's")
                ratios[mode][0].append(new_b / old_b)
                ratios[mode][1].append(new_t / old_t)
                rows.append((name, mode, old_b, new_b, peer_b, old_t, new_t, peer_t, info_new[0] if info_new else "?",
                             f"{new_i / old_i:.3f}" if old_i and new_i else "n/a"))
                print(f"{name:28} {mode:8} bytes {old_b:>10} -> {new_b:>10} ({new_b / old_b:.4f}x; gif2webp {peer_b})"
                      f"  time {old_t:.3f} -> {new_t:.3f} s ({new_t / old_t:.2f}x)", file=sys.stderr, flush=True)
        print("| GIF | mode | frames | old bytes | new bytes | new/old | gif2webp bytes | new/gif2webp | old s | new s "
              "| new/old time | new/old instructions |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for name, mode, old_b, new_b, peer_b, old_t, new_t, peer_t, frames, instr in rows:
            print(f"| {name} | {mode} | {frames} | {old_b} | {new_b} | {new_b / old_b:.4f} | {peer_b} | "
                  f"{new_b / peer_b:.2f} | {old_t:.3f} | {new_t:.3f} | {new_t / old_t:.2f} | {instr} |")
        print()
        for mode, (bytes_r, time_r, instr_r) in ratios.items():
            print(f"- {mode}: bytes new/old geometric mean {geomean(bytes_r):.4f}, worst {max(bytes_r):.4f}; "
                  f"wall time new/old geometric mean {geomean(time_r):.3f}, worst {max(time_r):.2f}; "
                  f"instructions new/old geometric mean {geomean(instr_r):.3f}, worst {max(instr_r, default=float('nan')):.3f} "
                  f"({len(bytes_r)} GIFs)")
        for problem in problems:
            print(f"- PROBLEM: {problem}")
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
