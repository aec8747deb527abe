#!/usr/bin/env python3
"""The encoder matrix (issue 42): every encoder gifx drives, across frame sizes, rates and modes, under
MALLOC_CHECK_=3. Every cell must end with exit 0 and an output that ffprobe (and, for WebP, webpmux) and
`gifx verify` accept, or with a one-line refusal with a documented exit code (64 usage, 65 data, 78 memory
budget). Never a signal, never another exit code, never a hang.

    python3 Tests/EncoderMatrix/encoder_matrix.py --gifx .build/debug/gifx            # the whole sweep
    python3 Tests/EncoderMatrix/encoder_matrix.py --gifx .build/debug/gifx --sample   # make test's sample

The GIFs are written with Pillow (deterministic content: a gradient with a moving box, a transparent band for
the alpha cells, and the screen-recording-like 32x18 schedule that aborted libaom). Prints one line per
failure, a table per codec, and a last line "N passed, F failed (...)"; exits 1 when a cell failed.
docs/reliability.md ("Encoder matrix") has the axes, the sizes and what the sweep found.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

try:
    from PIL import Image
except ImportError:  # make deps installs it; without it the sample is reported as skipped, with the reason
    Image = None

# --- The axes -----------------------------------------------------------------------------------------------

# Sizes 1-130 in both dimensions, odd and even, around every encoder's block and limit sizes (2: yuv420p;
# 16/32: libx265's minimum and heap bug; 64: SVT-AV1's minimum, below which libaom takes AV1).
GRID = [1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 130]
# The sizes every mode runs at (a sample of GRID x GRID with every kind of side) and a few large frames.
MODE_SIZES = [(1, 1), (2, 3), (7, 8), (16, 16), (17, 15), (31, 33), (32, 18), (63, 65), (64, 64), (65, 127),
              (130, 128)]
LARGE_SIZES = [(1920, 1080), (2000, 16), (16, 2000), (4096, 66)]

# Delays (cs) of the 16-frame GIFs: the tick (GCD) is 1, 2, 3 or 7 cs. "screen" is the schedule of issue 42's
# screen recording (long still stretches at a 1 cs tick: 339 output frames), the one libaom aborted on.
SCHEDULES = {
    "tick1": [2, 3, 5, 2, 7, 3, 2, 4, 3, 2, 5, 2, 3, 2, 4, 3],
    "tick2": [4, 6, 2, 10, 8, 2, 4, 20, 6, 4, 2, 8, 10, 4, 6, 2],
    "tick3": [3, 6, 9, 3, 12, 3, 6, 30, 3, 9, 6, 3, 3, 15, 6, 3],
    "tick7": [7, 14, 7, 21, 7, 7, 14, 7, 28, 7, 7, 14, 7, 7, 21, 7],
    "screen": [50, 15, 70, 3, 10, 50, 6, 2, 2, 4, 20, 15, 10, 50, 25, 7],
    "one": [50],
    "large": [7, 14, 7, 21],
}

# Each codec: the command, the output's extension, extra arguments, whether the GIF has transparency, and the
# ffprobe codec name expected (None: WebP, which ffprobe 5.1 lists but cannot decode when animated).
CODECS = {
    "h264": (["to-mp4", "--codec", "h264"], ".mp4", [], False, "h264"),
    "hevc": (["to-mp4", "--codec", "hevc"], ".mp4", [], False, "hevc"),
    "vp9": (["convert"], ".webm", [], False, "vp9"),
    "vp9-alpha": (["convert"], ".webm", [], True, "vp9"),
    "av1": (["to-mp4", "--codec", "av1"], ".mp4", [], False, "av1"),
    "webp": (["convert"], ".webp", [], True, None),
    "webp-lossy": (["convert"], ".webp", ["--webp-quality", "75"], True, None),
    "avif": (["convert"], ".avif", [], False, "av1"),
}
VIDEO = {"h264", "hevc", "vp9", "vp9-alpha", "av1", "avif"}

# Modes: (name, schedule, extra arguments, codecs it applies to (None: all)).
MODES = [
    ("tick2", "tick2", [], None),
    ("tick3", "tick3", [], None),
    ("tick7", "tick7", [], None),
    ("screen", "screen", [], None),
    ("fps-auto", "tick1", ["--fps", "auto"], VIDEO),
    ("vfr", "tick1", ["--vfr"], VIDEO),
    ("fps-30", "tick1", ["--fps", "30"], VIDEO),
    ("max-fps-25", "tick1", ["--max-fps", "25"], VIDEO),
    ("screen-vfr", "screen", ["--vfr"], VIDEO),
    ("loops-3", "tick1", ["--loops", "3"], VIDEO),
    ("one-frame", "one", [], None),
    ("target-size", "tick1", ["--target-size", "6000"], VIDEO),
    ("level-3.1", "tick2", ["--level", "3.1"], {"h264", "hevc"}),
    ("threads-1", "tick1", ["--threads", "1"], None),
    ("memory-64M", "tick1", ["--memory-budget", "64M"], None),
]

# Exit codes of a refusal (docs/reliability.md): usage, malformed or unusable data, memory budget too small.
REFUSALS = {64: "usage", 65: "data", 78: "budget"}
CELL_TIMEOUT = 300
# The PSNR (dB) gifx verify asks of lossy cells: 25 (verify's default is 30: a sharp-edged box a few pixels
# wide, at each codec's default CRF, is harder than real content; quality is docs/benchmarks.md's business,
# the matrix's is that every output is whole and shows the right frame at the right time); 20 under
# --target-size, whose point is to give quality up; 12 under 8 pixels a side, where the PSNR is that of a
# handful of pixels beside the padding of odd sides, all in one block: a 1x1 pixel of 85 padded to 2x2 with
# white decodes as 71 to 114 (VP9, AV1) at the default CRF, a 2x1 frame reaches 14.7 dB (x264). 12 dB still
# tells frames apart: the box's gray changes by 105 levels or more from one frame to the next (under 11 dB
# even where the box is one pixel of two).
LOSSY_MIN_PSNR = (25, 20, 12)


def av1_encoder(width, height):
    """The AV1 encoder gifx picks (VideoCodec.encoderName(for:)): libaom under 64 pixels a side, after
    padding odd sides to even."""
    return "libaom" if min(width + width % 2, height + height % 2) < 64 else "svt-av1"


def codec_label(codec, width, height):
    if codec in ("av1", "avif"):
        return f"{codec} ({av1_encoder(width, height)})"
    return codec


# --- The GIFs ---------------------------------------------------------------------------------------------

PALETTE_SIZE = 64


def palette():
    """Index 0 transparent (magenta, never shown), 1-47 a gradient, 48-63 the box's grays, far apart from one
    frame to the next (`box_shade`) so that lossy outputs still tell every frame from its neighbours (gifx
    verify identifies each frame shown). Near-gray colours: 4:2:0 chroma does not blur them."""
    colours = [(255, 0, 255)]
    for k in range(47):
        v = 90 + k * 3
        colours.append((v, v, v + 12))
    for k in range(16):
        v = 10 + k * 15
        colours.append((v, v, v))
    flat = [c for rgb in colours for c in rgb]
    return flat + [0] * (768 - len(flat))


def box_shade(i):
    """The box's palette index in frame i: 16 distinct grays, consecutive frames about half the range apart."""
    return 48 + (i * 7) % 16


def screen_frame(width, height, i):
    """Issue 42's screen recording: a light gray screen (dithered onto Pillow's web palette) with a one-pixel
    cursor moving across it."""
    image = Image.new("RGB", (width, height), (240, 240, 240))
    image.putpixel(((i * 3) % width, (i * 2) % height), (0, 0, 0))
    return image.convert("P")


def box_frame(width, height, i, alpha):
    """A vertical gradient with a dark box moving across it; with `alpha`, the left quarter (at least one
    column when wider than one pixel) is transparent."""
    image = Image.new("P", (width, height), 1)
    image.putpalette(palette())
    pixels = image.load()
    for y in range(height):
        shade = 1 + (y * 46) // max(1, height - 1)
        for x in range(width):
            pixels[x, y] = shade
    side = max(1, min(width, height) // 3)
    bx = (i * max(1, width // 8)) % max(1, width - side + 1)
    by = (i * max(1, height // 8)) % max(1, height - side + 1)
    for y in range(by, min(height, by + side)):
        for x in range(bx, min(width, bx + side)):
            pixels[x, y] = box_shade(i)
    if alpha and width > 1:
        for y in range(height):
            for x in range(max(1, width // 4)):
                pixels[x, y] = 0
    return image


def write_gif(path, width, height, schedule, alpha):
    delays = SCHEDULES[schedule]
    if schedule == "screen" and width * height <= 64 * 64:
        frames = [screen_frame(width, height, i) for i in range(len(delays))]
        options = {}
    else:
        frames = [box_frame(width, height, i, alpha) for i in range(len(delays))]
        options = {"transparency": 0} if alpha else {}
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=[d * 10 for d in delays], loop=0,
                   optimize=False, disposal=1, **options)


class GifCache:
    def __init__(self, folder):
        self.folder = folder
        self.lock = threading.Lock()
        self.made = {}

    def get(self, width, height, schedule, alpha):
        key = (width, height, schedule, alpha)
        with self.lock:
            if key not in self.made:
                path = os.path.join(self.folder, f"{width}x{height}-{schedule}{'-alpha' if alpha else ''}.gif")
                write_gif(path, width, height, schedule, alpha)
                self.made[key] = path
            return self.made[key]


# --- The cells --------------------------------------------------------------------------------------------

def cells(sample):
    """(codec, width, height, mode, schedule, extra args) for every cell of the sweep, or of the sample."""
    result = []
    if sample:
        # make test: each codec at sizes on each side of its limits, the screen recording, and every
        # mode once at a libaom size and once at another, spread over the codecs.
        for codec in CODECS:
            for size in [(1, 1), (17, 15), (32, 18), (31, 31), (64, 64)]:
                result.append((codec, *size, "tick1", "tick1", []))
        result.append(("av1", 32, 18, "screen", "screen", []))
        result.append(("avif", 32, 18, "screen", "screen", []))
        codecs = list(CODECS)
        for k, (mode, schedule, extra, only) in enumerate(MODES):
            eligible = [c for c in codecs if only is None or c in only]
            result.append((eligible[k % len(eligible)], 33, 31, mode, schedule, extra))
            result.append((eligible[(k + 3) % len(eligible)], 64, 66, mode, schedule, extra))
        return result
    for codec in CODECS:
        for width in GRID:
            for height in GRID:
                result.append((codec, width, height, "tick1", "tick1", []))
    for mode, schedule, extra, only in MODES:
        for codec in CODECS:
            if only is not None and codec not in only:
                continue
            for width, height in MODE_SIZES:
                result.append((codec, width, height, mode, schedule, extra))
    for codec in CODECS:
        for width, height in LARGE_SIZES:
            result.append((codec, width, height, "large", "large", []))
    return result


def run(args, timeout, env):
    """(exit status or -signal, stdout, stderr, seconds); a hang is killed and reported as 'timeout'."""
    start = time.monotonic()
    process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                               errors="replace", start_new_session=True)
    try:
        out, err = process.communicate(timeout=timeout)
        status = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        status = "timeout"
    return status, out, err, time.monotonic() - start


def probe(path, expected_codec, width, height):
    """None when ffprobe (and webpmux for WebP) accept the output, else why not."""
    status, out, err, _ = run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width,height",
                               "-of", "json", path], 60, None)
    if status != 0:
        return f"ffprobe exit {status}: {err.strip()[:200]}"
    streams = json.loads(out or "{}").get("streams", [])
    if not streams:
        return "ffprobe finds no stream"
    if expected_codec is None:  # WebP: ffprobe 5.1 lists the stream but cannot decode an animated one
        if streams[0].get("codec_name") != "webp":
            return f"ffprobe reads {streams[0].get('codec_name')}, not webp"
        status, out, err, _ = run(["webpmux", "-info", path], 60, None)
        if status != 0 or f"Canvas size: {width} x {height}" not in out:
            return f"webpmux -info: exit {status}: {(out + err).strip()[:200]}"
        return None
    stream = streams[0]
    if stream.get("codec_name") != expected_codec:
        return f"ffprobe reads {stream.get('codec_name')}, not {expected_codec}"
    if not stream.get("width") or not stream.get("height"):
        return f"ffprobe reads a {stream.get('width')}x{stream.get('height')} stream"
    return None


def run_cell(gifx, cache, work, cell, env):
    codec, width, height, mode, schedule, extra = cell
    command, suffix, codec_args, alpha, expected = CODECS[codec]
    gif = cache.get(width, height, schedule, alpha)
    folder = tempfile.mkdtemp(dir=work)
    output = os.path.join(folder, "out" + suffix)
    args = [gifx, *command, gif, "-o", output, "--quiet", *codec_args, *extra]
    status, _, err, seconds = run(args, CELL_TIMEOUT, env)
    lines = [line for line in err.splitlines() if line.strip()]
    failures = [line for line in lines if ": warning: " not in line]
    record = {"codec": codec_label(codec, width, height), "size": f"{width}x{height}", "mode": mode,
              "args": " ".join(args[1:]).replace(gif, os.path.basename(gif)).replace(output, "OUT" + suffix),
              "status": status, "seconds": round(seconds, 2)}
    leftovers = [name for name in os.listdir(folder) if name != "out" + suffix]
    try:
        if status == "timeout":
            return {**record, "result": "FAIL", "why": f"no exit after {CELL_TIMEOUT} s"}
        if status < 0:
            name = signal.Signals(-status).name
            tail = " | ".join(lines[:2])[:300]
            return {**record, "result": "FAIL", "why": f"killed by {name}: {tail}", "signal": name}
        if leftovers:
            return {**record, "result": "FAIL", "why": f"left {leftovers} in the output folder"}
        if status in REFUSALS:
            if len(failures) != 1 or not failures[0].startswith("gifx: ") or os.path.exists(output):
                return {**record, "result": "FAIL",
                        "why": f"exit {status} without exactly one line and no output: {lines[:3]}"}
            return {**record, "result": "refused", "why": failures[0]}
        if status != 0:
            return {**record, "result": "FAIL", "why": f"exit {status}: {' | '.join(lines[:3])[:300]}"}
        if not os.path.exists(output):
            return {**record, "result": "FAIL", "why": "exit 0 without an output"}
        problem = probe(output, expected, width, height)
        if problem:
            return {**record, "result": "FAIL", "why": problem}
        verify = [gifx, "verify", gif, output, "--quiet"]
        if codec != "webp":  # lossy: see LOSSY_MIN_PSNR
            tiny = min(width, height) < 8
            bound = LOSSY_MIN_PSNR[2] if tiny else LOSSY_MIN_PSNR[1] if "--target-size" in extra else LOSSY_MIN_PSNR[0]
            verify += ["--min-psnr", str(bound)]
        vstatus, _, verr, _ = run(verify, CELL_TIMEOUT, env)
        if vstatus != 0:
            return {**record, "result": "FAIL", "why": f"gifx verify exit {vstatus}: {verr.strip()[:300]}"}
        if "--target-size" in extra and os.path.getsize(output) > 6000:
            return {**record, "result": "FAIL", "why": f"{os.path.getsize(output)} bytes over --target-size"}
        return {**record, "result": "ok"}
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gifx", required=True)
    parser.add_argument("--sample", action="store_true", help="the sample make test runs (about a minute)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--codec", action="append", help="only these codecs (repeatable)")
    parser.add_argument("--mode", action="append", help="only these modes (repeatable: tick1, screen, ...)")
    parser.add_argument("--json", help="write every cell's record here (JSON lines)")
    parser.add_argument("--keep", action="store_true", help="keep the generated GIFs")
    options = parser.parse_args()
    gifx = os.path.abspath(options.gifx)
    missing = [name for name, absent in [("Pillow (python3 -m pip install Pillow)", Image is None),
                                          ("ffprobe (Debian package ffmpeg)", shutil.which("ffprobe") is None),
                                          ("webpmux (Debian package webp)", shutil.which("webpmux") is None)]
               if absent]
    if missing:
        # make test's sample is skipped with its reason (as a Swift test without its oracle is); the whole
        # sweep, asked for by name, fails.
        print(f"encoder matrix{' sample' if options.sample else ''}: skipped: {', '.join(missing)} missing")
        return 0 if options.sample else 1
    env = dict(os.environ, MALLOC_CHECK_="3", MALLOC_PERTURB_="165", SWIFT_BACKTRACE="enable=no")
    selected = [c for c in cells(options.sample)
                if (not options.codec or c[0] in options.codec) and (not options.mode or c[3] in options.mode)]
    work = tempfile.mkdtemp(prefix="gifx-encoder-matrix-")
    cache = GifCache(work)
    start = time.monotonic()
    records = []
    try:
        with concurrent.futures.ThreadPoolExecutor(max(1, options.jobs)) as pool:
            futures = [pool.submit(run_cell, gifx, cache, work, cell, env) for cell in selected]
            for future in concurrent.futures.as_completed(futures):
                record = future.result()
                records.append(record)
                if record["result"] == "FAIL":
                    print(f"FAIL {record['codec']} {record['size']} {record['mode']}: {record['why']}\n"
                          f"     gifx {record['args']}", flush=True)
    finally:
        if options.keep:
            print(f"GIFs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.monotonic() - start
    if options.json:
        with open(options.json, "w") as handle:
            for record in sorted(records, key=lambda r: (r["codec"], r["mode"], r["size"])):
                handle.write(json.dumps(record) + "\n")

    by_codec = {}
    for record in records:
        row = by_codec.setdefault(record["codec"], {"ok": 0, "refused": 0, "FAIL": 0})
        row[record["result"]] += 1
    print(f"{'codec':<18} {'cells':>6} {'ok':>6} {'refused':>8} {'failed':>7}")
    for codec in sorted(by_codec):
        row = by_codec[codec]
        print(f"{codec:<18} {sum(row.values()):>6} {row['ok']:>6} {row['refused']:>8} {row['FAIL']:>7}")
    refusals = {}
    for record in records:
        if record["result"] == "refused":
            # The message without the input's path ("gifx: X.gif: the canvas ..." -> "the canvas ..."), its
            # numbers as N so that one kind of refusal is one line.
            message = record["why"].split(": ", 2)[-1]
            names = {"libx264": "@AVC@", "libx265": "@HEVC@"}  # numbers that are names, kept
            kind = message
            for name, token in names.items():
                kind = kind.replace(name, token)
            kind = re.sub(r"\d+(\.\d+)?", "N", kind)
            for name, token in names.items():
                kind = kind.replace(token, name)
            refusals.setdefault((record["status"], kind), []).append(f"{record['codec']} {record['size']}: {message}")
    for (status, kind), where in sorted(refusals.items()):
        print(f"refused, exit {status}, {len(where)} cell(s): {kind}\n    e.g. {where[0]}")
    passed = sum(1 for r in records if r["result"] != "FAIL")
    failed = len(records) - passed
    signals = sum(1 for r in records if "signal" in r)
    refused = sum(1 for r in records if r["result"] == "refused")
    print(f"encoder matrix{' sample' if options.sample else ''}: {passed} passed, {failed} failed "
          f"({passed - refused} converted and verified, {refused} refused in one line; {signals} signals) "
          f"in {elapsed:.0f} s with {options.jobs} jobs")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
