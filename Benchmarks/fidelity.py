"""Timing fidelity: when does each GIF frame first appear in an MP4, against the schedule?

The fidelity GIFs give every frame its own solid colour, so decoding the MP4
(ffprobe for timestamps, ffmpeg rawvideo for pixels) tells which GIF frame each
video frame shows. The error of frame i is (first time it is shown) - start_i.
"""

import json
import subprocess

_PROBE = ["ffprobe", "-v", "error", "-select_streams", "v:0"]


def video_frame_times(mp4):
    out = subprocess.run(_PROBE + ["-show_entries", "frame=best_effort_timestamp_time",
                                   "-of", "csv=p=0", mp4],
                         check=True, capture_output=True, text=True).stdout
    return [float(line.strip().strip(",")) for line in out.splitlines() if line.strip()]


def video_duration(mp4):
    out = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "format=duration",
                          "-of", "json", mp4], check=True, capture_output=True, text=True).stdout
    return float(json.loads(out)["format"]["duration"])


def video_centre_colours(mp4, width, height):
    """Mean RGB of the central 8x8 block of every decoded frame, in presentation order."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-nostdin", "-i", mp4, "-fps_mode", "passthrough",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True).stdout
    frame_bytes = width * height * 3
    colours = []
    cx, cy = width // 2 - 4, height // 2 - 4
    for f in range(len(raw) // frame_bytes):
        base = f * frame_bytes
        total = [0, 0, 0]
        for y in range(cy, cy + 8):
            row = base + (y * width + cx) * 3
            for x in range(8):
                p = row + 3 * x
                total[0] += raw[p]
                total[1] += raw[p + 1]
                total[2] += raw[p + 2]
        colours.append(tuple(c / 64 for c in total))
    return colours


def _nearest(colour, palette):
    return min(range(len(palette)),
               key=lambda i: sum((a - b) ** 2 for a, b in zip(colour, palette[i])))


def measure(mp4, width, height, palette, starts_cs, duration_cs):
    """Compare an MP4 against the schedule; returns a JSON-able summary."""
    times = video_frame_times(mp4)
    colours = video_centre_colours(mp4, width, height)
    if len(times) != len(colours):
        return {"status": "failed", "error": f"{len(times)} timestamps vs {len(colours)} frames"}
    first_seen = {}
    out_of_order = 0
    last_index = -1
    for t, colour in zip(times, colours):
        index = _nearest(colour, palette)
        if index < last_index:
            out_of_order += 1
        last_index = max(last_index, index)
        first_seen.setdefault(index, t)
    errors = {i: (first_seen[i] - starts_cs[i] / 100) * 1000 for i in first_seen}
    missing = [i for i in range(len(starts_cs)) if i not in first_seen]
    worst = max(errors, key=lambda i: abs(errors[i])) if errors else None
    duration = video_duration(mp4)
    return {
        "status": "ok",
        "video_frames": len(times),
        "max_abs_error_ms": round(abs(errors[worst]), 2) if worst is not None else None,
        "worst_frame": worst,
        "missing_frames": missing,
        "out_of_order": out_of_order,
        "video_duration_s": round(duration, 4),
        "duration_error_ms": round((duration - duration_cs / 100) * 1000, 2),
        "errors_ms": [round(errors.get(i), 2) if i in errors else None for i in range(len(starts_cs))],
    }
