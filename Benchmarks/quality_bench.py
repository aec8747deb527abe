#!/usr/bin/env python3
"""Issue 56 item 1: bytes at matched quality, gifx's default video output against the ffmpeg CLI's common recipe.

Per codec and GIF, in the same run:
- the recipe (ffmpeg CLI): H.264 `-movflags +faststart -pix_fmt yuv420p -vf scale=trunc(iw/2)*2:trunc(ih/2)*2`
  (libx264 medium crf 23), HEVC `-c:v libx265 -tag:v hvc1` (its defaults), VP9 `-c:v libvpx-vp9 -crf 31 -b:v 0`
  in WebM, AV1 `-c:v libsvtav1 -crf 35`;
- gifx's default (`gifx to-mp4 --codec C`, VP9 through `gifx convert -o out.webm`), and the same over a crf sweep.

Quality: each output decoded by ffmpeg, the frame shown at the middle of every GIF frame's delay (the schedule of
`gifx timeline --json`, default policy) compared with that GIF frame composited by an independent decoder
(Pillow, --reference), over the same background gifx uses (#ffffff). The reference RGB is converted to Y'CbCr with
the matrix and range the file declares (ffprobe; unspecified = BT.601 limited, what swscale writes). SSIM and
PSNR on Y, PSNR on Cb/Cr (reference chroma 2x2-averaged). Bytes at matched SSIM: log(bytes) interpolated
piecewise-linearly against the sweep's unweighted Y SSIM, at the recipe's SSIM; outside the sweep's range
"out of range", never extrapolated.

`--self-check` checks the metric itself. `--report-only` re-renders docs/benchmarks.md from the last JSON.
Run through `make bench-quality` (BENCH_QUALITY_ARGS=...). Needs numpy and Pillow.
"""

import argparse
import hashlib
import json
import math
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gifwriter  # noqa: E402
import runner  # noqa: E402

SECTION = "## Quality: bytes at matched SSIM against the ffmpeg CLI"
SSIM_NAME = ("SSIM: numpy in this script (8×8 box window, stride 1, C1 = (0.01·255)², C2 = (0.03·255)², on Y), "
             "1 thread; PSNR: 10·log10(255² / MSE) per plane, averaged over frames (MSE 0 counted as 100 dB)")
SCALE = "scale=trunc(iw/2)*2:trunc(ih/2)*2"
# codec: container, the recipe's encoder arguments, the sweep of gifx's crf
# codec: container, the recipe's encoder arguments, gifx's crf sweep, then the crfs tried one by one (lower quality,
# higher quality) only while the sweep's SSIM range does not reach the recipe's
CODECS = {
    "h264": ("mp4", ["-movflags", "+faststart"], [18, 21, 24, 27, 30, 33], ([37, 42, 51], [14, 10])),
    "hevc": ("mp4", ["-c:v", "libx265", "-tag:v", "hvc1"], [18, 21, 24, 27, 30, 33], ([37, 42, 51], [14, 10])),
    "vp9": ("webm", ["-c:v", "libvpx-vp9", "-crf", "31", "-b:v", "0"], [20, 26, 32, 38, 44, 50], ([56, 63], [14, 8])),
    "av1": ("mp4", ["-c:v", "libsvtav1", "-crf", "35"], [23, 29, 35, 41, 47, 53], ([59, 63], [17, 11])),
}
BENCH_SET = ["480x270x200", "333x187x100", "vardelay-480x270x150", "sprite-256x192x96", "64x64x5000"]
BACKGROUND = (255, 255, 255)
MATRICES = {"bt709": (0.2126, 0.0722), "smpte170m": (0.299, 0.114), "bt470bg": (0.299, 0.114),
            "bt2020nc": (0.2627, 0.0593), "unknown": (0.299, 0.114)}


# ---------------------------------------------------------------- synthetic GIFs (Benchmarks/gifwriter.py)

def _frames_from_arrays(pictures, delays):
    return [{"left": 0, "top": 0, "width": p.shape[1], "height": p.shape[0], "indices": p.ravel().tolist(),
             "delay": d, "disposal": 1, "transparent": None} for p, d in zip(pictures, delays)]


def synthetic(directory):
    """The four synthetic classes: {name: (path, class)}. Deterministic (fixed seeds)."""
    os.makedirs(directory, exist_ok=True)
    out = {}

    def make(name, cls, width, height, palette, pictures, delays):
        path = os.path.join(directory, name + ".gif")
        if not os.path.exists(path):
            gifwriter.write_indexed_gif(path + ".tmp", width, height, palette, _frames_from_arrays(pictures, delays))
            os.replace(path + ".tmp", path)
        out[name] = (path, cls)

    rng = np.random.default_rng(56)
    # Lottie-like: 6 flat colours, a circle and two bars moving, each picture held 2-4 cs (1 cs tick), 1.5 s final hold.
    w, h = 320, 240
    yy, xx = np.mgrid[0:h, 0:w]
    pictures, delays = [], []
    for i in range(60):
        p = np.zeros((h, w), np.uint8)
        cx, cy = 40 + i * 4, 120 + int(60 * math.sin(i / 8))
        p[(xx - cx) ** 2 + (yy - cy) ** 2 < 30 ** 2] = 1
        p[20:40, 10:10 + (i * 5) % 300] = 2
        p[200 - (i * 3) % 150:215 - (i * 3) % 150, 250:300] = 3
        p[(np.abs(xx - 160) < 20 + i % 10) & (np.abs(yy - 60) < 8)] = 4
        pictures.append(p)
        delays.append(int(rng.choice([2, 3, 4])))
    delays[-1] = 150
    make("syn-lottie-320x240", "lottie", w, h,
         [(250, 250, 250), (255, 87, 34), (33, 150, 243), (76, 175, 80), (255, 193, 7)], pictures, delays)
    # pixel art: 32x32, 8 colours, a character of 2x2 blocks stepping, 10-20 cs.
    pictures, delays = [], []
    base = rng.integers(0, 3, (16, 16)).astype(np.uint8)
    for i in range(12):
        p = np.kron(base, np.ones((2, 2), np.uint8))
        x = 4 + (i % 6) * 2
        p[14:26, x:x + 8] = 3 + (i % 2)
        p[10:14, x + 2:x + 6] = 5
        p[26:30, x + (i % 2) * 4:x + (i % 2) * 4 + 4] = 6 + (i % 2)
        pictures.append(p)
        delays.append(int(rng.choice([10, 15, 20])))
    make("syn-pixel-32x32", "pixel-art", 32, 32,
         [(34, 32, 52), (69, 40, 60), (102, 57, 49), (223, 113, 38), (217, 160, 102), (238, 195, 154),
          (91, 110, 225), (99, 155, 255)], pictures, delays)
    # slow: 16 pictures at 150 cs, 400x300, flat panels and a 32-step gradient each.
    w, h = 400, 300
    yy, xx = np.mgrid[0:h, 0:w]
    palette = [(int(255 * k / 31), int(200 - 150 * k / 31), 90) for k in range(32)] + gifwriter.distinct_colours(16)
    pictures = []
    for i in range(16):
        p = ((xx + yy * (i % 4)) * 32 // (w + h * 3)).astype(np.uint8) % 32
        p[60 + i * 8:140 + i * 8, 40 + i * 15:160 + i * 15] = 32 + i
        pictures.append(p)
    make("syn-slow-400x300", "slow", w, h, palette, pictures, [150] * 16)
    # dithered / natural-looking: 128 colours, moving gradients plus noise (random dither), 40 frames at 4 cs.
    w, h = 320, 240
    yy, xx = np.mgrid[0:h, 0:w]
    palette = [(int(r), int(g), int(b)) for r in (0, 85, 170, 255) for g in (0, 36, 73, 109, 146, 182, 219, 255)
               for b in (0, 85, 170, 255)]
    pictures = []
    for i in range(40):
        r = (xx + 3 * i) % w / w * 3 + rng.random((h, w)) * 0.999
        g = (yy + 2 * i) % h / h * 7 + rng.random((h, w)) * 0.999
        b = ((xx + yy + 5 * i) % (w + h)) / (w + h) * 3 + rng.random((h, w)) * 0.999
        pictures.append((np.clip(r, 0, 3).astype(np.uint8) * 32 + np.clip(g, 0, 7).astype(np.uint8) * 4
                         + np.clip(b, 0, 3).astype(np.uint8)).astype(np.uint8))
    make("syn-dithered-320x240", "dithered", w, h, palette, pictures, [4] * 40)
    return out


# ---------------------------------------------------------------- reference frames, schedule, metric

def schedule(gifx, path):
    doc = json.loads(subprocess.run([gifx, "timeline", path, "--json"], capture_output=True, text=True,
                                    check=True).stdout)
    return [(f["start"], f["delay"]) for f in doc["frames"]], (doc["canvas"]["width"], doc["canvas"]["height"])


def reference_frames(path):
    """Pillow's composited frames (disposal applied by Pillow), as RGBA uint8 arrays."""
    with Image.open(path) as im:
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            yield np.asarray(im.convert("RGBA"))


def over_background(rgba):
    a = rgba[..., 3:4].astype(np.float64) / 255
    return rgba[..., :3] * a + np.array(BACKGROUND, np.float64) * (1 - a), bool((rgba[..., 3] < 255).any())


def to_ycbcr(rgb, space, full_range):
    kr, kb = MATRICES.get(space, MATRICES["unknown"])
    kg = 1 - kr - kb
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    y = kr * r + kg * g + kb * b
    cb, cr = (b - y) / (2 * (1 - kb)), (r - y) / (2 * (1 - kr))
    if full_range:
        return y, cb + 128, cr + 128
    return 16 + y * 219 / 255, 128 + cb * 224 / 255, 128 + cr * 224 / 255


def _box(a, k=8):
    c = np.pad(a.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    return (c[k:, k:] - c[:-k, k:] - c[k:, :-k] + c[:-k, :-k]) / (k * k)


def ssim(x, y):
    x, y = x.astype(np.float64), y.astype(np.float64)
    if min(x.shape) < 8:
        pad = [(0, max(0, 8 - x.shape[0])), (0, max(0, 8 - x.shape[1]))]
        x, y = np.pad(x, pad, mode="edge"), np.pad(y, pad, mode="edge")
    c1, c2 = (0.01 * 255) ** 2, (0.03 * 255) ** 2
    mx, my = _box(x), _box(y)
    vx, vy, cov = _box(x * x) - mx * mx, _box(y * y) - my * my, _box(x * y) - mx * my
    return float((((2 * mx * my + c1) * (2 * cov + c2)) / ((mx * mx + my * my + c1) * (vx + vy + c2))).mean())


def psnr(x, y):
    mse = float(((x.astype(np.float64) - y.astype(np.float64)) ** 2).mean())
    return 100.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse)


def probe(path):
    out = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
         "stream=width,height,color_space,color_range,pix_fmt:frame=best_effort_timestamp_time",
         "-of", "json", path], capture_output=True, text=True, check=True).stdout)
    s = out["streams"][0]
    times = [float(f["best_effort_timestamp_time"]) for f in out["frames"]
             if f.get("best_effort_timestamp_time") not in (None, "N/A")]
    return s, times


def decoded_frames(path, width, height):
    """(Y, Cb, Cr) planes of every decoded frame in output order, scaled back to the GIF's size when the file's size
    differs by more than padding (the recipe's trunc(iw/2)*2 resample), else cropped to it (gifx pads odd sizes)."""
    s, _ = probe(path)
    w, h = s["width"], s["height"]
    vf = ["format=yuv420p"]
    if w < width or h < height:
        vf.insert(0, f"scale={width}:{height}:flags=bicubic")
        w, h = width, height
    cw, ch = (w + 1) // 2, (h + 1) // 2
    size = w * h + 2 * cw * ch
    proc = subprocess.Popen(["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-i", path, "-fps_mode",
                             "passthrough", "-vf", ",".join(vf), "-f", "rawvideo", "-"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    try:
        while True:
            buf = proc.stdout.read(size)
            if len(buf) < size:
                break
            a = np.frombuffer(buf, np.uint8)
            yield (a[:w * h].reshape(h, w), a[w * h:w * h + cw * ch].reshape(ch, cw), a[w * h + cw * ch:].reshape(ch, cw))
    finally:  # a consumer that stops early closes the generator: stop ffmpeg, blocked on the pipe, now
        proc.stdout.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()


_CACHE = {}  # (gif, matrix, range) -> the reference planes of every frame, for the sweep (one GIF at a time)


def reference_planes(gif, space, full, we, he, frames):
    """(Y, Cb, Cr, transparent) of each reference frame, rounded to 8 bits, chroma 2x2-averaged; cached when small."""
    key = (gif, space, full)
    if key in _CACHE:
        return _CACHE[key]

    def planes(rgba):
        rgb, transparent = over_background(rgba)
        y, cb, cr = to_ycbcr(rgb[:he, :we], space, full)
        return (*(np.clip(np.rint(a), 0, 255).astype(np.uint8) for a in (
            y, cb.reshape(he // 2, 2, we // 2, 2).mean(axis=(1, 3)), cr.reshape(he // 2, 2, we // 2, 2).mean(axis=(1, 3)))),
            transparent)
    generator = (planes(rgba) for rgba in reference_frames(gif))
    if we * he * 1.5 * frames > 256e6:
        return generator
    for other in [k for k in _CACHE if k[0] != gif]:
        del _CACHE[other]
    _CACHE[key] = list(generator)
    return _CACHE[key]


def quality(path, gif, sched, canvas):
    """Per-GIF-frame Y SSIM/PSNR and Cb/Cr PSNR of the output frame shown at each frame's mid-delay."""
    s, times = probe(path)
    space = s.get("color_space") or "unknown"
    full = s.get("color_range") == "pc"
    width, height = canvas
    we, he = width - width % 2, height - height % 2
    t0 = times[0] if times else 0.0
    times = [t - t0 for t in times]
    frames = decoded_frames(path, width, height)
    current, k, rows, opaque = next(frames), 0, [], True
    for (start, delay), (ry, cb, cr, transparent) in zip(sched, reference_planes(gif, space, full, we, he, len(sched))):
        t = (start + delay / 2) / 100
        while k + 1 < len(times) and times[k + 1] <= t + 1e-6:
            nxt = next(frames, None)
            if nxt is None:
                break
            current, k = nxt, k + 1
        opaque = opaque and not transparent
        oy, ocb, ocr = current[0][:he, :we], current[1][:he // 2, :we // 2], current[2][:he // 2, :we // 2]
        rows.append((delay, ssim(ry, oy), psnr(ry, oy), psnr(cb, ocb), psnr(cr, ocr)))
    frames.close()
    weights = [r[0] for r in rows]

    def mean(i, weighted=False):
        vals = [r[i] for r in rows]
        return sum(v * w for v, w in zip(vals, weights)) / sum(weights) if weighted else statistics.fmean(vals)
    return {"ssim": mean(1), "ssim_w": mean(1, True), "psnr": mean(2), "psnr_w": mean(2, True),
            "psnr_cb": mean(3), "psnr_cr": mean(4), "matrix": f"{space}/{'pc' if full else 'tv'}",
            "frames": len(rows), "opaque": opaque}


def self_check(gif, gifx, work):
    """The metric against itself, and the whole path (decode, matrix, timing) on a lossless encode."""
    sched, canvas = schedule(gifx, gif)
    rgb = over_background(next(reference_frames(gif)))[0]
    y = np.rint(to_ycbcr(rgb, "bt709", False)[0])
    shifted = np.roll(y, 2, axis=1)
    assert ssim(y, y) == 1.0 and psnr(y, y) == 100.0, "a frame against itself is not SSIM 1"
    assert ssim(y, shifted) < 0.999, "a frame shifted 2 px does not lower SSIM"
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "lossless.mp4")
    subprocess.run(gifx_cmd(gifx, "h264", gif, out, crf=0, extra=[]), check=True)  # x264 crf 0: lossless 4:2:0
    exact = quality(out, gif, sched, canvas)
    late = quality(out, gif, [(start + delay, delay) for start, delay in sched], canvas)
    assert exact["ssim"] > 0.995, f"a lossless encode scores SSIM {exact['ssim']:.4f}"
    assert late["ssim"] < exact["ssim"], "sampling one frame late does not lower SSIM"
    print(f"self-check {os.path.basename(gif)}: SSIM(ref, ref) 1.0; ref shifted 2 px {ssim(y, shifted):.4f}; "
          f"gifx --crf 0 (lossless x264 4:2:0, {exact['matrix']}) Y SSIM {exact['ssim']:.5f}, PSNR {exact['psnr']:.1f} dB, "
          f"Cb/Cr {exact['psnr_cb']:.1f}/{exact['psnr_cr']:.1f} dB; sampled one delay late: SSIM {late['ssim']:.4f}")


# ---------------------------------------------------------------- encodes

# `--recipe-matrix bt709`: the recipe converts with BT.709 and tags it, as gifx does, so that what differs from gifx
# is the encoding alone. The ffmpeg CLI's own recipe converts with swscale's default (BT.601) and tags nothing; Y
# SSIM in two matrices is two measures (on syn-slow-400x300 the whole of gifx's bytes at matched SSIM against the
# plain recipe is the matrix: the recipe with BT.709 writes gifx's bytes at gifx's SSIM).
RECIPE_MATRIX = {"default": ([], ""), "bt709": (["-colorspace", "bt709", "-color_primaries", "bt709", "-color_trc",
                                                 "bt709"], ":out_color_matrix=bt709:out_range=tv")}
# `both`: the plain recipe is the one reported, and the BT.709 recipe's figures are kept beside it in each row
# (`recipe709`, `matched_ratio_709`), from the same sweep of gifx.
recipe_matrix = "default"


def recipe_cmd(codec, gif, out, matrix=None):
    tags, scale = RECIPE_MATRIX[matrix or ("default" if recipe_matrix == "both" else recipe_matrix)]
    return ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", gif, *CODECS[codec][1], "-pix_fmt", "yuv420p",
            "-vf", SCALE + scale, *tags, out]


# `--gifx-args`: options added to every gifx encode of the sweep and of the default (a preset, a tune), so that a
# setting is measured the way the default is; the self-check's lossless encode takes none.
gifx_args = []


def gifx_cmd(gifx, codec, gif, out, crf=None, extra=None):
    extra = gifx_args if extra is None else extra
    if codec == "vp9":
        return [gifx, "convert", gif, "-o", (f"crf={crf}:" if crf is not None else "") + out, "--overwrite", "--quiet",
                *extra]
    return [gifx, "to-mp4", gif, "-o", out, "--codec", codec, "--overwrite", "--quiet",
            *(["--crf", str(crf)] if crf is not None else []), *extra]


def encode(cmd, out, timeout):
    result = runner.run(["nice", "-n", "10", *cmd], timeout)
    if result.status != "ok":
        return None, result
    return os.path.getsize(out), result


def matched_bytes(recipe_ssim, sweep):
    """log(bytes) interpolated at recipe_ssim between the two sweep points bracketing it; None outside the range."""
    points = sorted((p["ssim"], math.log(p["bytes"])) for p in sweep if p.get("bytes"))
    for (s0, b0), (s1, b1) in zip(points, points[1:]):
        if s0 <= recipe_ssim <= s1:
            f = 0 if s1 == s0 else (recipe_ssim - s0) / (s1 - s0)
            return math.exp(b0 + f * (b1 - b0))
    return None


def measure(gifx, codec, name, gif, cls, half, work, timeout, sweep_crfs, log):
    ext = CODECS[codec][0]
    os.makedirs(work, exist_ok=True)
    sched, canvas = schedule(gifx, gif)
    row = {"gif": name, "class": cls, "half": half, "codec": codec, "canvas": canvas, "frames": len(sched)}
    labels = [("recipe", recipe_cmd), ("default", None)]
    if recipe_matrix == "both":
        labels.insert(1, ("recipe709", lambda c, g, o: recipe_cmd(c, g, o, "bt709")))
    for label, cmd in labels:
        out = os.path.join(work, f"{label}.{ext}")
        size, res = encode(cmd(codec, gif, out) if cmd else gifx_cmd(gifx, codec, gif, out), out, timeout)
        if size is None:
            row[label] = {"error": f"{res.status}: {res.stderr_tail[:200]}"}
            log(f"  {codec} {name} {label}: {res.status} {res.stderr_tail[:160]}")
            continue
        row[label] = {"bytes": size, "wall_s": res.wall_s, "cpu_s": res.cpu_s, **quality(out, gif, sched, canvas)}
        log(f"  {codec} {name:34} {label:8} {size:9} B SSIM {row[label]['ssim']:.4f} {res.wall_s:6.2f} s")
    row["sweep"] = []

    def point(crf):
        out = os.path.join(work, f"crf{crf}.{ext}")
        size, res = encode(gifx_cmd(gifx, codec, gif, out, crf), out, timeout)
        if size is not None:
            q = quality(out, gif, sched, canvas)
            row["sweep"].append({"crf": crf, "bytes": size, "ssim": q["ssim"], "wall_s": res.wall_s})
            log(f"  {codec} {name:34} crf {crf:<5} {size:9} B SSIM {q['ssim']:.4f}")
    for crf in sweep_crfs:
        point(crf)

    def bracket(target):  # more crfs, one at a time, until the sweep's SSIM range reaches the target
        for crf in CODECS[codec][3][0]:
            if min(p["ssim"] for p in row["sweep"]) <= target:
                break
            point(crf)
        for crf in CODECS[codec][3][1]:
            if max(p["ssim"] for p in row["sweep"]) >= target:
                break
            point(crf)
    for label, key in (("recipe", "matched_ratio"), ("recipe709", "matched_ratio_709")):
        recipe = row.get(label, {})  # an encoded recipe has bytes and SSIM; a failed one only its error
        if "bytes" in recipe:
            bracket(recipe["ssim"])
            m = matched_bytes(recipe["ssim"], row["sweep"])
            row[key] = m / recipe["bytes"] if m else None
    shutil.rmtree(work, ignore_errors=True)
    return row


# ---------------------------------------------------------------- GIF sets

def real_set(directory, log):
    """(name, path, class, half) of the manifest's GIFs found in `directory` with the manifest's sha256."""
    with open(os.path.join(HERE, "quality_set.json")) as f:
        manifest = json.load(f)
    found = []
    if not directory or not os.path.isdir(directory):
        log(f"real set: skipped, no folder {directory!r} (copy the GIFs of Benchmarks/quality_set.json there: --real DIR)")
        return found
    for e in manifest["gifs"]:
        path = os.path.join(directory, e["name"] + ".gif")
        if not os.path.exists(path):
            log(f"real set: {e['name']} skipped: {path} is missing")
            continue
        with open(path, "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()
        if digest != e["sha256"]:
            log(f"real set: {e['name']} skipped: sha256 {digest[:12]} is not the manifest's {e['sha256'][:12]}")
            continue
        found.append((e["name"], path, e["class"], e["half"]))
    return found


def gif_set(args, log):
    gifs = []
    for which in args.sets:  # in the order asked
        if which == "bench":
            import make_gifs
            import repeats_bench
            paths = make_gifs.build_all(args.root, set(BENCH_SET), log=lambda m: log("  " + m))
            gifs += [(n, paths[n], "bench", "bench") for n in BENCH_SET if n in paths]
            gifs += [(n, p, "screen (generated)", "bench") for n, p in repeats_bench.build(args.root, log).items()]
        elif which == "synthetic":
            gifs += [(n, p, c, "synthetic") for n, (p, c) in synthetic(os.path.join(args.root, "quality-gifs")).items()]
        elif which == "real":
            gifs += real_set(args.real, log)
    return [g for g in gifs if not args.only or g[0] in args.only]


# ---------------------------------------------------------------- report

def _f(v, fmt):
    return format(v, fmt) if isinstance(v, (int, float)) else "–"


def _median_line(label, rows):
    ratios = [r["matched_ratio"] for r in rows if r.get("matched_ratio")]
    raw = [r["default"]["bytes"] / r["recipe"]["bytes"] for r in rows
           if "bytes" in r.get("default", {}) and "bytes" in r.get("recipe", {})]
    if not ratios:
        return f"| {label} | {len(rows)} | 0 | – | – | – | {_f(statistics.median(raw), '.2f') if raw else '–'}× |"
    return (f"| {label} | {len(rows)} | {len(ratios)} | **{statistics.median(ratios):.2f}×** | "
            f"{min(ratios):.2f}–{max(ratios):.2f}× | {sum(r > 1.05 for r in ratios)} | "
            f"{statistics.median(raw):.2f}× |")


def _real_set_line(results):
    with open(os.path.join(HERE, "quality_set.json")) as f:
        gifs = json.load(f)["gifs"]
    measured = {r["gif"] for r in results["rows"]}
    repos = sorted({g["repository"] for g in gifs})
    counts = {c: sum(g["class"] == c for g in gifs) for c in sorted({g["class"] for g in gifs})}
    return (f"Real set (`Benchmarks/quality_set.json`, halves fixed before any measurement; the GIFs are not "
            f"committed, `--real DIR`): {len(gifs)} GIFs ({', '.join(f'{n} {c}' for c, n in counts.items())}) from "
            f"{', '.join(repos)}; {sum(g['name'] in measured for g in gifs)} measured in this run.")


def report(results):
    out = [SECTION, "",
           f"`Benchmarks/quality_bench.py` (`make bench-quality`), run on {results['date']}; gifx "
           f"commit {results['commit']} (`{results['gifx']}`)"
           + (f", load average (1/5/15 min) at start {'/'.join(f'{x:.1f}' for x in results['load_start'])}, at the "
              f"last GIF {'/'.join(f'{x:.1f}' for x in results['load_end'])}" if results.get("load_end") else "")
           + f". {results.get('note', '')}", "",
           "Method: gifx's default output (`gifx to-mp4 --codec C`; VP9 by `gifx convert -o out.webm`) and the ffmpeg "
           "CLI's common recipe for the codec, encoded in the same run; each decoded by ffmpeg, the frame shown at the "
           "middle of every GIF frame's delay (`gifx timeline --json`, default policy) compared with that GIF frame "
           "as Pillow composites it, over #ffffff (gifx's default background), converted to Y'CbCr in the matrix and "
           "range the file declares (unspecified: BT.601 limited). "
           f"{SSIM_NAME}. Bytes at matched SSIM: gifx swept over its crf (the sweep extended, one crf at a time, only until its SSIM range reaches the recipe's), log(bytes) interpolated against unweighted "
           "Y SSIM at the recipe's SSIM; \"out of range\" where the sweep does not bracket it (no extrapolation). "
           "Ratios are gifx / recipe (below 1× is smaller). Chroma guard: gifx's Cb and Cr PSNR not below the "
           "recipe's by more than 0.5 dB. Wall time: one run each, `nice -n 10`, all threads. Medians count "
           "GIFs that are opaque after compositing (a transparent GIF's recipe output shows the decoder's colour "
           "under transparency, not the page's).", "",
           "Reference decoder: Pillow, chosen because it is neither the peer's decoder nor gifx's; on 12 GIFs of the "
           "real set (Lottie exports with transparency-optimised frames, screen recordings, camera clips) Pillow's "
           "composited frames, ffmpeg's gif decoder's and `gifx frames`' were identical, pixel for pixel, over "
           "#ffffff. The recipe's SSIM includes its timing: where the ffmpeg CLI shows a frame late or drops it "
           "(1 cs ticks, carried delays), the frame shown at mid-delay is another picture, as a viewer would see. "
           "So on such GIFs (a recipe SSIM well below its delay-weighted SSIM is the sign: short frames shown "
           "wrong) bytes at matched SSIM measure the recipe's timing as much as its coding; the raw bytes at the "
           "default are beside it.", "",
           _real_set_line(results), ""]
    for codec in [c for c in CODECS if any(r["codec"] == c for r in results["rows"])]:
        rows = [r for r in results["rows"] if r["codec"] == codec]
        crfs = sorted({p["crf"] for r in rows for p in r["sweep"]})
        out += [f"### {codec} (recipe: `{' '.join(recipe_cmd(codec, 'in.gif', 'out.' + CODECS[codec][0])[5:])}`; "
                f"gifx crf {', '.join(map(str, CODECS[codec][2]))}, extended to {', '.join(map(str, crfs))} where needed)", "",
                "| GIF | class | half | opaque | recipe bytes | recipe SSIM (weighted) | recipe s | gifx bytes | "
                "gifx SSIM (weighted) | gifx s | bytes at matched SSIM | Y PSNR gifx/recipe | chroma guard |",
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in rows:
            p, d = r.get("recipe", {}), r.get("default", {})
            if "bytes" not in p or "bytes" not in d:
                out.append(f"| {r['gif']} | {r['class']} | {r['half']} | – | {p.get('error', '')[:60]} |"
                           f" | | {d.get('error', '')[:60]} | | | | | |")
                continue
            guard = min(d["psnr_cb"] - p["psnr_cb"], d["psnr_cr"] - p["psnr_cr"])
            ratio = f"{r['matched_ratio']:.2f}×" if r.get("matched_ratio") else "out of range"
            out.append(
                f"| {r['gif']} | {r['class']} | {r['half']} | {'yes' if d['opaque'] else 'no'} | {p['bytes']:,} | "
                f"{p['ssim']:.4f} ({p['ssim_w']:.4f}) | {p['wall_s']:.2f} | {d['bytes']:,} | "
                f"{d['ssim']:.4f} ({d['ssim_w']:.4f}) | {d['wall_s']:.2f} | {ratio} | "
                f"{d['psnr']:.2f}/{p['psnr']:.2f} | {'ok' if guard >= -0.5 else 'FAILS'} ({guard:+.2f} dB) |")
        good = [r for r in rows if "bytes" in r.get("default", {}) and "bytes" in r.get("recipe", {})
                and r["default"]["opaque"]]
        out += ["", "| set (opaque GIFs) | GIFs | bracketed | bytes at matched SSIM, median | range | over 1.05× | "
                "raw bytes at the default, median |", "|---|---|---|---|---|---|---|"]
        for cls in sorted({r["class"] for r in good}):
            out.append(_median_line(cls, [r for r in good if r["class"] == cls]))
        for half in ("checking", "tuning"):
            chosen = [r for r in good if r["half"] == half]
            if chosen:
                out.append(_median_line(f"real set, {half} half", chosen))
        out.append(_median_line("bench + generated + synthetic", [r for r in good if r["half"] in ("bench", "synthetic")]))
        out.append(_median_line("**all**", good))
        wall = [(r["default"]["wall_s"], r["recipe"]["wall_s"]) for r in good]
        if wall:
            out += ["", f"Wall time summed over these {len(wall)} GIFs: gifx default {sum(a for a, _ in wall):.1f} s, "
                    f"recipe {sum(b for _, b in wall):.1f} s ({sum(a for a, _ in wall) / sum(b for _, b in wall):.2f}×)."]
        out.append("")
    return out


def write_doc(lines, doc):
    """Replaces this section of `doc` (up to the next `## ` heading), or appends it."""
    with open(doc) as f:
        text = f.read().split("\n")
    if SECTION in text:
        start = text.index(SECTION)
        end = next((i for i in range(start + 1, len(text)) if text[i].startswith("## ")), len(text))
        text = text[:start] + lines + text[end:]
    else:
        text = text + ([""] if text and text[-1] else []) + lines
    with open(doc, "w") as f:
        f.write("\n".join(text).rstrip("\n") + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--gifx", default=".build/release/gifx")
    p.add_argument("--root", default=".build-bench")
    p.add_argument("--codecs", default="h264", help="comma-separated: h264,hevc,vp9,av1")
    p.add_argument("--sets", default="bench,synthetic,real", help="comma-separated: bench,synthetic,real")
    p.add_argument("--real", default="", help="folder with the GIFs of Benchmarks/quality_set.json (by name.gif)")
    p.add_argument("--only", default="", help="comma-separated GIF names")
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--doc", default="docs/benchmarks.md", help="'' to leave the docs alone")
    p.add_argument("--note", default="")
    p.add_argument("--commit", default="", help="the commit gifx was built from (default: this checkout's HEAD)")
    p.add_argument("--report-only", action="store_true")
    p.add_argument("--json", default="", help="results file (default ROOT/quality.json)")
    p.add_argument("--merge", default="", help="comma-separated results files whose rows join the report")
    p.add_argument("--self-check", action="store_true")
    p.add_argument("--gifx-args", default="", help="options added to every gifx encode, e.g. '--preset slower' "
                                                   "(the run's note records them)")
    p.add_argument("--recipe-matrix", choices=sorted(RECIPE_MATRIX) + ["both"], default="default",
                   help="bt709: the recipe converts with BT.709 and tags it, as gifx does (the encoding alone "
                        "compared); both: the plain recipe reported, the BT.709 one's figures kept in each row")
    args = p.parse_args()
    global recipe_matrix, gifx_args
    recipe_matrix = args.recipe_matrix
    gifx_args = shlex.split(args.gifx_args)
    if gifx_args:
        args.note = (args.note + " " if args.note else "") + f"gifx run with {args.gifx_args}."
    args.sets, args.only = args.sets.split(","), {s for s in args.only.split(",") if s}
    results_path = args.json or os.path.join(args.root, "quality.json")
    started = time.time()

    def log(message):
        print(f"[{time.time() - started:6.0f}s] {message}", flush=True)

    if args.self_check:
        gifs = synthetic(os.path.join(args.root, "quality-gifs"))
        for name in ("syn-lottie-320x240", "syn-dithered-320x240"):
            self_check(gifs[name][0], args.gifx, os.path.join(args.root, "out", "quality", "self-check"))
        return
    if not args.report_only:
        commit = args.commit or subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                               text=True).stdout.strip()
        results = {"date": time.strftime("%Y-%m-%d"), "commit": commit, "gifx": args.gifx, "note": args.note,
                   "load_start": os.getloadavg(), "recipe_matrix": recipe_matrix, "rows": []}
        gifs = gif_set(args, log)
        log(f"{len(gifs)} GIFs, codecs {args.codecs}")
        with open(results_path, "w") as f:  # never report an older run's rows as this one's
            json.dump(results, f)
        for codec in args.codecs.split(","):
            for name, path, cls, half in gifs:
                work = os.path.join(args.root, "out", "quality", codec, name)
                results["load_end"] = os.getloadavg()
                results["rows"].append(measure(args.gifx, codec, name, path, cls, half, work, args.timeout,
                                               CODECS[codec][2], log))
                with open(results_path, "w") as f:
                    json.dump(results, f, indent=1)
    with open(results_path) as f:
        results = json.load(f)
    recipe_matrix = results.get("recipe_matrix", "default")
    for extra in [x for x in args.merge.split(",") if x]:  # other runs' rows (another codec, another day)
        with open(extra) as f:
            more = json.load(f)
        results["rows"] += more["rows"]
        results["note"] += f" Rows merged from {extra} ({more['date']}, gifx {more['commit']}). {more.get('note', '')}"
    lines = report(results)
    print("\n".join(lines))
    if args.doc:
        write_doc(lines, args.doc)
        log(f"wrote {args.doc}")


if __name__ == "__main__":
    main()
