"""A small walker over the GIF block layer (no LZW decoding).

Used by the harness to count frames, read raw delays (for the fidelity
reference when gifx is not built) and patch Graphic Control Extension delays
in ffmpeg-made GIFs, which is how the variable-delay benchmark GIF is made.
"""

import mmap
import struct
from dataclasses import dataclass, field


class GifFormatError(ValueError):
    pass


@dataclass
class Image:
    """One image descriptor and the GCE that precedes it (if any)."""
    index: int
    x: int
    y: int
    width: int
    height: int
    has_gce: bool = False
    raw_delay: int | None = None
    disposal: int = 0
    delay_offset: int | None = None  # byte offset of the 2-byte little-endian delay field


@dataclass
class GifInfo:
    width: int
    height: int
    loop_count: int | None
    images: list[Image] = field(default_factory=list)


def _skip_sub_blocks(buf, pos):
    """Return the offset just past a sub-block chain's zero terminator."""
    n = len(buf)
    while True:
        if pos >= n:
            raise GifFormatError(f"truncated sub-blocks at byte {pos}")
        size = buf[pos]
        pos += 1
        if size == 0:
            return pos
        pos += size


def parse(buf) -> GifInfo:
    """Walk a GIF held in a bytes-like object; image data is skipped, not decoded."""
    if len(buf) < 13 or bytes(buf[0:3]) != b"GIF":
        raise GifFormatError("not a GIF")
    width, height, packed = struct.unpack_from("<HHB", buf, 6)
    pos = 13
    if packed & 0x80:
        pos += 3 * (1 << ((packed & 7) + 1))
    info = GifInfo(width, height, None)
    pending_gce = None  # (raw_delay, disposal, delay_offset)
    loop_seen = False
    n = len(buf)
    while pos < n:
        introducer = buf[pos]
        if introducer == 0x3B:  # trailer
            break
        if introducer == 0x21:  # extension
            if pos + 2 > n:
                raise GifFormatError(f"truncated extension at byte {pos}")
            label = buf[pos + 1]
            body = pos + 2
            if label == 0xF9 and body < n and buf[body] >= 4 and body + 5 <= n:
                gce_packed = buf[body + 1]
                delay = struct.unpack_from("<H", buf, body + 2)[0]
                pending_gce = (delay, (gce_packed >> 2) & 7, body + 2)
            elif label == 0xFF and body < n and buf[body] == 11 and not loop_seen:
                ident = bytes(buf[body + 1:body + 12])
                sub = body + 12
                if ident in (b"NETSCAPE2.0", b"ANIMEXTS1.0") and sub + 4 <= n \
                        and buf[sub] >= 3 and buf[sub + 1] == 1:
                    info.loop_count = struct.unpack_from("<H", buf, sub + 2)[0]
                    loop_seen = True
            pos = _skip_sub_blocks(buf, body)
        elif introducer == 0x2C:  # image descriptor
            if pos + 10 > n:
                raise GifFormatError(f"truncated image descriptor at byte {pos}")
            x, y, w, h, ipacked = struct.unpack_from("<HHHHB", buf, pos + 1)
            pos += 10
            if ipacked & 0x80:
                pos += 3 * (1 << ((ipacked & 7) + 1))
            pos += 1  # LZW minimum code size
            pos = _skip_sub_blocks(buf, pos)
            image = Image(len(info.images), x, y, w, h)
            if pending_gce is not None:
                image.has_gce = True
                image.raw_delay, image.disposal, image.delay_offset = pending_gce
            info.images.append(image)
            pending_gce = None
        else:
            raise GifFormatError(f"unknown block 0x{introducer:02x} at byte {pos}")
    return info


def parse_file(path) -> GifInfo:
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return parse(m)


def patch_delays(src, dst, delay_for_index):
    """Copy GIF `src` to `dst` with each image's GCE delay set to delay_for_index(i)."""
    with open(src, "rb") as f:
        data = bytearray(f.read())
    info = parse(data)
    for image in info.images:
        if image.delay_offset is None:
            raise GifFormatError(f"image {image.index} has no GCE to patch")
        struct.pack_into("<H", data, image.delay_offset, delay_for_index(image.index))
    with open(dst, "wb") as f:
        f.write(data)


def resolved_schedule(info: GifInfo):
    """Delays and start times (cs) by /work/shared/docs/timeline.md, policy flanimated.

    The harness's own reference, used only when `gifx timeline` is not available.
    """
    delays = []
    for image in info.images:
        if image.has_gce:
            d = image.raw_delay
            delays.append(10 if d < 2 else d)
        else:
            delays.append(delays[-1] if delays else 10)
    starts, t = [], 0
    for d in delays:
        starts.append(t)
        t += d
    return delays, starts, t
