"""The matrix's inputs, written byte by byte (GIF, APNG) or through webpmux (WebP), so each schedule is exactly what
the test says: a GIF delay of 0 or 1 cs, a WebP frame of 0 ms, an APNG frame of 1/30 s, a loop count or none.

Every writer takes the same frames (solid colour and a moving box, distinct in every frame) and a schedule in
its format's own units, and says which schedules it cannot write (a GIF's delay is in cs and a WebP's in ms:
neither holds 1/30 s)."""
import os
import struct
import subprocess
import tempfile
import zlib
from fractions import Fraction

WIDTH, HEIGHT = 32, 24
PALETTE = [(255, 255, 255), (200, 30, 30), (30, 160, 40), (40, 60, 200), (230, 200, 20), (20, 200, 210),
           (210, 40, 200), (120, 120, 120), (0, 0, 0), (250, 140, 30), (140, 70, 20), (90, 200, 120),
           (160, 160, 250), (250, 170, 200), (60, 20, 90), (20, 90, 60)]


def frame_indices(i):
    """Frame i as palette indices, row-major: background colour 1 + i % 7, an 8x8 box of colour 8 + i % 8."""
    background, box = 1 + i % 7, 8 + i % 8
    bx, by = (i * 5) % (WIDTH - 8), (i * 3) % (HEIGHT - 8)
    return [box if bx <= x < bx + 8 and by <= y < by + 8 else background for y in range(HEIGHT) for x in range(WIDTH)]


def frame_rgb(i):
    return b"".join(bytes(PALETTE[p]) for p in frame_indices(i))


# --- The schedules, each in every format's units ------------------------------------------------------------
# name: {format: [delay in the format's units]}; APNG delays are (num, den) fractions of a second.
SCHEDULES = {
    "mixed": {"gif": [0, 1, 5, 2, 10, 3], "webp": [0, 10, 50, 20, 100, 30],
              "apng": [(0, 100), (1, 100), (5, 100), (2, 100), (10, 100), (3, 100)]},
    "fractional": {"apng": [(1, 30), (1, 30), (2, 30), (1, 15), (1, 10)]},
    "pause": {"gif": [10, 500, 10], "webp": [100, 5000, 100], "apng": [(1, 10), (5, 1), (1, 10)]},
    "one": {"gif": [50], "webp": [500], "apng": [(1, 2)]},
}
WHY_NOT = {
    ("fractional", "gif"): "a GIF delay is whole cs: 1/30 s cannot be written",
    ("fractional", "webp"): "a WebP duration is whole ms: 1/30 s cannot be written",
}
# Loops: the loop count each format writes for once, 3 and forever (GIF: no NETSCAPE block, count 3, count 0).
LOOPS = {"once": {"gif": None, "webp": 1, "apng": 1},
         "3": {"gif": 3, "webp": 3, "apng": 3},
         "forever": {"gif": 0, "webp": 0, "apng": 0}}


def raw_seconds(fmt, delay):
    """A delay as written, in seconds (exact)."""
    if fmt == "gif":
        return Fraction(delay, 100)
    if fmt == "webp":
        return Fraction(delay, 1000)
    return Fraction(delay[0], delay[1] or 100)


# --- GIF ------------------------------------------------------------------------------------------------------

def _lzw_literals(indices, min_size):
    """GIF LZW data that codes every pixel as a literal, with a clear code every 12 pixels so the decoder's
    table never grows past the first code width (an 'uncompressed' GIF: valid, exact, simple)."""
    clear, end, width = 1 << min_size, (1 << min_size) + 1, min_size + 1
    codes = []
    for start in range(0, len(indices), 12):
        codes.append(clear)
        codes.extend(indices[start:start + 12])
    codes.append(end)
    bits = bitcount = 0
    out = bytearray()
    for code in codes:
        bits |= code << bitcount
        bitcount += width
        while bitcount >= 8:
            out.append(bits & 0xFF)
            bits >>= 8
            bitcount -= 8
    if bitcount:
        out.append(bits & 0xFF)
    return bytes(out)


def _sub_blocks(data):
    return b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255)) + b"\x00"


def write_gif(path, delays, loop):
    out = bytearray(b"GIF89a" + struct.pack("<HHBBB", WIDTH, HEIGHT, 0xF3, 0, 0))
    out += b"".join(bytes(c) for c in PALETTE)
    if loop is not None:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", loop) + b"\x00"
    for i, delay in enumerate(delays):
        out += b"\x21\xF9\x04\x04" + struct.pack("<H", delay) + b"\x00\x00"  # disposal 1 (keep), no transparency
        out += b"\x2C" + struct.pack("<HHHHB", 0, 0, WIDTH, HEIGHT, 0) + b"\x04"
        out += _sub_blocks(_lzw_literals(frame_indices(i), 4))
    out += b"\x3B"
    open(path, "wb").write(out)


# --- APNG -----------------------------------------------------------------------------------------------------

def _chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def write_apng(path, delays, plays):
    out = bytearray(b"\x89PNG\r\n\x1a\n")
    out += _chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0))
    out += _chunk(b"acTL", struct.pack(">II", len(delays), plays))
    sequence = 0
    for i, (num, den) in enumerate(delays):
        out += _chunk(b"fcTL", struct.pack(">IIIIIHHBB", sequence, WIDTH, HEIGHT, 0, 0, num, den, 0, 0))
        sequence += 1
        rgb = frame_rgb(i)
        rows = b"".join(b"\x00" + rgb[y * WIDTH * 3:(y + 1) * WIDTH * 3] for y in range(HEIGHT))
        data = zlib.compress(rows, 9)
        if i == 0:
            out += _chunk(b"IDAT", data)
        else:
            out += _chunk(b"fdAT", struct.pack(">I", sequence) + data)
            sequence += 1
    out += _chunk(b"IEND", b"")
    open(path, "wb").write(out)


# --- WebP (each frame a lossless VP8L bitstream from Pillow, in an animation container written here: webpmux makes
# a still of a single frame, and the matrix's one-frame animation must stay an animation) -------------------------

def _u24(value):
    return struct.pack("<I", value)[:3]


def _riff_chunk(kind, body):
    return kind + struct.pack("<I", len(body)) + body + (b"\x00" if len(body) % 2 else b"")


def _vp8l(i):
    import io
    from PIL import Image
    still = io.BytesIO()
    Image.frombytes("RGB", (WIDTH, HEIGHT), frame_rgb(i)).save(still, "WEBP", lossless=True, exact=True)
    data = still.getvalue()
    pos = 12
    while pos + 8 <= len(data):
        kind, size = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if kind == b"VP8L":
            return _riff_chunk(b"VP8L", data[pos + 8:pos + 8 + size])
        pos += 8 + size + size % 2
    raise RuntimeError("Pillow wrote no VP8L chunk")


def write_webp(path, delays, loop):
    body = b"WEBP" + _riff_chunk(b"VP8X", bytes([0x02, 0, 0, 0]) + _u24(WIDTH - 1) + _u24(HEIGHT - 1))
    body += _riff_chunk(b"ANIM", bytes([255, 255, 255, 255]) + struct.pack("<H", loop))
    for i, delay in enumerate(delays):
        header = _u24(0) + _u24(0) + _u24(WIDTH - 1) + _u24(HEIGHT - 1) + _u24(delay) + bytes([0x02])  # no blend, keep
        body += _riff_chunk(b"ANMF", header + _vp8l(i))
    open(path, "wb").write(b"RIFF" + struct.pack("<I", len(body)) + body)


WRITERS = {"gif": write_gif, "webp": write_webp, "apng": write_apng}
EXTENSIONS = {"gif": ".gif", "webp": ".webp", "apng": ".png"}
