#!/usr/bin/env bash
# Prints a SHA-256 line for every output gifx writes from the Examples and bench GIFs, in every timing
# mode and output kind, so two builds can be compared byte for byte (a refactoring must change none):
#
#   bash Benchmarks/output-digests.sh GIFX_BINARY OUT_DIR > digests.txt   # then diff two such files
#
# The bench GIFs come from Benchmarks/make_gifs.py (built once under .build-bench/gifs). Outputs are kept
# in OUT_DIR for a closer look at any difference.
set -euo pipefail
gifx=$(realpath "$1"); out=$2
cd "$(dirname "$0")/.."
python3 Benchmarks/make_gifs.py .build-bench >/dev/null
mkdir -p "$out"
for gif in Examples/*.gif .build-bench/gifs/*.gif; do
    [[ $(basename "$gif") == fid-* ]] && continue
    n=$(basename "$gif" .gif); d="$out/$n"; rm -rf "$d"; mkdir -p "$d"
    "$gifx" timeline "$gif" --json > "$d/timeline.json"
    "$gifx" timeline "$gif" --json --policy browser > "$d/timeline-browser.json"
    "$gifx" to-mp4 "$gif" -o "$d/tick.mp4" --quiet
    "$gifx" to-mp4 "$gif" -o "$d/vfr.mp4" --vfr --quiet
    "$gifx" to-mp4 "$gif" -o "$d/auto.mp4" --fps auto --quiet
    "$gifx" to-sprite "$gif" -o "$d/sheet.png" --json "$d/sheet.json" --quiet
    "$gifx" to-sprite "$gif" -o "$d/packed.png" --json "$d/packed.json" --trim --pack maxrects --dedupe --format texturepacker --quiet
    "$gifx" convert "$gif" -o "$d/c.webm" -o "$d/c.webp" -o "$d/c.jpg" -o "$d/c.png" -o "$d/c.timeline.json" --quiet
    "$gifx" frames "$gif" --out "$d/frames" --quiet >/dev/null
done
(cd "$out" && find . -type f | LC_ALL=C sort | xargs sha256sum)
