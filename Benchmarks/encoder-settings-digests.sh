#!/usr/bin/env bash
# Prints a SHA-256 line for every file gifx writes with each encoder setting path: H.264 and HEVC with
# --low-memory on/off, --threads, --level (and levels that refuse), --target-size's two passes, an MP4 piped
# to stdout, WebM (VP9) and AV1; each run's --stats JSON (wall times, peak RSS and the decoder's timings and
# window peak zeroed, the two-pass statistics file's random path replaced), its stderr and its exit code. A
# change to how encoder settings are built must change no line (x264, x265, libvpx and SVT-AV1 gave the
# same bytes run to run on this set):
#
#   bash Benchmarks/encoder-settings-digests.sh GIFX_BINARY OUT_DIR > digests.txt   # then diff two such files
#
# The inputs are the Examples GIFs and three made here with Pillow: 12x10 and 40x12 (under 16 pixels: no
# B-frames) and 1920x1080 (4 frames: x264 starts at lookahead 10). Outputs are written with paths relative
# to OUT_DIR, so the stats and error lines of two runs name the same files.
set -uo pipefail
gifx=$(realpath "$1"); root=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$2"; out=$(realpath "$2"); rm -rf "${out:?}"/*
mkdir -p "$out/gifs"
python3 - "$out/gifs" <<'EOF'
import sys
from PIL import Image, ImageDraw
def make(name, w, h, n, delays):
    frames = []
    for i in range(n):
        im = Image.new('P', (w, h), 0)
        im.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 255, 200, 200, 40] + [0] * (256 * 3 - 15))
        ImageDraw.Draw(im).rectangle([i * w // (n + 1), h // 4, i * w // (n + 1) + max(1, w // 5), h // 2], fill=1 + i % 4)
        frames.append(im)
    frames[0].save(f"{sys.argv[1]}/{name}", save_all=True, append_images=frames[1:], duration=delays, loop=0)
make('tiny-12x10.gif', 12, 10, 4, [70, 30, 50, 20])
make('wide-40x12.gif', 40, 12, 5, [10, 10, 40, 20, 30])
make('hd-1920x1080.gif', 1920, 1080, 4, [60, 20, 40, 30])
EOF
cp "$root"/Examples/*.gif "$out/gifs/"
cd "$out"
budget="--memory-budget 4G"
run() {  # name, gifx arguments...
    local name=$1; shift
    "$gifx" "$@" > "$d/$name.stdout" 2> "$d/$name.stderr"; echo "exit $?" >> "$d/$name.stderr"
    [[ $name == *pipe ]] || sed -i -E -e 's#"wallSeconds":[0-9.e-]+#"wallSeconds":0#g; s#"peakRSSBytes":[0-9]+#"peakRSSBytes":0#g; s#stats=[^:"]*#stats=STATS#g' \
        -e 's#"(compositeSeconds|longestBandSeconds|lzwSeconds|serialFraction|peakWindowBytes)":[0-9.e-]+#"\1":0#g' "$d/$name.stdout"
}
for gif in gifs/*.gif; do
    d=$(basename "$gif" .gif); mkdir -p "$d"
    run h264        to-mp4 "$gif" -o "$d/h264.mp4" --stats --quiet $budget
    run h264-vfr    to-mp4 "$gif" -o "$d/h264-vfr.mp4" --vfr --stats --quiet $budget
    run h264-lowon  to-mp4 "$gif" -o "$d/h264-lowon.mp4" --low-memory on --stats --quiet $budget
    run h264-lowoff to-mp4 "$gif" -o "$d/h264-lowoff.mp4" --low-memory off --stats --quiet $budget
    run h264-t1     to-mp4 "$gif" -o "$d/h264-t1.mp4" --threads 1 --low-memory on --stats --quiet $budget
    run h264-l3     to-mp4 "$gif" -o "$d/h264-l3.mp4" --level 3 --stats --quiet $budget
    run h264-l31vs  to-mp4 "$gif" -o "$d/h264-l31vs.mp4" --level 3.1 --preset veryslow --low-memory on --stats --quiet $budget
    run h264-l1     to-mp4 "$gif" -o "$d/h264-l1.mp4" --level 1 --stats --quiet $budget
    run h264-ts     to-mp4 "$gif" -o "$d/h264-ts.mp4" --target-size 2000 --stats --quiet $budget
    run h264-pipe   to-mp4 "$gif" -o - --quiet $budget
    run hevc        to-mp4 "$gif" -o "$d/hevc.mp4" --codec hevc --stats --quiet $budget
    run hevc-lowon  to-mp4 "$gif" -o "$d/hevc-lowon.mp4" --codec hevc --low-memory on --threads 2 --stats --quiet $budget
    run hevc-lowoff to-mp4 "$gif" -o "$d/hevc-lowoff.mp4" --codec hevc --low-memory off --threads 2 --stats --quiet $budget
    run hevc-l41    to-mp4 "$gif" -o "$d/hevc-l41.mp4" --codec hevc --level 4.1 --stats --quiet $budget
    run hevc-ts     to-mp4 "$gif" -o "$d/hevc-ts.mp4" --codec hevc --target-size 3000 --stats --quiet $budget
    run vp9         convert "$gif" -o "$d/vp9.webm" -o "$d/conv.mp4" --stats --quiet $budget
    run vp9-low     to-mp4 "$gif" -o "$d/vp9-low.webm" --low-memory on --stats --quiet $budget
    run av1         to-mp4 "$gif" -o "$d/av1.mp4" --codec av1 --vfr --stats --quiet $budget
    run fps-l1      to-mp4 "$gif" -o "$d/fps-l1.mp4" --fps 100 --level 1 --quiet $budget
    run vfr-l1b     to-mp4 "$gif" -o "$d/vfr-l1b.mp4" --vfr --level 1b --quiet $budget
done
find . -type f ! -path './gifs/*' | LC_ALL=C sort | xargs sha256sum
