#!/usr/bin/env bash
# make conformance-fetch: the public conformance files for WebP and APNG input (issue 35), fetched at test
# time from what CI reaches (PyPI, Debian), never committed. Cached under $1 (default .build/conformance).
#
# Pillow's source distribution carries its test images: Tests/images/apng/ holds Philip Jägenstedt's APNG
# tests as Pillow adapted them (the same cases web-platform-tests carries), and Tests/images/ a few more
# animated PNGs and WebPs from Pillow's bug reports. The sdist is pinned and its sha256 checked; pip
# fetches it (its metadata step installs Pillow's build requirements into a throwaway environment: about
# a minute and a half the first time). Kept: every file of Tests/images/apng/ and the
# animated files elsewhere (an acTL chunk: APNG; an ANIM chunk: WebP).
# Not reachable from here: libwebp's test images (libwebp-test-data is not on PyPI nor in a Debian binary
# package) and web-platform-tests (not on PyPI); docs/conformance.md says what was run from them by hand.
set -euo pipefail
dest="${1:-.build/conformance}"
PILLOW_VERSION=13.0.0
PILLOW_SHA256=cdcd1ba258178f7356d74170c9a81ba4eab6a5d55748bc402a5a2a6fe6be3510
set_dir="$dest/pillow-$PILLOW_VERSION"
if [ -f "$set_dir/.complete" ]; then
    echo "conformance: $(wc -l < "$set_dir/.complete") animated files cached in $set_dir"
    exit 0
fi
download="$dest/download"
mkdir -p "$download"
sdist="$download/pillow-$PILLOW_VERSION.tar.gz"
if [ ! -f "$sdist" ]; then
    python3 -m pip download --quiet --no-deps --no-binary pillow "pillow==$PILLOW_VERSION" -d "$download" >"$download/pip.log" 2>&1 \
        || { tail -5 "$download/pip.log" >&2; echo "make conformance: pip could not download the Pillow $PILLOW_VERSION sdist (PyPI)" >&2; exit 1; }
fi
sum=$(sha256sum "$sdist" | cut -d' ' -f1)
if [ "$sum" != "$PILLOW_SHA256" ]; then
    echo "make conformance: $sdist has sha256 $sum, expected $PILLOW_SHA256" >&2
    exit 1
fi
rm -rf "$set_dir" "$set_dir.tmp"
mkdir -p "$set_dir.tmp"
tar -xzf "$sdist" -C "$set_dir.tmp" --strip-components=1 "pillow-$PILLOW_VERSION/Tests/images"
python3 - "$set_dir.tmp" "$set_dir" <<'PY'
import os, shutil, sys
src, dst = sys.argv[1], sys.argv[2]
kept = []
for root, _, files in os.walk(src):
    for name in sorted(files):
        path = os.path.join(root, name)
        with open(path, "rb") as f:
            data = f.read()
        animated_png = data[:8] == b"\x89PNG\r\n\x1a\n" and b"acTL" in data
        animated_webp = data[:4] == b"RIFF" and data[8:12] == b"WEBP" and b"ANIM" in data[12:200]
        rel = os.path.relpath(path, src)
        # Every APNG test case (chunk_no_actl.png is the still-PNG case), and the animated files elsewhere.
        if animated_png or animated_webp or rel.startswith("Tests/images/apng/"):
            os.makedirs(os.path.join(dst, os.path.dirname(rel)), exist_ok=True)
            shutil.copyfile(path, os.path.join(dst, rel))
            kept.append(rel)
with open(os.path.join(dst, ".complete"), "w") as f:
    f.write("".join(k + "\n" for k in sorted(kept)))
print(f"conformance: {len(kept)} animated files from the Pillow sdist in {dst}")
PY
rm -rf "$set_dir.tmp"
