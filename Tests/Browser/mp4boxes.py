"""Reads the timing boxes of an MP4 (mvhd, mdhd, elst, stts, ctts) with the standard library only."""

import struct
import sys

CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"edts"}


def boxes(data, start, end):
    pos = start
    while pos + 8 <= end:
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        header = 8
        if size == 1:
            size = struct.unpack(">Q", data[pos + 8:pos + 16])[0]
            header = 16
        elif size == 0:
            size = end - pos
        yield kind, pos + header, pos + size
        pos += size


def timing(path):
    """{'mvhd': (timescale, duration), 'tracks': [{'mdhd': (timescale, duration), 'elst': [(dur, media_time)],
    'stts': [(count, delta)], 'ctts': [(count, offset)]}]} of the file at `path`."""
    data = open(path, "rb").read()
    out = {"tracks": []}

    def walk(start, end, track):
        for kind, body, stop in boxes(data, start, end):
            version = data[body]
            if kind in CONTAINERS:
                if kind == b"trak":
                    track = {}
                    out["tracks"].append(track)
                walk(body, stop, track)
            elif kind in (b"mvhd", b"mdhd"):
                if version == 1:
                    scale, duration = struct.unpack(">IQ", data[body + 20:body + 32])
                else:
                    scale, duration = struct.unpack(">II", data[body + 12:body + 20])
                (out if kind == b"mvhd" else track)[kind.decode()] = (scale, duration)
            elif kind in (b"stts", b"ctts", b"elst"):
                count = struct.unpack(">I", data[body + 4:body + 8])[0]
                entries, pos = [], body + 8
                for _ in range(count):
                    if kind == b"elst" and version == 1:
                        entries.append(struct.unpack(">Qq", data[pos:pos + 16]))
                        pos += 20
                    elif kind == b"elst":
                        entries.append(struct.unpack(">Ii", data[pos:pos + 8]))
                        pos += 12
                    else:
                        entries.append(struct.unpack(">Ii" if kind == b"ctts" else ">II", data[pos:pos + 8]))
                        pos += 8
                track[kind.decode()] = entries

    walk(0, len(data), None)
    return out


def summary(path):
    t = timing(path)
    mscale, mdur = t["mvhd"]
    lines = [f"mvhd {mdur}/{mscale} s"]
    for track in t["tracks"]:
        scale, dur = track["mdhd"]
        stts = sum(c * d for c, d in track.get("stts", []))
        ctts = track.get("ctts", [])
        lines.append(f"  mdhd {dur}/{scale}  stts sum {stts}/{scale} ({sum(c for c, _ in track['stts'])} samples)"
                     f"  elst {track.get('elst')}  ctts {'yes' if ctts else 'no'}")
    return "\n".join(lines)


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(p)
        print(summary(p))
