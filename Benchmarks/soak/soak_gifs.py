"""Writes the soak's GIFs (Benchmarks/soak/run.sh): small good ones, damaged ones, hang-prone ones
(enormous frame counts with 1 cs delays, which the player's rule turns into 10 cs: hours of video) and
memory-hungry ones (a huge canvas), and a manifest saying what each is and what it must give.

Frames are solid sub-rectangles of a 4-colour global palette; LZW is written uncompressed (minimum code
size 2, a clear code every 2 literals keeps every code 3 bits wide), so no compressor is needed and every
byte is known. Good GIFs have delays of 2-19 cs (no timing rule changes them), so the expected duration
is the sum of the delays written here, independent of gifx.
"""

import json
import os
import random
import struct
import sys

PALETTE = bytes((0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255))  # 4 colours, 2-bit indices


def _bits(codes, width):
    """Packs `codes` (each `width` bits) LSB-first into bytes."""
    out, acc, n = bytearray(), 0, 0
    for code in codes:
        acc |= code << n
        n += width
        while n >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            n -= 8
    if n:
        out.append(acc & 0xFF)
    return bytes(out)


def _lzw_solid(index, pixels):
    """Minimum code size 2: clear = 4, end = 5, codes 3 bits wide. A clear code after every 2 literals
    keeps the dictionary (6, then 7 entries) below 8, so the width never grows."""
    codes = [4]
    for i in range(pixels):
        if i and i % 2 == 0:
            codes.append(4)
        codes.append(index)
    codes.append(5)
    data = _bits(codes, 3)
    out = bytearray([2])
    for start in range(0, len(data), 255):
        chunk = data[start:start + 255]
        out.append(len(chunk))
        out += chunk
    out.append(0)
    return bytes(out)


def gif_bytes(width, height, frames):
    """frames: (left, top, w, h, colour index, delay in cs)."""
    out = bytearray(b"GIF89a")
    out += struct.pack("<HHBBB", width, height, 0x80 | 0x10 | 0x01, 0, 0)  # global palette of 4
    out += PALETTE
    out += b"\x21\xFF\x0BNETSCAPE2.0\x03\x01\x00\x00\x00"
    cache = {}
    for left, top, w, h, colour, delay in frames:
        out += b"\x21\xF9\x04\x04" + struct.pack("<H", delay) + b"\x00\x00"
        out += b"\x2C" + struct.pack("<HHHHB", left, top, w, h, 0)
        key = (colour, w * h)
        if key not in cache:
            cache[key] = _lzw_solid(colour, w * h)
        out += cache[key]
    out += b"\x3B"
    return bytes(out)


def main(folder, count, seed):
    rng = random.Random(seed)
    os.makedirs(folder, exist_ok=True)
    manifest = {}
    hang = {7, count * 2 // 5 + 7, count * 4 // 5 + 7}            # 3 hang-prone files
    hungry = {count // 8 + 1, count // 2 + 1, count * 9 // 10 + 1}  # 3 memory-hungry files
    for i in range(count):
        sub = f"d{i // 1000:02d}"
        os.makedirs(os.path.join(folder, sub), exist_ok=True)
        name = f"{sub}/g{i:05d}.gif"
        path = os.path.join(folder, name)
        if i in hang:
            # 200,000 frames of 1 cs (10 cs once played): 5.5 hours of video on a 256x256 canvas; minutes
            # of work at best. (On 64x64 a release build on an idle machine converted two of the three
            # in under the soak's 20 s timeout: too small to be hang-prone.)
            data = gif_bytes(256, 256, [(i % 64, 0, 1, 1, i % 4, 1) for i in range(200_000)])
            kind = "hang"
        elif i in hungry:
            # One pixel on a 12000x12000 canvas: 576 MB of RGBA before any encoder buffer.
            data = gif_bytes(12000, 12000, [(0, 0, 1, 1, 1, 10), (1, 0, 1, 1, 2, 10)])
            kind = "hungry"
        else:
            w, h = rng.randrange(8, 49, 2), rng.randrange(8, 49, 2)
            n = rng.randrange(1, 6)
            frames = [(0, 0, w, h, k % 4, rng.randrange(2, 20)) for k in range(n)]
            data = gif_bytes(w, h, frames)
            kind = "good"
            if rng.random() < 0.01:
                # Damaged beyond repair (a file cut inside its image data is not: gifx shows what
                # arrived, with a warning, as browsers do): a block that is neither extension, image nor
                # trailer right after the palette, or a logical screen of width 0.
                if rng.random() < 0.5:
                    data = data[:25] + bytes([0x99]) + bytes(rng.randrange(256) for _ in range(40))
                else:
                    data = data[:6] + b"\x00\x00" + data[8:]
                kind = "damaged"
            else:
                manifest_frames = n
                manifest_centiseconds = sum(f[5] for f in frames)
        with open(path, "wb") as f:
            f.write(data)
        entry = {"kind": kind}
        if kind == "good":
            entry["frames"] = manifest_frames
            entry["centiseconds"] = manifest_centiseconds
        manifest[name] = entry
    with open(os.path.join(folder, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10_000, int(sys.argv[3]) if len(sys.argv) > 3 else 17)
