"""The browser check's fixture GIFs: solid-colour frames whose schedule and colours are known by construction.

Each fixture lists its raw GCE delays (None = no GCE) and, written out by hand from the rules in
/work/shared/docs/timeline.md (FLAnimatedImage: a delay below 2 cs becomes 10 cs, a frame without a GCE
carries the previous resolved delay), the delays a correct player shows. Nothing here is read back from gifx.
Frame i is palette colour i: the left half always; the right half too, or transparent for `alpha` fixtures.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Benchmarks"))
from gifwriter import _lzw_literal  # noqa: E402  (uncompressed LZW of palette indices < 128)

WIDTH, HEIGHT = 64, 48
TRANSPARENT = 127  # palette index used for transparent pixels

# Far-apart colours (distance >= 170 between any two), one per frame; a fixture has at most 18 frames.
COLOURS = [
    (255, 0, 0), (0, 0, 255), (0, 255, 0), (255, 255, 0), (255, 0, 255), (0, 255, 255),
    (0, 0, 0), (255, 255, 255), (170, 0, 0), (0, 0, 170), (0, 170, 0), (170, 170, 0),
    (170, 0, 170), (0, 170, 170), (255, 170, 0), (170, 255, 0), (0, 170, 255), (255, 0, 170),
]

# name: (raw delays in cs, resolved delays in cs, alpha)
FIXTURES = {
    # tick 3: the last frame lasts 30 ms (x264's B-frames put it before its decode end)
    "tick3": ([3] * 8, [3] * 8, False),
    # tick 1, irregular, last frame 30 ms
    "timing-mix": ([7, 3, 12, 5, 25, 4, 3], [7, 3, 12, 5, 25, 4, 3], False),
    # a 30 fps export: delays 3/4/3, tick 1 (100 fps by default, 30 fps with --fps auto)
    "video30": ([3, 4, 3] * 6, [3, 4, 3] * 6, False),
    # a screen recording: 7-9 cs with a pause
    "screen": ([8, 9, 7, 150, 8, 9], [8, 9, 7, 150, 8, 9], False),
    # delays 0 and 1 cs become 10 cs; a frame without a GCE carries the previous resolved delay (10 cs)
    "undelayed": ([5, 0, 1, None, 20], [5, 10, 10, 10, 20], False),
    # right half transparent in every frame, disposal 2 (restore to background): alpha in WebM/WebP
    "alpha": ([6, 4, 10, 8], [6, 4, 10, 8], True),
    # issue 57: a GIF that plays once and one that plays 3 times (NETSCAPE count 1 and 3, PLAYS below)
    "plays-1": ([10, 20, 30], [10, 20, 30], False),
    "plays-3": ([10, 20, 30], [10, 20, 30], False),
}

# Issue 57: the plays an image output (WebP, APNG, AVIF) carries, read as WebCodecs' ImageDecoder
# `repetitionCount`. name: (NETSCAPE loop count written, the repetitionCount a browser reports). Under the default
# (flanimated) policy a count N is N plays (timeline.md), so N - 1 repetitions; every other fixture is written
# with count 0 (forever: Infinity). These fixtures run in the image modes only.
PLAYS = {"plays-1": (1, 0), "plays-3": (3, 2)}


def write_gif(path, raw_delays, alpha, loop=0):
    n = len(raw_delays)
    palette = bytearray()
    for i in range(128):
        palette += bytes(COLOURS[i] if i < n else (0, 0, 0))
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", WIDTH, HEIGHT, 0x80 | 0x70 | 6, 0, 0)  # global table, 128 entries
    out += palette
    out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00"  # 0: loop forever
    for i, delay in enumerate(raw_delays):
        if delay is not None or alpha:
            disposal, flags = (2, 1) if alpha else (1, 0)
            out += b"\x21\xF9\x04" + bytes([disposal << 2 | flags]) + struct.pack("<H", delay or 0)
            out += bytes([TRANSPARENT, 0])
        row = [i] * (WIDTH // 2) + [TRANSPARENT if alpha else i] * (WIDTH // 2)
        out += b"\x2C" + struct.pack("<HHHHB", 0, 0, WIDTH, HEIGHT, 0)
        out += _lzw_literal(bytes(row * HEIGHT))
    out += b"\x3B"
    with open(path, "wb") as f:
        f.write(out)


def main(directory):
    os.makedirs(directory, exist_ok=True)
    for name, (raw, _, alpha) in FIXTURES.items():
        write_gif(os.path.join(directory, name + ".gif"), raw, alpha, PLAYS.get(name, (0, None))[0])
    write_other_inputs(directory)


if __name__ == "__main__":
    main(sys.argv[1])


# Issue 35: animated WebP and APNG inputs, solid-colour frames like the GIFs, each with its own delays in
# the format's units and, worked out by hand from the player table for the default policy
# (flanimated = YYImage: a delay below 11 ms becomes 100 ms, fractions of a ms kept; an APNG delay is
# num/den s, den 0 meaning 100), the delays in ms a correct player shows. Converted to MP4 (tick, --vfr) and
# WebM only (OTHER_INPUT_MODES); frame i is COLOURS[i] as above.
# name: (format, raw delays (WebP: ms; APNG: (num, den)), resolved delays in ms, alpha)
OTHER_INPUTS = {
    # 5 ms becomes 100 ms; tick 20 ms (50 fps)
    "webp-ms": ("webp", [40, 60, 5, 120, 80, 20], [40, 60, 100, 120, 80, 20], False),
    # right half transparent in every frame
    "webp-alpha": ("webp", [70, 30, 50, 90], [70, 30, 50, 90], True),
    # 1/30 s is 33.333… ms (exact in a 1/3000 s time base), num 0 becomes 100 ms, den 0 means 1/100 s;
    # tick 100/3 ms (30 fps); right half transparent
    "apng-thirds": ("apng", [(1, 30), (1, 30), (1, 15), (1, 10), (0, 100), (10, 0)],
                    [100 / 3, 100 / 3, 200 / 3, 100, 100, 100], True),
    # issue 59: animated AVIF inputs (avifenc 0.11, lossless, in the track's own timescale): the issue's
    # 40/70/100/1000 ms file, and 1/30 s frames; "avif-plays-3" carries 3 plays in an edit list (avifenc writes
    # none, which browsers read as forever)
    "avif-ms": ("avif", [(40, 1000), (70, 1000), (100, 1000), (1000, 1000)], [40, 70, 100, 1000], False),
    "avif-thirds": ("avif", [(1, 30), (1, 30), (2, 30), (3, 30)], [100 / 3, 100 / 3, 200 / 3, 100], False),
    "avif-plays-3": ("avif", [(50, 1000), (80, 1000), (120, 1000)], [50, 80, 120], False),
}
OTHER_INPUT_MODES = {"tick", "vfr", "webm", "stream", "stream-webm", "avif-in"}
# Plays an AVIF input's edit list declares (repetitionCount = plays - 1); the others loop forever.
OTHER_INPUT_PLAYS = {"avif-plays-3": 3}


def _frame_pixels(i, alpha):
    """RGBA bytes of frame i: COLOURS[i] on the left half, the same or transparent on the right."""
    left = bytes(COLOURS[i]) + b"\xff"
    right = b"\x00\x00\x00\x00" if alpha else left
    return (left * (WIDTH // 2) + right * (WIDTH // 2)) * HEIGHT


def write_webp(path, delays, alpha):
    """Lossless animated WebP through Pillow (libwebp's WebPAnimEncoder), one frame per delay, loop forever."""
    from PIL import Image
    frames = [Image.frombytes("RGBA", (WIDTH, HEIGHT), _frame_pixels(i, alpha)) for i in range(len(delays))]
    frames[0].save(path, save_all=True, append_images=frames[1:], duration=list(delays), loop=0,
                   lossless=True, quality=100, method=0, minimize_size=False, allow_mixed=False)


def write_apng(path, delays, alpha):
    """APNG written chunk by chunk (zlib + struct): the first frame is the default image, every frame
    covers the canvas with dispose NONE and blend SOURCE, delays exactly as given (num, den); loop forever."""
    import zlib

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    def image(i):
        px = _frame_pixels(i, alpha)
        rows = b"".join(b"\x00" + px[y * WIDTH * 4:(y + 1) * WIDTH * 4] for y in range(HEIGHT))
        return zlib.compress(rows)

    out = bytearray(b"\x89PNG\r\n\x1a\n")
    out += chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 6, 0, 0, 0))
    out += chunk(b"acTL", struct.pack(">II", len(delays), 0))
    sequence = 0
    for i, (num, den) in enumerate(delays):
        out += chunk(b"fcTL", struct.pack(">IIIIIHHBB", sequence, WIDTH, HEIGHT, 0, 0, num, den, 0, 0))
        sequence += 1
        if i == 0:
            out += chunk(b"IDAT", image(i))
        else:
            out += chunk(b"fdAT", struct.pack(">I", sequence) + image(i))
            sequence += 1
    out += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(out)


def write_avif(path, delays, alpha, plays=0):
    """Lossless AVIF through the conformance matrix's avifenc writer (Tests/ConformanceMatrix/fixtures.py, which
    also adds the edit list of `plays` > 0), over this check's solid-colour frames as PNG."""
    import importlib.util
    import zlib
    # Loaded by path: that module is also named fixtures.
    matrix = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "ConformanceMatrix", "fixtures.py")
    spec = importlib.util.spec_from_file_location("matrix_fixtures", matrix)
    matrix_fixtures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(matrix_fixtures)

    def png(target, i):
        def chunk(kind, data):
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        px = _frame_pixels(i, alpha)
        rows = b"".join(b"\x00" + px[y * WIDTH * 4:(y + 1) * WIDTH * 4] for y in range(HEIGHT))
        with open(target, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 6, 0, 0, 0))
                    + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))

    matrix_fixtures.write_avif(path, delays, plays, frame_png=png)


def input_path(directory, name):
    """The fixture's input file: NAME.gif, NAME.webp, NAME.png or NAME.avif."""
    if name in OTHER_INPUTS:
        return os.path.join(directory, name + {"webp": ".webp", "apng": ".png", "avif": ".avif"}[OTHER_INPUTS[name][0]])
    return os.path.join(directory, name + ".gif")


def write_other_inputs(directory):
    os.makedirs(directory, exist_ok=True)
    for name, (kind, raw, _, alpha) in OTHER_INPUTS.items():
        if kind == "avif":
            write_avif(input_path(directory, name), raw, alpha, OTHER_INPUT_PLAYS.get(name, 0))
        else:
            (write_webp if kind == "webp" else write_apng)(input_path(directory, name), raw, alpha)
