#!/usr/bin/env python3
"""Checks gifx's outputs from outside the chroot or container that made them, with independent readers:
ffprobe/ffmpeg for MP4 and WebM (stream kind, size, duration, a full decode without errors) and Pillow
for the animated WebP (frame count, each frame's duration) and the sprite sheet (PNG decode, size and
frame count against its JSON). The reference is the GIF's timeline (`gifx timeline --json`, NAME.timeline.json).

    check_outputs.py OUT_DIR NAME...    # expects NAME.{timeline.json,mp4,webm,webp,png,json} in OUT_DIR
Prints one line per file; exits 1 on the first mismatch."""
import json, os, subprocess, sys

from PIL import Image

out, names = sys.argv[1], sys.argv[2:]
if not names:
    sys.exit("check_outputs.py: no names given")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def probe(path):
    result = subprocess.run(["ffprobe", "-v", "error", "-show_entries",
                             "stream=codec_type,codec_name,width,height:format=duration,format_name",
                             "-of", "json", path], capture_output=True, text=True)
    if result.returncode != 0:
        fail(f"{path}: ffprobe: {result.stderr.strip()}")
    return json.loads(result.stdout)


def decode_frames(path):
    """Every frame decoded by ffmpeg; any decoder message is a failure."""
    result = subprocess.run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"],
                            capture_output=True, text=True)
    if result.returncode != 0 or result.stderr.strip():
        fail(f"{path}: ffmpeg decode: {result.stderr.strip() or result.returncode}")
    frames = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                             "stream=nb_read_frames", "-of", "csv=p=0", path], capture_output=True, text=True)
    return int(frames.stdout.strip().split(",")[0])


for name in names:
    timeline = json.load(open(os.path.join(out, f"{name}.timeline.json")))
    width, height = timeline["canvas"]["width"], timeline["canvas"]["height"]
    seconds = timeline["duration"]["centiseconds"] / 100
    gif_frames = len(timeline["frames"])

    for ext, codec in (("mp4", "h264"), ("webm", "vp9")):
        path = os.path.join(out, f"{name}.{ext}")
        info = probe(path)
        video = [s for s in info["streams"] if s["codec_type"] == "video"]
        if len(video) != 1 or video[0]["codec_name"] != codec:
            fail(f"{path}: expected one {codec} video stream, got {info['streams']}")
        # odd sizes are padded to even for 4:2:0
        if not (width <= video[0]["width"] <= width + 1 and height <= video[0]["height"] <= height + 1):
            fail(f"{path}: {video[0]['width']}x{video[0]['height']}, the GIF is {width}x{height}")
        duration = float(info["format"]["duration"])
        if abs(duration - seconds) > 0.011:
            fail(f"{path}: lasts {duration:.3f} s, the GIF {seconds:.2f} s")
        decoded = decode_frames(path)
        if decoded < 1:
            fail(f"{path}: no frame decoded")
        print(f"ok {path}: {codec} {video[0]['width']}x{video[0]['height']}, {duration:.3f} s "
              f"(GIF {seconds:.2f} s), {decoded} frames decoded")

    path = os.path.join(out, f"{name}.webp")
    with Image.open(path) as webp:
        if webp.format != "WEBP" or webp.size != (width, height):
            fail(f"{path}: {webp.format} {webp.size}, expected WEBP {(width, height)}")
        durations = []
        for index in range(getattr(webp, "n_frames", 1)):
            webp.seek(index)
            webp.load()
            durations.append(webp.info.get("duration", 0))
    expected = [f["delay"] * 10 for f in timeline["frames"]]
    if durations != expected:
        fail(f"{path}: frame durations {durations} ms, the GIF's are {expected} ms")
    print(f"ok {path}: {len(durations)} frames, durations equal the GIF's ({sum(durations)} ms)")

    path = os.path.join(out, f"{name}.png")
    sheet_json = json.load(open(os.path.join(out, f"{name}.json")))
    frames = sheet_json["frames"]
    with Image.open(path) as sheet:
        sheet.load()
        size = sheet.size
    meta = sheet_json.get("meta", {}).get("size")
    if meta and (meta["w"], meta["h"]) != size:
        fail(f"{path}: {size}, its JSON says {meta}")
    if len(frames) != gif_frames:
        fail(f"{path}: its JSON lists {len(frames)} frames, the GIF has {gif_frames}")
    print(f"ok {path}: {size[0]}x{size[1]} decoded by Pillow, {len(frames)} frames in its JSON")
