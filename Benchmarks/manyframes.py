"""Writes a GIF of N 1x1 frames fast (~23 bytes a frame): the frame-count scaling input (issue 17).

Every frame has a GCE (delays cycling 2..9 cs, or all DELAY cs when given; disposal none) and a 1x1 image using one of the four
global palette colours (index cycling 0..3), so the schedule is not trivial and `--dedupe` finds four
distinct canvases. Built from one repeated 4-frame unit, so 5 million frames take about a second.

    python3 Benchmarks/manyframes.py OUT.gif FRAMES [DELAY]

A constant DELAY makes the tick equal to it, so `to-mp4` encodes one video frame per GIF frame.
"""

import struct
import sys


def frame(index, delay):
    gce = b"\x21\xF9\x04\x00" + struct.pack("<H", delay) + b"\x00\x00"
    descriptor = b"\x2C" + struct.pack("<HHHHB", 0, 0, 1, 1, 0)
    # LZW, minimum code size 2: codes clear(4), index, end(5), 3 bits each, packed LSB first.
    bits = 4 | (index << 3) | (5 << 6)
    data = b"\x02\x02" + struct.pack("<H", bits) + b"\x00"
    return gce + descriptor + data


def write_many_frames(path, count, delay=None):
    header = b"GIF89a" + struct.pack("<HHBBB", 1, 1, 0x80 | 0x01, 0, 0)
    header += bytes((0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255))  # black, red, green, blue
    header += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    unit = b"".join(frame(i % 4, delay or 2 + i % 8) for i in range(8))
    with open(path, "wb") as out:
        out.write(header)
        whole, rest = divmod(count, 8)
        block = unit * 4096
        for _ in range(whole // 4096):
            out.write(block)
        out.write(unit * (whole % 4096))
        out.write(b"".join(frame(i % 4, delay or 2 + i % 8) for i in range(rest)))
        out.write(b"\x3B")


if __name__ == "__main__":
    write_many_frames(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else None)
