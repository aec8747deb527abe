"""Independent readers of what a file declares: ISO BMFF boxes (MP4, AVIF), PNG chunks (APNG), and webpmux's
report (WebP), with the standard library only. The conformance matrix compares these with `timeline --json`."""
import re
import struct
import subprocess
import zlib

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts", b"mvex"}
ALL_ONES_64 = 0xFFFFFFFFFFFFFFFF


def _boxes(data, start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        if size < header or pos + size > end:
            raise ValueError(f"box {kind!r} at {pos} runs past its parent")
        yield kind, pos + header, pos + size
        pos += size


def bmff(path):
    """The timing boxes of an ISO BMFF file (the first track):
    {'mvhd': (version, timescale, duration), 'tkhd': (version, duration), 'mdhd': (timescale, duration),
     'mehd': duration or None, 'elst': (version, flags, [(segment_duration, media_time)]) or None,
     'samples': the stts sample count, 'fragments': the number of moof boxes,
     'first_composition_offset': the first sample's ctts offset (0 without a ctts: no reordering)}."""
    data = open(path, "rb").read()
    out = {"mehd": None, "elst": None, "fragments": 0, "samples": 0, "first_composition_offset": 0}
    tracks = []

    def walk(start, end):
        for kind, body, stop in _boxes(data, start, end):
            if kind == b"moof":
                out["fragments"] += 1
                continue
            if kind in CONTAINERS:
                if kind == b"trak":
                    tracks.append(kind)
                if kind == b"trak" and len(tracks) > 1:
                    continue  # the first track is the picture track (gifx writes one)
                walk(body, stop)
                continue
            if kind not in (b"mvhd", b"tkhd", b"mdhd", b"mehd", b"elst", b"stts", b"ctts"):
                continue
            version, flags = data[body], int.from_bytes(data[body + 1:body + 4], "big")
            if kind == b"mvhd":
                if version == 1:
                    scale, duration = struct.unpack(">IQ", data[body + 20:body + 32])
                else:
                    scale, duration = struct.unpack(">II", data[body + 12:body + 20])
                out["mvhd"] = (version, scale, duration)
            elif kind == b"tkhd":
                # v1: created u64, modified u64, track_ID u32, reserved u32, duration u64
                if version == 1:
                    duration = struct.unpack(">Q", data[body + 28:body + 36])[0]
                else:
                    duration = struct.unpack(">I", data[body + 20:body + 24])[0]
                out["tkhd"] = (version, duration)
            elif kind == b"mdhd":
                if version == 1:
                    scale, duration = struct.unpack(">IQ", data[body + 20:body + 32])
                else:
                    scale, duration = struct.unpack(">II", data[body + 12:body + 20])
                out["mdhd"] = (scale, duration)
            elif kind == b"mehd":
                out["mehd"] = struct.unpack(">Q" if version == 1 else ">I", data[body + 4:body + (12 if version == 1 else 8)])[0]
            elif kind == b"elst":
                count = struct.unpack(">I", data[body + 4:body + 8])[0]
                entries, pos = [], body + 8
                for _ in range(count):
                    if version == 1:
                        entries.append(struct.unpack(">Qq", data[pos:pos + 16]))
                        pos += 20
                    else:
                        entries.append(struct.unpack(">Ii", data[pos:pos + 8]))
                        pos += 12
                out["elst"] = (version, flags, entries)
            elif kind == b"ctts":
                if struct.unpack(">I", data[body + 4:body + 8])[0] > 0:
                    out["first_composition_offset"] = struct.unpack(">i" if version == 1 else ">I", data[body + 12:body + 16])[0]
            elif kind == b"stts":
                count = struct.unpack(">I", data[body + 4:body + 8])[0]
                out["samples"] = sum(struct.unpack(">I", data[body + 8 + 8 * i:body + 12 + 8 * i])[0] for i in range(count))

    walk(0, len(data))
    for box in ("mvhd", "tkhd", "mdhd"):
        if box not in out:
            raise ValueError(f"no {box} box")
    return out


def apng(path):
    """{'frames': acTL num_frames, 'plays': acTL num_plays (0: forever), 'delays': [(num, den)] of every fcTL,
    'crc_ok': every chunk's CRC matches} of a PNG file; frames None when it has no acTL (a still PNG)."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, out = 8, {"frames": None, "plays": None, "delays": [], "crc_ok": True}
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        crc = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0]
        out["crc_ok"] &= zlib.crc32(kind + body) == crc
        if kind == b"acTL":
            out["frames"], out["plays"] = struct.unpack(">II", body)
        elif kind == b"fcTL":
            num, den = struct.unpack(">HH", body[20:24])
            out["delays"].append((num, den or 100))  # a den of 0 means 100 (APNG spec)
        elif kind == b"IEND":
            break
        pos += 12 + length
    return out


def webp(path):
    """{'frames': count, 'loop': loop count (0: forever), 'durations': [ms], 'animated': whether it has the
    animation feature} from `webpmux -info`."""
    text = subprocess.run(["webpmux", "-info", path], capture_output=True, text=True, timeout=60)
    if text.returncode != 0:
        raise ValueError(f"webpmux -info failed: {text.stdout.strip()} {text.stderr.strip()}")
    out = {"frames": 1, "loop": None, "durations": [], "animated": "animation" in text.stdout.split("Features present:")[-1].splitlines()[0]}
    if m := re.search(r"Number of frames: (\d+)", text.stdout):
        out["frames"] = int(m.group(1))
    if m := re.search(r"Loop Count\s*:\s*(\d+)", text.stdout):
        out["loop"] = int(m.group(1))
    # The frame table: "No.: width height alpha x_offset y_offset duration dispose blend image_size compression"
    header = None
    for line in text.stdout.splitlines():
        cells = line.split()
        if cells[:1] == ["No.:"]:
            header = cells
            continue
        if header and cells and cells[0].rstrip(":").isdigit():
            out["durations"].append(int(cells[header.index("duration")]))
    return out
