"""Writes small solid-colour GIFs with uncompressed LZW, for the timing-fidelity tests.

Every frame is one colour of a 128-entry global palette. LZW codes are kept
8 bits wide by sending a clear code every 100 literals, so each code is one
byte and no compression logic is needed.
"""

import struct

_MIN_CODE_SIZE = 7          # 128-colour palette
_CLEAR = 1 << _MIN_CODE_SIZE
_END = _CLEAR + 1
_LITERALS_PER_CLEAR = 100   # dictionary never reaches 256 entries, so codes stay 8 bits


def distinct_colours(count):
    """`count` colours from the 4-level RGB cube, far apart (distance >= 85)."""
    levels = (0, 85, 170, 255)
    cube = [(r, g, b) for r in levels for g in levels for b in levels]
    # Interleave so consecutive frames differ strongly.
    order = cube[::7] + [c for c in cube if c not in cube[::7]]
    if count > len(order):
        raise ValueError("at most 64 distinct colours")
    return order[:count]


def _lzw_solid(index, pixels):
    return _lzw_literal(bytes([index]) * pixels)


def write_solid_gif(path, width, height, colours, delays, loop_count=0):
    """Frame i has palette colour i and raw GCE delay delays[i] (None = no GCE)."""
    if len(colours) != len(delays) or len(colours) > 1 << _MIN_CODE_SIZE:
        raise ValueError("one colour per delay, at most 128 frames")
    palette = bytearray()
    for r, g, b in colours:
        palette += bytes((r, g, b))
    palette += bytes(3 * ((1 << _MIN_CODE_SIZE) - len(colours)))
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0x80 | 0x70 | (_MIN_CODE_SIZE - 1), 0, 0)
    out += palette
    if loop_count is not None:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", loop_count) + b"\x00"
    for i, delay in enumerate(delays):
        if delay is not None:
            out += b"\x21\xF9\x04\x04" + struct.pack("<H", delay) + b"\x00\x00"  # disposal: keep
        out += b"\x2C" + struct.pack("<HHHHB", 0, 0, width, height, 0)
        out += _lzw_solid(i, width * height)
    out += b"\x3B"
    with open(path, "wb") as f:
        f.write(out)


def _lzw_literal(indices):
    """Uncompressed LZW (8-bit codes, clear every 100 literals) of palette indices < 128."""
    codes = bytearray([_CLEAR])
    for i, index in enumerate(indices):
        if i and i % _LITERALS_PER_CLEAR == 0:
            codes.append(_CLEAR)
        codes.append(index)
    codes.append(_END)
    out = bytearray([_MIN_CODE_SIZE])
    for start in range(0, len(codes), 255):
        chunk = codes[start:start + 255]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


def write_indexed_gif(path, width, height, palette, frames, loop_count=0):
    """A 128-entry global palette (`palette`: up to 128 RGB tuples) and `frames`, each a dict with
    left, top, width, height, indices (row-major, < 128), delay (cs), disposal, transparent (index or None)."""
    table = bytearray()
    for r, g, b in palette:
        table += bytes((r, g, b))
    table += bytes(3 * ((1 << _MIN_CODE_SIZE) - len(palette)))
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0x80 | 0x70 | (_MIN_CODE_SIZE - 1), 0, 0)
    out += table
    if loop_count is not None:
        out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01" + struct.pack("<H", loop_count) + b"\x00"
    for f in frames:
        flags = (f["disposal"] << 2) | (1 if f["transparent"] is not None else 0)
        out += b"\x21\xF9\x04" + bytes([flags]) + struct.pack("<H", f["delay"]) \
            + bytes([f["transparent"] or 0]) + b"\x00"
        out += b"\x2C" + struct.pack("<HHHHB", f["left"], f["top"], f["width"], f["height"], 0)
        out += _lzw_literal(f["indices"])
    out += b"\x3B"
    with open(path, "wb") as fh:
        fh.write(out)
