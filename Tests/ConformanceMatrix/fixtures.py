"""The matrix's inputs, written byte by byte (GIF, APNG), through webpmux (WebP) or avifenc (AVIF, its edit list
added here), so each schedule is exactly what the test says: a GIF delay of 0 or 1 cs, a WebP frame of 0 ms, an
APNG or AVIF frame of 1/30 s, a loop count or none.

Every writer takes the same frames (solid colour and a moving box, distinct in every frame) and a schedule in
its format's own units, and says which schedules it cannot write (a GIF's delay is in cs and a WebP's in ms:
neither holds 1/30 s)."""
import os
import struct
import subprocess
import tempfile
import zlib
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Benchmarks"))
import gifwriter  # noqa: E402  (the project's GIF writer: uncompressed LZW of palette indices < 128)
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
              "apng": [(0, 100), (1, 100), (5, 100), (2, 100), (10, 100), (3, 100)],
              "avif": [(5, 1000), (10, 1000), (50, 1000), (20, 1000), (100, 1000), (30, 1000)]},
    "fractional": {"apng": [(1, 30), (1, 30), (2, 30), (1, 15), (1, 10)],
                   "avif": [(1, 30), (1, 30), (2, 30), (2, 30), (3, 30)]},
    "pause": {"gif": [10, 500, 10], "webp": [100, 5000, 100], "apng": [(1, 10), (5, 1), (1, 10)],
              "avif": [(1, 10), (50, 10), (1, 10)]},
    "one": {"gif": [50], "webp": [500], "apng": [(1, 2)]},
}
WHY_NOT = {
    ("fractional", "gif"): "a GIF delay is whole cs: 1/30 s cannot be written",
    ("fractional", "webp"): "a WebP duration is whole ms: 1/30 s cannot be written",
    ("one", "avif"): "avifenc writes one frame as a still image (an item: no track, no duration)",
}
# Loops: the loop count each format writes for once, 3 and forever (GIF: no NETSCAPE block, count 3, count 0).
# AVIF: plays in the edit list (once: flags 0; 3: flags 1, track 3 segments long; forever: no edts, as avifenc writes).
LOOPS = {"once": {"gif": None, "webp": 1, "apng": 1, "avif": 1},
         "3": {"gif": 3, "webp": 3, "apng": 3, "avif": 3},
         "forever": {"gif": 0, "webp": 0, "apng": 0, "avif": 0}}


def raw_seconds(fmt, delay):
    """A delay as written, in seconds (exact)."""
    if fmt == "gif":
        return Fraction(delay, 100)
    if fmt == "webp":
        return Fraction(delay, 1000)
    return Fraction(delay[0], delay[1] or 100)


# --- GIF ------------------------------------------------------------------------------------------------------

def write_gif(path, delays, loop):
    """Benchmarks/gifwriter.py's indexed GIF (uncompressed LZW, disposal 1 = keep, no transparency); `loop` None
    writes no loop extension."""
    frames = [{"left": 0, "top": 0, "width": WIDTH, "height": HEIGHT, "indices": frame_indices(i), "delay": delay,
               "disposal": 1, "transparent": None} for i, delay in enumerate(delays)]
    gifwriter.write_indexed_gif(path, WIDTH, HEIGHT, PALETTE, frames, loop_count=loop)


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


# --- AVIF (avifenc 0.11, lossless, from PNG frames written here; the loop as an edit list added to its tracks) -----

def _png(path, i):
    rgb = frame_rgb(i)
    rows = b"".join(b"\x00" + rgb[y * WIDTH * 3:(y + 1) * WIDTH * 3] for y in range(HEIGHT))
    data = (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b""))
    open(path, "wb").write(data)


def _boxes(b, start, end):
    at = start
    while at + 8 <= end:
        size = int.from_bytes(b[at:at + 4], "big")
        if size < 8:
            return
        yield bytes(b[at + 4:at + 8]), at, size
        at += size


def _add_edit_list(data, plays):
    """`data` (avifenc's ftyp, meta, moov, mdat) with an edts/elst in each track after its tkhd (ISO/IEC 14496-12
    8.6.5-6): one entry of one play D (the tkhd duration); flags 0 for once, else flags 1 with the tkhd and mvhd
    durations plays x D. The sample offsets (stco, co64) and the items' (iloc) move by the bytes added."""
    b = bytearray(data)
    top = list(_boxes(b, 0, len(b)))
    moov = next((at, size) for kind, at, size in top if kind == b"moov")
    mdat = next(at for kind, at, size in top if kind == b"mdat")
    assert mdat > moov[0], "avifenc wrote mdat before moov"
    inserts, traks, mvhd = [], [], None
    for kind, at, size in _boxes(b, moov[0] + 8, moov[0] + moov[1]):
        if kind == b"mvhd":
            mvhd = at
        if kind != b"trak":
            continue
        for kind2, at2, size2 in _boxes(b, at + 8, at + size):
            if kind2 != b"tkhd":
                continue
            wide = b[at2 + 8] == 1
            where = at2 + 8 + (28 if wide else 20)
            width = 8 if wide else 4
            one_play = int.from_bytes(b[where:where + width], "big")
            if plays > 1:
                b[where:where + width] = (plays * one_play).to_bytes(width, "big")
            elst = struct.pack(">B3sI", 0, (0 if plays == 1 else 1).to_bytes(3, "big"), 1)
            elst += struct.pack(">IiHH", one_play, 0, 1, 0)
            elst_box = struct.pack(">I", 8 + len(elst)) + b"elst" + elst
            inserts.append((at2 + size2, struct.pack(">I", 8 + len(elst_box)) + b"edts" + elst_box))
            traks.append(at)
    if plays > 1 and mvhd is not None:
        wide = b[mvhd + 8] == 1
        where = mvhd + 8 + (24 if wide else 16)
        width = 8 if wide else 4
        b[where:where + width] = (plays * int.from_bytes(b[where:where + width], "big")).to_bytes(width, "big")
    grow = sum(len(edts) for _, edts in inserts)
    # Offsets into mdat (after moov) move by `grow`: every stco/co64 entry, and the items' iloc file offsets.
    def patch_table(start, end):
        for kind, at, size in _boxes(b, start, end):
            if kind in (b"trak", b"mdia", b"minf", b"stbl"):
                patch_table(at + 8, at + size)
            elif kind in (b"stco", b"co64"):
                width = 4 if kind == b"stco" else 8
                count = int.from_bytes(b[at + 12:at + 16], "big")
                for k in range(count):
                    p = at + 16 + k * width
                    b[p:p + width] = (int.from_bytes(b[p:p + width], "big") + grow).to_bytes(width, "big")
    patch_table(moov[0] + 8, moov[0] + moov[1])
    meta = next((at, size) for kind, at, size in top if kind == b"meta")
    for kind, at, size in _boxes(b, meta[0] + 12, meta[0] + meta[1]):
        if kind != b"iloc":
            continue
        version = b[at + 8]
        offset_size, length_size = b[at + 12] >> 4, b[at + 12] & 15
        base_size, index_size = b[at + 13] >> 4, (b[at + 13] & 15 if version in (1, 2) else 0)
        p = at + 14
        count = int.from_bytes(b[p:p + (4 if version == 2 else 2)], "big")
        p += 4 if version == 2 else 2
        for _ in range(count):
            p += 4 if version == 2 else 2
            method = 0
            if version in (1, 2):
                method = int.from_bytes(b[p:p + 2], "big") & 15
                p += 2
            p += 2  # data_reference_index
            base_at = p
            p += base_size
            extents = int.from_bytes(b[p:p + 2], "big")
            p += 2
            offsets = []
            for _ in range(extents):
                p += index_size
                offsets.append(p)
                p += offset_size + length_size
            if method != 0:
                continue
            for q, width in ([(base_at, base_size)] if base_size else [(o, offset_size) for o in offsets]):
                b[q:q + width] = (int.from_bytes(b[q:q + width], "big") + grow).to_bytes(width, "big")
    # The sizes first, at the offsets read before anything moved; then the boxes, the last first.
    for at, (_, edts) in zip(traks, inserts):
        b[at:at + 4] = (int.from_bytes(b[at:at + 4], "big") + len(edts)).to_bytes(4, "big")
    b[moov[0]:moov[0] + 4] = (moov[1] + grow).to_bytes(4, "big")
    for at, edts in sorted(inserts, reverse=True):
        b[at:at] = edts
    return bytes(b)


def write_avif(path, delays, plays, frame_png=_png):
    """avifenc over `frame_png(path, i)`'s frames (the browser check passes its own solid colours), each
    `--duration` units of the delays' one timescale; `plays` > 0 adds the edit list, 0 leaves none (forever)."""
    timescales = {den for _, den in delays}
    assert len(timescales) == 1, "an AVIF track has one timescale"
    with tempfile.TemporaryDirectory() as folder:
        arguments = ["avifenc", "-s", "10", "-j", "1", "--lossless", "--timescale", str(timescales.pop())]
        for i, (units, _) in enumerate(delays):
            frame = os.path.join(folder, f"{i}.png")
            frame_png(frame, i)
            arguments += ["--duration", str(units), frame]
        out = os.path.join(folder, "out.avif")
        subprocess.run(arguments + ["-o", out], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        data = open(out, "rb").read()
    open(path, "wb").write(data if plays == 0 else _add_edit_list(data, plays))


WRITERS = {"gif": write_gif, "webp": write_webp, "apng": write_apng, "avif": write_avif}
EXTENSIONS = {"gif": ".gif", "webp": ".webp", "apng": ".png", "avif": ".avif"}
