#!/usr/bin/env python3
"""Builds the benchmark and fidelity GIFs, reproducibly, under .build-bench/gifs/.

Benchmark GIFs come from ffmpeg's lavfi sources (testsrc2, mandelbrot) through
palettegen/paletteuse with bit-exact flags; the variable-delay one has its GCE
delays rewritten afterwards. Fidelity GIFs are solid colours written directly.
A file that already exists is kept (delete .build-bench/gifs to rebuild).
"""

import hashlib
import os
import subprocess
import sys
from dataclasses import dataclass

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gifblocks  # noqa: E402
import gifwriter  # noqa: E402


@dataclass(frozen=True)
class BenchGif:
    name: str
    source: str            # lavfi source filter
    width: int
    height: int
    frames: int
    palettegen: str = "palettegen"
    paletteuse: str = "paletteuse"
    encoder_flags: tuple = ()
    delay_cycle: tuple = ()  # raw delays (cs) patched in cyclically, empty = keep ffmpeg's 4 cs
    why: str = ""


BENCH_GIFS = [
    BenchGif("480x270x200", "testsrc2", 480, 270, 200, why="typical short UI clip"),
    BenchGif("64x64x5000", "testsrc2", 64, 64, 5000, why="many tiny frames: per-frame overhead"),
    BenchGif("1280x720x250", "mandelbrot", 1280, 720, 250,
             palettegen="palettegen=stats_mode=full", paletteuse="paletteuse=dither=sierra2_4a",
             encoder_flags=("-gifflags", "0"), why="~98 MB: full frames, dithered, hard to compress"),
    BenchGif("3840x2160x60", "testsrc2", 3840, 2160, 60, why="4K: memory per canvas"),
    BenchGif("333x187x100", "mandelbrot", 333, 187, 100, why="odd size: padding/scaling"),
    BenchGif("vardelay-480x270x150", "testsrc2", 480, 270, 150, delay_cycle=(0, 1, 2, 3, 7),
             why="delays 0/1/2/3/7 cs: 100 fps CFR"),
    BenchGif("sprite-256x192x96", "sprite", 256, 192, 96,
             why="a 40x48 character walking on a transparent canvas: --trim --pack maxrects"),
]


# Sizes the memory kind adds to the bench GIFs (480x270, 1280x720 and 4K are in BENCH_GIFS): built only
# when that kind runs, so the other kinds keep their GIF list.
MEMORY_GIFS = [
    BenchGif("854x480x120", "testsrc2", 854, 480, 120, why="480p: the memory kind's smallest size"),
    BenchGif("1920x1080x90", "mandelbrot", 1920, 1080, 90,
             palettegen="palettegen=stats_mode=full", paletteuse="paletteuse=dither=sierra2_4a",
             encoder_flags=("-gifflags", "0"), why="1080p, dithered: the memory kind's third size"),
]


def build_memory_gifs(root, log=print):
    """Returns {name: path} for MEMORY_GIFS, building what is missing."""
    directory = gif_dir(root)
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for spec in MEMORY_GIFS:
        path, built = build_bench_gif(spec, directory)
        log(f"{'built ' if built else 'cached'} {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
        paths[spec.name] = path
    return paths


@dataclass(frozen=True)
class FidelityGif:
    name: str
    delays: tuple  # raw GCE delays in cs, None = no GCE
    why: str


FIDELITY_GIFS = [
    FidelityGif("fid-vardelay", (0, 1, 2, 3, 7) * 8, "delays 0/1/2/3/7 cs cycled, 40 frames"),
    FidelityGif("fid-pause", (10, 10, 10, 500, 10, 10, 3, 3, 250, 10, 4, 6),
                "5 s and 2.5 s pauses among 3-10 cs frames"),
    FidelityGif("fid-nogce", (20, None, None, 5, None, 0, None, 7, 7, None),
                "frames without GCE (carried delays)"),
]
FIDELITY_SIZE = (64, 64)


BATCH_COUNT = 500
BATCH_BASES = [("testsrc2", 160, 120), ("mandelbrot", 160, 120), ("testsrc2", 240, 135),
               ("mandelbrot", 200, 200), ("testsrc2", 96, 96)]
BATCH_FRAMES = 24


def build_batch(root, log=print):
    """BATCH_COUNT small GIFs for `gifx batch` (issue 9): a few ffmpeg-made bases, each copied
    with its own delays (2..11 cs), so every file differs. Returns the folder."""
    directory = os.path.join(root, "batch-gifs")
    done = os.path.join(directory, ".complete")
    if os.path.exists(done):
        return directory
    os.makedirs(directory, exist_ok=True)
    bases = []
    for i, (source, w, h) in enumerate(BATCH_BASES):
        spec = BenchGif(f"base{i}", source, w, h, BATCH_FRAMES)
        base = os.path.join(directory, f".base{i}.gif")
        _ffmpeg_gif(spec, base)
        bases.append(base)
    for k in range(BATCH_COUNT):
        delay = 2 + (k // len(bases)) % 10
        gifblocks.patch_delays(bases[k % len(bases)], os.path.join(directory, f"g{k:03d}.gif"),
                               lambda i, d=delay: d)
    for base in bases:
        os.remove(base)
    open(done, "w").close()
    log(f"built {BATCH_COUNT} small GIFs in {directory}")
    return directory


def gif_dir(root):
    return os.path.join(root, "gifs")


def _ffmpeg_gif(spec: BenchGif, out):
    graph = (f"{spec.source}=size={spec.width}x{spec.height}:rate=25,"
             f"trim=end_frame={spec.frames},split[a][b];[a]{spec.palettegen}[p];[b][p]{spec.paletteuse}")
    cmd = ["ffmpeg", "-v", "error", "-nostdin", "-y", "-f", "lavfi", "-i", graph,
           "-fflags", "+bitexact", "-flags", "+bitexact", "-map_metadata", "-1",
           *spec.encoder_flags, "-f", "gif", out]
    subprocess.run(cmd, check=True)


def _sprite_gif(spec: BenchGif, out):
    """A small character (40x48, 12 colours, legs and arms swinging over an 8-frame cycle) walking on a
    transparent canvas: each frame is the character's own rect, disposed to background, like the sprite
    GIFs of games and stickers."""
    palette = [(0, 0, 0)] + [(40 + 17 * i, 200 - 13 * i, 90 + 11 * i) for i in range(12)]
    cw, ch = 40, 48
    frames = []
    for k in range(spec.frames):
        phase = k % 8
        swing = (phase if phase < 4 else 8 - phase) - 2          # -2..2
        indices = bytearray(cw * ch)
        def put(x, y, c):
            if 0 <= x < cw and 0 <= y < ch:
                indices[y * cw + x] = c
        for y in range(4, 16):                                     # head: a disc
            for x in range(12, 28):
                if (x - 20) ** 2 + (y - 10) ** 2 <= 36:
                    put(x, y, 1 + (x + y) % 3)
        for y in range(16, 32):                                    # body
            for x in range(13, 27):
                put(x, y, 4 + (y // 4) % 3)
        for y in range(32, 48):                                    # legs, swinging
            off = swing * (y - 32) // 8
            for x in range(14, 19):
                put(x + off, y, 7 + (k // 8) % 2)
            for x in range(21, 26):
                put(x - off, y, 9)
        for y in range(17, 30):                                    # arms
            off = -swing * (y - 17) // 6
            put(10 + off, y, 10); put(11 + off, y, 10)
            put(28 - off, y, 11); put(29 - off, y, 12)
        left = (k * 5) % (spec.width - cw)
        top = 40 + int(30 * abs(((k * 3) % 40) - 20) / 20)
        frames.append({"left": left, "top": min(top, spec.height - ch), "width": cw, "height": ch,
                       "indices": bytes(indices), "delay": 6, "disposal": 2, "transparent": 0})
    gifwriter.write_indexed_gif(out, spec.width, spec.height, palette, frames)


def build_bench_gif(spec: BenchGif, directory):
    path = os.path.join(directory, spec.name + ".gif")
    if os.path.exists(path):
        return path, False
    tmp = path + ".tmp"
    if spec.source == "sprite":
        _sprite_gif(spec, tmp)
    else:
        _ffmpeg_gif(spec, tmp)
    if spec.delay_cycle:
        cycle = spec.delay_cycle
        gifblocks.patch_delays(tmp, tmp, lambda i: cycle[i % len(cycle)])
    os.replace(tmp, path)
    return path, True


def build_fidelity_gif(spec: FidelityGif, directory):
    path = os.path.join(directory, spec.name + ".gif")
    if os.path.exists(path):
        return path, False
    colours = gifwriter.distinct_colours(len(spec.delays))
    tmp = path + ".tmp"
    gifwriter.write_solid_gif(tmp, *FIDELITY_SIZE, colours, list(spec.delays))
    os.replace(tmp, path)
    return path, True


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def build_all(root, only=None, log=print):
    """Returns {name: path} for every benchmark and fidelity GIF, building what is missing."""
    directory = gif_dir(root)
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for spec in BENCH_GIFS:
        if only and spec.name not in only:
            continue
        path, built = build_bench_gif(spec, directory)
        log(f"{'built ' if built else 'cached'} {path} ({os.path.getsize(path) / 1e6:.1f} MB)")
        paths[spec.name] = path
    for spec in FIDELITY_GIFS:
        path, built = build_fidelity_gif(spec, directory)
        paths[spec.name] = path
    return paths


if __name__ == "__main__":
    root = sys.argv[1] if len(sys.argv) > 1 else ".build-bench"
    for name, path in build_all(root).items():
        print(f"{sha256(path)[:16]}  {path}")
