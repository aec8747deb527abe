#!/usr/bin/env python3
"""make lint (issue 58, item 2): no branch on the video codec outside the codec's own folder.

What gifx knows of a codec lives in its descriptor, in Sources/Encoders/Video/<codec>/ (H264, HEVC, VP9, AV1; every
folder under Sources/Encoders/Video/ but Bitstream is a codec's). Shared code reads the descriptor and branches on no
codec. This check fails on every Swift line under Sources/ outside those folders that:

- compares a codec: `==` or `!=` against one of the codecs' static members (`.h264`, `VideoCodec.av1`), found in
  the codec folders' `static let NAME = VideoCodec(` lines, so a fifth codec is covered with no change here;
- switches on a codec (`switch` on an expression ending in `codec`, alone or in a tuple) or has a `case` pattern
  of a codec's member;
- names a libavcodec codec id (`AV_CODEC_ID_...`);
- spells an encoder's name as a string ("libx264", "libx265", "libvpx-vp9", "libaom-av1", "libsvtav1", or any
  other `"lib..."` name of an encoder or decoder of these codecs).

Comments are skipped. Each finding is one line, `path:line: reason`.

Usage: codec_lint.py [--root DIR]. Exit 0: clean; 1: findings.
"""

import argparse
import os
import re
import sys

VIDEO = os.path.join("Sources", "Encoders", "Video")
SHARED_FOLDERS = {"Bitstream"}
ENCODER_NAME = re.compile(r'"lib(?:x264|x265|vpx(?:-vp[89])?|aom(?:-av1)?|svtav1|dav1d|openh264|kvazaar|rav1e|de265)"')
CODEC_ID = re.compile(r"\bAV_CODEC_ID_\w+")
SWITCH_SUBJECT = re.compile(r"\bswitch\b([^{]*)")
CODEC_EXPRESSION = re.compile(r"(?:^|\.)\w*[cC]odec[?!]?$")


class SwitchOnCodec:
    """A `switch` whose subject (or an element of its tuple) is an expression ending in a codec (`options.codec`)."""

    def search(self, code):
        match = SWITCH_SUBJECT.search(code)
        if not match:
            return None
        subject = match.group(1).strip().strip("()")
        return any(CODEC_EXPRESSION.search(part.strip()) for part in subject.split(",")) or None


SWITCH_ON_CODEC = SwitchOnCodec()
MEMBER_DECLARATION = re.compile(r"\bstatic\s+let\s+(\w+)\s*=\s*VideoCodec\(")


def codec_members(root):
    """The codecs' static member names (`h264`, ...), from the codec folders' declarations."""
    members = set()
    for folder in codec_folders(root):
        for path in swift_files(folder):
            with open(path, encoding="utf-8") as f:
                members.update(MEMBER_DECLARATION.findall(f.read()))
    return members


def codec_folders(root):
    video = os.path.join(root, VIDEO)
    return [os.path.join(video, name) for name in sorted(os.listdir(video))
            if os.path.isdir(os.path.join(video, name)) and name not in SHARED_FOLDERS]


def swift_files(top):
    for folder, _, files in os.walk(top):
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(folder, name)


def code_of(line):
    """The line without its comment (a `//` outside a string literal)."""
    if line.strip().startswith("//"):
        return ""
    in_string = False
    i = 0
    while i < len(line):
        c = line[i]
        if c == "\\" and in_string:
            i += 2
            continue
        if c == '"':
            in_string = not in_string
        elif not in_string and line.startswith("//", i):
            return line[:i]
        i += 1
    return line


def rules(members):
    names = "|".join(sorted(re.escape(m) for m in members)) or "(?!)"
    member = rf"(?:\bVideoCodec)?\.(?:{names})\b"
    compare = re.compile(rf"(?:[=!]=\s*{member})|(?:{member}\s*[=!]=)")
    case = re.compile(rf"\bcase\b[^:]*?(?<![\w)\]]){member}")
    return [
        (compare, "compares the codec: ask its descriptor (VideoCodecDescriptor) instead"),
        (case, "a case on the codec: ask its descriptor (VideoCodecDescriptor) instead"),
        (SWITCH_ON_CODEC, "switches on the codec: ask its descriptor (VideoCodecDescriptor) instead"),
        (CODEC_ID, "a libavcodec codec id: find the codec by name (VideoCodecRegistry.codec(libavName:))"),
        (ENCODER_NAME, "an encoder's name: it belongs in its codec's folder (Sources/Encoders/Video/<codec>/)"),
    ]


def findings(root):
    checks = rules(codec_members(root))
    inside = tuple(os.path.relpath(f, root) + os.sep for f in codec_folders(root))
    found = []
    for path in swift_files(os.path.join(root, "Sources")):
        relative = os.path.relpath(path, root)
        if relative.startswith(inside):
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                code = code_of(line)
                for pattern, reason in checks:
                    if pattern.search(code):
                        found.append(f"{relative}:{number}: {reason}")
                        break
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    args = parser.parse_args()
    found = findings(os.path.abspath(args.root))
    for line in found:
        print(line)
    if found:
        print(f"lint: {len(found)} codec branch(es) outside Sources/Encoders/Video/<codec>/", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
