"""Issue 34: repeat pictures (`BENCH_KINDS=repeats`, docs/repeats.md).

The default to-mp4 writes constant frame rate at the GIF's tick. With repeat pictures each distinct picture
is encoded once and every repeat is a P_Skip picture spliced into the H.264 stream; before, x264 encoded every
repeat again. Measured in one run, alternating, on each GIF:

- `tick CFR`: gifx to-mp4 (repeat pictures, today's default);
- `tick CFR, repeats encoded`: the same with `GIFX_REPEATS=encode` (the old path, every repeat encoded);
- `tick CFR, real durations`: repeat pictures with `GIFX_REPEATS=real` (x264 sees every real duration; the
  default shows it real durations up to 0.1 s);
- `--fps auto` and `--vfr` (one sample per GIF frame: what the encoder sees with repeat pictures);
- the ffmpeg CLI (libx264, its defaults, as the to-mp4 kind runs it).

Wall time (median), CPU time (user + system, median), bytes, and SSIM (ffmpeg's ssim filter, "All", frames
paired by timestamp) of each output against the old path's tick CFR. GIFs: generated 1 cs-tick screen
recordings (large canvases, a few changing rectangles per frame, long holds: what docs screen recordings look
like) and the bench GIFs small enough to run quickly (those without repeats take the old path anyway).
Standard library only.
"""

import os
import random
import re
import statistics
import subprocess

import gifwriter
import runner

MP4_FILTER = "scale=trunc(iw/2)*2:trunc(ih/2)*2"
# the reference itself; auto and 30 fps resample (compared with the old path at 30 fps instead)
NO_SSIM = {"tick CFR, repeats encoded", "--fps auto", "--fps 30", "--fps 30, repeats encoded"}
BENCH_SET = ["480x270x200", "333x187x100", "vardelay-480x270x150"]

# name, width, height, frames, seed: typing bursts of 2-3 cs (a 1 cs tick), holds of 0.3-1.2 s, page changes.
RECORDINGS = [
    ("rec-1009x630", 1009, 630, 86, 1),
    ("rec-1280x720", 1280, 720, 50, 2),
    ("rec-800x600", 800, 600, 100, 3),
    ("rec-1440x900", 1440, 900, 40, 4),
]

PALETTE = [(250, 250, 250), (40, 44, 52), (97, 175, 239), (224, 108, 117), (152, 195, 121),
           (229, 192, 123), (198, 120, 221), (171, 178, 191), (33, 37, 43), (255, 255, 255)]


def _recording(path, width, height, frames, seed):
    """A terminal-like screen recording: a full first frame (title bar, sidebar, text), then per frame the rect
    of the characters typed (2-3 cs), a hold now and then (30-120 cs), and every ~25 frames a page change
    (the text area redrawn)."""
    rng = random.Random(seed)
    canvas = [0] * (width * height)

    def fill(x0, y0, w, h, colour):
        for y in range(y0, min(height, y0 + h)):
            canvas[y * width + x0:y * width + min(width, x0 + w)] = [colour] * (min(width, x0 + w) - x0)

    def text_line(x0, y0, length):
        x = x0
        for _ in range(length):
            w = rng.randint(3, 7)
            if x + w >= width - 8:
                break
            fill(x, y0 + rng.randint(0, 3), w, rng.randint(6, 10), rng.choice([1, 2, 3, 4, 5, 6, 7]))
            x += w + rng.randint(1, 4)
        return x

    def crop(x0, y0, w, h):
        return [canvas[y * width + x] for y in range(y0, y0 + h) for x in range(x0, x0 + w)]

    fill(0, 0, width, 28, 8)
    fill(0, 28, 180, height - 28, 7)
    for y in range(40, height - 20, 18):
        text_line(200, y, rng.randint(5, 40))
    out = [{"left": 0, "top": 0, "width": width, "height": height, "indices": crop(0, 0, width, height),
            "delay": 150, "disposal": 1, "transparent": None}]
    line_y, cursor_x = 40, 200
    for i in range(1, frames):
        if i % 25 == 0:  # a page change: the text area redrawn
            fill(190, 36, width - 190, height - 36, 0)
            for y in range(40, height - 20, 18):
                text_line(200, y, rng.randint(5, 40))
            rect = (190, 36, width - 190, height - 36)
            line_y, cursor_x = 40, 200
        else:  # a few characters typed
            if cursor_x > width - 120:
                line_y, cursor_x = (line_y + 18) if line_y + 36 < height else 40, 200
            x_end = text_line(cursor_x, line_y, rng.randint(1, 4))
            rect = (cursor_x, line_y, max(8, x_end - cursor_x), 14)
            cursor_x = x_end + 6
        delay = rng.choice([2, 3] * 6 + [30, 60, 100]) if i % 7 else rng.choice([40, 80, 120])
        x0, y0, w, h = rect
        w, h = min(w, width - x0), min(h, height - y0)
        out.append({"left": x0, "top": y0, "width": w, "height": h, "indices": crop(x0, y0, w, h),
                    "delay": delay, "disposal": 1, "transparent": None})
    gifwriter.write_indexed_gif(path, width, height, PALETTE, out)


def build(root, log):
    directory = os.path.join(root, "gifs")
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for name, width, height, frames, seed in RECORDINGS:
        path = os.path.join(directory, name + ".gif")
        if not os.path.exists(path):
            _recording(path + ".tmp", width, height, frames, seed)
            os.replace(path + ".tmp", path)
            log(f"  built {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
        paths[name] = path
    return paths


def ssim(path, reference):
    """ffmpeg's SSIM ("All") of `path` against `reference`, frames paired by timestamp."""
    out = subprocess.run(["ffmpeg", "-nostdin", "-v", "info", "-i", path, "-i", reference, "-lavfi",
                          "[0:v]format=yuv420p[a];[1:v]format=yuv420p[b];[a][b]ssim", "-f", "null", "-"],
                         capture_output=True, text=True).stderr
    found = re.findall(r"All:([0-9.]+)", out)
    return float(found[-1]) if found else None


# --codec: the container each codec is written in, and the ffmpeg CLI peer (libx264 at its defaults; libvpx-vp9
# and SVT-AV1 at gifx's default crf and speed, since their CLI defaults are other encoders' settings; libx265 at
# gifx's crf 23, its CLI default being 28).
CODECS = {
    "h264": ("mp4", ["-movflags", "+faststart"]),
    "vp9": ("webm", ["-c:v", "libvpx-vp9", "-deadline", "good", "-cpu-used", "3", "-row-mt", "1", "-crf", "32",
                     "-b:v", "0"]),
    "av1": ("mp4", ["-c:v", "libsvtav1", "-preset", "7", "-crf", "35"]),
    "hevc": ("mp4", ["-c:v", "libx265", "-crf", "23", "-tag:v", "hvc1", "-x265-params", "log-level=error"]),
}


def tools(gifx, path, out, codec="h264"):
    def gifx_cmd(*extra):  # WebM through `convert` (to-mp4 writes MP4 whatever the codec)
        if codec == "vp9":
            return lambda o: [gifx, "convert", path, "-o", o, "--overwrite", "--quiet", *extra]
        return lambda o: [gifx, "to-mp4", path, "-o", o, "--overwrite", "--quiet", "--codec", codec, *extra]
    peer = CODECS[codec][1]
    return [
        ("tick CFR", gifx_cmd(), None),
        ("tick CFR, repeats encoded", gifx_cmd(), {"GIFX_REPEATS": "encode"}),
        ("tick CFR, real durations", gifx_cmd(), {"GIFX_REPEATS": "real"}),
        ("--fps auto", gifx_cmd("--fps", "auto"), None),
        ("--fps 30", gifx_cmd("--fps", "30"), None),
        ("--fps 30, repeats encoded", gifx_cmd("--fps", "30"), {"GIFX_REPEATS": "encode"}),
        ("--vfr", gifx_cmd("--vfr"), None),
        ("ffmpeg CLI", lambda o: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, *peer,
                                  "-pix_fmt", "yuv420p", "-vf", MP4_FILTER, o], None),
    ]


def run(gifx, root, gif_paths, only, reps, timeout, log, codec="h264"):
    paths = build(root, log)
    sets = {name: "recording" for name in paths}
    for name in BENCH_SET:
        if name in gif_paths:
            paths[name] = gif_paths[name]
            sets[name] = "bench"
    if only:
        paths = {n: p for n, p in paths.items() if n in only}
    rows = []
    for name, path in paths.items():
        out = os.path.join(root, "out", "repeats", name)
        os.makedirs(out, exist_ok=True)
        specs = tools(gifx, path, out, codec)
        results = {label: [] for label, _, _ in specs}
        extension = CODECS[codec][0]
        outputs = {label: os.path.join(out, f"{k}.{extension}") for k, (label, _, _) in enumerate(specs)}
        for rep in range(reps):
            order = specs if rep % 2 == 0 else list(reversed(specs))
            for label, make, env in order:
                result = runner.run(make(outputs[label]), timeout, env=env)
                results[label].append(result)
                log(f"  repeats {codec} {name:22} {label:26} rep {rep + 1}: {result.status} {result.wall_s:.2f} s")
        reference = outputs["tick CFR, repeats encoded"]
        row = {"gif": name, "set": sets[name], "codec": codec, "tools": []}
        for label, _, _ in specs:
            runs = results[label]
            ok = all(r.status == "ok" for r in runs)
            if label == "--fps 30":
                score = ssim(outputs[label], outputs["--fps 30, repeats encoded"]) if ok else None
            else:
                score = ssim(outputs[label], reference) if ok and label not in NO_SSIM else None
            row["tools"].append({
                "label": label, "ok": ok,
                "wall_s": statistics.median(r.wall_s for r in runs),
                "cpu_s": statistics.median(r.cpu_s for r in runs),
                "bytes": os.path.getsize(outputs[label]) if ok else None,
                "ssim": score,
            })
        rows.append(row)
        for f in outputs.values():
            if os.path.exists(f):
                os.remove(f)
    return {"reps": reps, "codec": codec, "rows": rows}


def _tool(row, label):
    return next(t for t in row["tools"] if t["label"] == label)


def _sum(rows, label, key):
    return sum(_tool(r, label)[key] or 0 for r in rows)


def report(repeats):
    if not repeats:
        return []
    rows = repeats["rows"]
    new, old, vfr, auto, peer = ("tick CFR", "tick CFR, repeats encoded", "--vfr", "--fps auto", "ffmpeg CLI")
    real = "tick CFR, real durations"
    codec = repeats.get("codec", "h264")
    fps30, fps30_old = "--fps 30", "--fps 30, repeats encoded"
    out = [
        f"## Repeat pictures (issue 34), {codec}", "",
        f"`Benchmarks/repeats_bench.py`, {repeats['reps']} repetitions, alternating. Per GIF: wall time of the "
        "default tick CFR (repeat pictures) as a ratio of the old path (`GIFX_REPEATS=encode`: every repeat encoded), "
        "of `--vfr` and of the ffmpeg CLI; bytes as a ratio of the old path; SSIM of each output against the old "
        "path's (ffmpeg's ssim filter, frames paired by timestamp).", "",
        "| GIF | set | new/old wall | new/--vfr wall | new/ffmpeg wall | auto/ffmpeg wall | new/old CPU | "
        "new/old bytes | SSIM new | real/old bytes | SSIM real | SSIM --vfr | SSIM ffmpeg | 30 fps new/old wall | "
        "30 fps new/old bytes | SSIM 30 fps |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def ratio(a, b):
        return f"{a / b:.2f}×" if a and b else "–"

    def fmt(value):
        return f"{value:.4f}" if value is not None else "–"

    for r in rows:
        t = {label: _tool(r, label) for label in (new, old, vfr, auto, peer, real, fps30, fps30_old)}
        out.append(
            f"| {r['gif']} | {r['set']} | {ratio(t[new]['wall_s'], t[old]['wall_s'])} | "
            f"{ratio(t[new]['wall_s'], t[vfr]['wall_s'])} | {ratio(t[new]['wall_s'], t[peer]['wall_s'])} | "
            f"{ratio(t[auto]['wall_s'], t[peer]['wall_s'])} | {ratio(t[new]['cpu_s'], t[old]['cpu_s'])} | "
            f"{ratio(t[new]['bytes'], t[old]['bytes'])} | {fmt(t[new]['ssim'])} | "
            f"{ratio(t[real]['bytes'], t[old]['bytes'])} | {fmt(t[real]['ssim'])} | {fmt(t[vfr]['ssim'])} | "
            f"{fmt(t[peer]['ssim'])} | {ratio(t[fps30]['wall_s'], t[fps30_old]['wall_s'])} | "
            f"{ratio(t[fps30]['bytes'], t[fps30_old]['bytes'])} | {fmt(t[fps30]['ssim'])} |")
    out.append("")
    for subset in ("recording", "bench"):
        chosen = [r for r in rows if r["set"] == subset]
        if not chosen:
            continue
        worst = max(_tool(r, new)["wall_s"] / _tool(r, peer)["wall_s"] for r in chosen)
        byte_ratios = [_tool(r, new)["bytes"] / _tool(r, old)["bytes"] for r in chosen
                       if _tool(r, new)["bytes"] and _tool(r, old)["bytes"]]
        ssims = [1 - (_tool(r, new)["ssim"] or 0) for r in chosen]
        dense_ssims = [1 - (_tool(r, real)["ssim"] or 0) for r in chosen]
        out.append(
            f"- Summed over the {subset} set ({len(chosen)} GIFs): tick CFR wall "
            f"{ratio(_sum(chosen, new, 'wall_s'), _sum(chosen, old, 'wall_s'))} the old path's, "
            f"{ratio(_sum(chosen, new, 'wall_s'), _sum(chosen, vfr, 'wall_s'))} `--vfr`'s, "
            f"{ratio(_sum(chosen, new, 'wall_s'), _sum(chosen, peer, 'wall_s'))} the ffmpeg CLI's "
            f"(worst GIF {worst:.2f}×); `--fps auto` "
            f"{ratio(_sum(chosen, auto, 'wall_s'), _sum(chosen, peer, 'wall_s'))} the ffmpeg CLI's; CPU "
            f"{ratio(_sum(chosen, new, 'cpu_s'), _sum(chosen, old, 'cpu_s'))} the old path's; bytes "
            f"{ratio(_sum(chosen, new, 'bytes'), _sum(chosen, old, 'bytes'))} the old path's "
            f"(per GIF {min(byte_ratios):.2f}×–{max(byte_ratios):.2f}×) at SSIM against it ≥ {1 - max(ssims):.4f}; "
            f"real durations: wall {ratio(_sum(chosen, real, 'wall_s'), _sum(chosen, vfr, 'wall_s'))} `--vfr`'s, "
            f"bytes {ratio(_sum(chosen, real, 'bytes'), _sum(chosen, old, 'bytes'))} the old path's at SSIM ≥ "
            f"{1 - max(dense_ssims):.4f}; `--fps 30` wall "
            f"{ratio(_sum(chosen, fps30, 'wall_s'), _sum(chosen, fps30_old, 'wall_s'))}, bytes "
            f"{ratio(_sum(chosen, fps30, 'bytes'), _sum(chosen, fps30_old, 'bytes'))} the old path's at 30 fps; "
            f"the floor (`--vfr`, the encoder on the distinct pictures alone): wall "
            f"{ratio(_sum(chosen, vfr, 'wall_s'), _sum(chosen, old, 'wall_s'))}, bytes "
            f"{ratio(_sum(chosen, vfr, 'bytes'), _sum(chosen, old, 'bytes'))} the old path's.")
    out.append("")
    return out


if __name__ == "__main__":
    import argparse
    import time
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gifx", required=True)
    parser.add_argument("--root", default=".build-bench")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--only", default="")
    parser.add_argument("--bench-gifs", action="store_true", help="also build and run the small bench GIFs")
    parser.add_argument("--codec", choices=sorted(CODECS), default="h264",
                        help="h264 (MP4), hevc (MP4), vp9 (WebM) or av1 (MP4): gifx's --codec, and the ffmpeg CLI's encoder")
    args = parser.parse_args()
    started = time.time()

    def log(message):
        print(f"[{time.time() - started:6.0f}s] {message}", flush=True)

    bench_paths = {}
    if args.bench_gifs:
        import make_gifs
        bench_paths = make_gifs.build_all(args.root, set(BENCH_SET), log=lambda m: log("  " + m))
    result = run(args.gifx, args.root, bench_paths, {s for s in args.only.split(",") if s}, args.reps,
                 args.timeout, log, codec=args.codec)
    import json
    name = "repeats.json" if args.codec == "h264" else f"repeats-{args.codec}.json"
    with open(os.path.join(args.root, name), "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(report(result)))
