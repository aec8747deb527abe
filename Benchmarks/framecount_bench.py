"""Issue 17: memory flat in frame count (`BENCH_KINDS=frame-count`).

GIFs of N 1×1 frames (`Benchmarks/manyframes.py`: delays cycling 2..9 cs, four palette colours, ~23 bytes a
frame; 5 million frames = 115 MB), built at bench time, N from `BENCH_FRAME_COUNTS` (default 1000000,5000000).
Each gifx command once per N, peak RSS by GNU time; the bytes per frame are the slope between the two
largest N, i.e. what each extra frame costs beyond the fixed start-up. Peers, same N, same run: the ffmpeg
CLI keeping every frame with its own timestamp (`-fps_mode passthrough`, padded to 2×2, libx264 medium crf 23: the VFR MP4
`to-mp4 --vfr` writes) and `ffprobe -show_frames -of json` (the schedule `timeline --json` prints).
ImageMagick's `montage` is not run here: it reads the whole GIF into an image list before it lays out a
sheet, so its figure would measure that list, not a peer's streaming. One repetition: RSS does not vary between runs; wall times are
indicative only. Standard library only.
"""

import os

import manyframes
import runner

ARMS = [
    ("gifx timeline --json", "timeline"),
    ("gifx to-mp4 --vfr", "to-mp4"),
    ("gifx to-sprite --dedupe", "to-sprite"),
    ("ffprobe -show_frames -of json", "timeline"),
    ("ffmpeg -fps_mode passthrough (libx264)", "to-mp4"),
]


def _command(label, gifx, gif, out):
    if label == "gifx timeline --json":
        return [gifx, "timeline", gif, "--json"]
    if label == "gifx to-mp4 --vfr":
        return [gifx, "to-mp4", gif, "--vfr", "--overwrite", "--quiet", "-o", os.path.join(out, "g.mp4")]
    if label == "gifx to-sprite --dedupe":
        return [gifx, "to-sprite", gif, "--dedupe", "--overwrite", "--quiet", "-o", os.path.join(out, "s.png")]
    if label.startswith("ffprobe"):
        return ["ffprobe", "-v", "error", "-show_frames", "-of", "json", gif]
    # libx264 wants even sizes: the 1x1 canvas is padded to 2x2, as gifx pads it.
    return ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", gif, "-fps_mode", "passthrough",
            "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2", "-c:v", "libx264",
            "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p", os.path.join(out, "f.mp4")]


def run(gifx, root, timeout, log):
    counts = [int(n) for n in os.environ.get("BENCH_FRAME_COUNTS", "1000000,5000000").split(",") if n]
    folder = os.path.join(root, "frame-count")
    os.makedirs(folder, exist_ok=True)
    rows = []
    for count in counts:
        gif = os.path.join(folder, f"frames-{count}.gif")
        if not os.path.exists(gif):
            log(f"frame-count: writing {count} frames")
            manyframes.write_many_frames(gif, count)
        out = os.path.join(folder, "out")
        os.makedirs(out, exist_ok=True)
        row = {"frames": count, "gif_bytes": os.path.getsize(gif), "arms": {}}
        for label, _ in ARMS:
            cmd = _command(label, gifx, gif, out)
            with open(os.devnull, "wb") as sink:
                result = runner.run(cmd, timeout, stdout=sink)
            log(f"frame-count {count}: {label}: {result.status} {result.wall_s:.1f} s "
                f"{result.peak_rss_kib / 1024:.1f} MiB")
            row["arms"][label] = result.as_json()
            for name in os.listdir(out):
                os.remove(os.path.join(out, name))
        rows.append(row)
    return {"rows": rows}


def report(section):
    """Markdown lines for docs/benchmarks.md."""
    if not section or not section.get("rows"):
        return []
    rows = sorted(section["rows"], key=lambda r: r["frames"])
    out = ["## Memory flat in frame count (issue 17)", "", __doc__.split("\n\n", 1)[1].strip().replace("\n", " "),
           "", "| arm | " + " | ".join(f"{r['frames']:,} frames" for r in rows) + " | bytes per extra frame | "
           "RSS × gifx at the largest N |", "|---|" + "---|" * (len(rows) + 2)]
    largest = rows[-1]["arms"]
    for label, kind in ARMS:
        cells = []
        for row in rows:
            arm = row["arms"][label]
            if arm["status"] == "ok":
                cells.append(f"{arm['peak_rss_mib']:.1f} MiB, {arm['wall_s']:.1f} s")
            else:
                cells.append(f"{arm['status']} after {arm['wall_s']:.0f} s")
        slope = ""
        if len(rows) >= 2:
            a, b = rows[-2], rows[-1]
            arm_a, arm_b = a["arms"][label], b["arms"][label]
            if arm_a["status"] == arm_b["status"] == "ok":
                slope = f"{(arm_b['peak_rss_mib'] - arm_a['peak_rss_mib']) * 1048576 / (b['frames'] - a['frames']):.1f}"
        gifx_label = next(l for l, k in ARMS if k == kind and l.startswith("gifx"))
        ratio = ""
        if not label.startswith("gifx") and largest[label]["status"] == "ok" and largest[gifx_label]["status"] == "ok":
            ratio = f"{largest[label]['peak_rss_mib'] / largest[gifx_label]['peak_rss_mib']:.2f}"
        out.append(f"| {label} | " + " | ".join(cells) + f" | {slope} | {ratio} |")
    return out + [""]
