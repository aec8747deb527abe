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
}


def write_gif(path, raw_delays, alpha):
    n = len(raw_delays)
    palette = bytearray()
    for i in range(128):
        palette += bytes(COLOURS[i] if i < n else (0, 0, 0))
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", WIDTH, HEIGHT, 0x80 | 0x70 | 6, 0, 0)  # global table, 128 entries
    out += palette
    out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", 0) + b"\x00"  # loop forever
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
        write_gif(os.path.join(directory, name + ".gif"), raw, alpha)


if __name__ == "__main__":
    main(sys.argv[1])
