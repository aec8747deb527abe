"""The memory kind (issue 24): peak RSS and wall time of the whole process, against the ffmpeg CLI run the
same way in the same run.

Every figure is the child's own (GNU time's %M from wait4, runner.py), never gifx's `--stats`. Arms:
defaults on four sizes (gifx, the ffmpeg CLI with the same x264 settings, and the gifx binary of
GIFX_BASELINE when given: "today" for the wall-time target); `--memory-budget` runs whose peak must stay
within the budget + 10 %; a budget below the leanest settings (refused, then rerun with the budget its
message names); and `--threads 1` / `batch --jobs 2` runs whose CPU time / wall is the thread bound.
ImageMagick writes no video, so it has no arm here.
"""

import os
import re
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_gifs  # noqa: E402
import runner  # noqa: E402

SIZES = ["480x270x200", "854x480x120", "1280x720x250", "1920x1080x90", "3840x2160x60"]
FFMPEG_X264 = ["-c:v", "libx264", "-preset", "medium", "-crf", "23", "-pix_fmt", "yuv420p"]


def _median(results, key):
    values = [getattr(r, key) for r in results if r.status == "ok"]
    return statistics.median(values) if values else None


def _measure(cmd, reps, timeout, log, label, env=None):
    results = []
    for rep in range(reps):
        result = runner.run(cmd, timeout, env=env)
        log(f"  memory {label} rep {rep + 1}: {result.status} {result.wall_s:.2f} s "
            f"{result.peak_rss_kib / 1024:.0f} MiB cpu {result.cpu_s:.2f} s")
        results.append(result)
    ok = [r for r in results if r.status == "ok"]
    return {
        "status": "ok" if ok else results[-1].status,
        "median_s": _median(results, "wall_s"),
        "median_cpu_s": _median(results, "cpu_s"),
        "peak_rss_mib": max((r.peak_rss_kib for r in ok), default=0) / 1024,
        "exit_code": results[-1].exit_code,
        "stderr": results[-1].stderr_tail,
    }


def run(gifx, root, gif_paths, reps, timeout, log, baseline=None):
    """Returns the `memory` section of results.json."""
    paths = dict(gif_paths)
    paths.update(make_gifs.build_memory_gifs(root, log=lambda m: log("  " + m)))
    paths.update(make_gifs.build_all(root, set(SIZES), log=lambda m: log("  " + m)))
    work = os.path.join(root, "out", "memory")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    o = lambda name: os.path.join(work, name)  # noqa: E731
    section = {"defaults": [], "budgets": [], "refusal": None, "threads": [], "baseline": baseline}

    for name in SIZES:
        path = paths[name]
        row = {"gif": name}
        # Alternating, so that drift in the machine's load hits every arm alike.
        arms = [("gifx", [gifx, "to-mp4", path, "-o", o("d.mp4"), "--overwrite", "--quiet"]),
                ("ffmpeg", ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, *FFMPEG_X264, o("f.mp4")])]
        if baseline:
            arms.append(("today", [baseline, "to-mp4", path, "-o", o("b.mp4"), "--overwrite", "--quiet"]))
        n = 2 if name.startswith("3840") else reps
        for label, cmd in arms:
            row[label] = _measure(cmd, n, timeout, log, f"{name} {label}")
        section["defaults"].append(row)

    huge, large = paths["3840x2160x60"], paths["1280x720x250"]
    budget_arms = [
        ("3840x2160x60", "to-mp4 (h264)", 512, [gifx, "to-mp4", huge, "-o", o("b.mp4")]),
        ("3840x2160x60", ".webm (vp9)", 512, [gifx, "convert", huge, "-o", o("b.webm")]),
        ("3840x2160x60", ".webp", 512, [gifx, "convert", huge, "-o", o("b.webp")]),
        ("1280x720x250", "convert mp4+webm+webp+jpg+sheet", 256,
         [gifx, "convert", large, "-o", o("c.mp4"), "-o", o("c.webm"), "-o", o("c.webp"), "-o", o("c.jpg"),
          "--sheet", o("c.png")]),
    ]
    for gif, label, mib, cmd in budget_arms:
        result = _measure(cmd + ["--memory-budget", f"{mib}M", "--overwrite", "--quiet"], 1, timeout, log,
                          f"{gif} {label} {mib}M")
        section["budgets"].append({"gif": gif, "arm": label, "budget_mib": mib, **result})

    refused = runner.run([gifx, "to-mp4", huge, "-o", o("r.mp4"), "--memory-budget", "64M", "--overwrite"], timeout)
    match = re.search(r"need (\d+) MiB", refused.stderr_tail)
    refusal = {"exit_code": refused.exit_code, "wall_s": refused.wall_s, "message": refused.stderr_tail,
               "left_behind": sorted(f for f in os.listdir(work) if f.startswith("r.") or ".r.mp4" in f)}
    if match:
        named = int(match.group(1))
        rerun = runner.run([gifx, "to-mp4", huge, "-o", o("r.mp4"), "--memory-budget", f"{named}M",
                            "--overwrite", "--quiet"], timeout)
        refusal.update({"named_mib": named, "rerun_status": rerun.status, "rerun_peak_rss_mib": rerun.peak_rss_kib / 1024,
                        "rerun_wall_s": rerun.wall_s})
    section["refusal"] = refusal
    log(f"  memory refusal: {refusal}")

    for label, cmd in [
        ("to-mp4 --threads 1", [gifx, "to-mp4", large, "-o", o("t.mp4"), "--threads", "1"]),
        ("to-sprite --threads 1", [gifx, "to-sprite", large, "-o", o("t.png"), "--threads", "1"]),
        ("to-mp4 (default threads)", [gifx, "to-mp4", large, "-o", o("t.mp4")]),
    ]:
        result = _measure(cmd + ["--overwrite", "--quiet"], 1, timeout, log, label)
        section["threads"].append({"arm": label, **result})
    batch_in = os.path.join(work, "batch-in")
    os.makedirs(batch_in, exist_ok=True)
    for name in ["480x270x200", "854x480x120", "1280x720x250", "333x187x100"]:
        if name in paths:
            shutil.copy(paths[name], os.path.join(batch_in, name + ".gif"))
    result = _measure([gifx, "batch", "to-mp4", batch_in, "--out-dir", os.path.join(work, "batch-out"),
                       "--jobs", "2", "--quiet"], 1, timeout, log, "batch --jobs 2")
    shutil.rmtree(os.path.join(work, "batch-out"), ignore_errors=True)
    section["threads"].append({"arm": f"batch to-mp4 --jobs 2 ({len(os.listdir(batch_in))} GIFs)", **result})
    section["cores"] = os.cpu_count()
    return section


def report(section):
    """Markdown lines for docs/benchmarks.md."""
    if not section:
        return []
    out = ["## Memory: one budget for the whole process (issue 24)", "",
           __doc__.split("\n\n", 1)[1].strip().replace("\n", " "), "",
           "| GIF | gifx wall | gifx peak RSS | ffmpeg wall | ffmpeg peak RSS | wall × ffmpeg | RSS × ffmpeg |"
           + (" today's wall | × today |" if section.get("baseline") else ""),
           "|---|---|---|---|---|---|---|" + ("---|---|" if section.get("baseline") else "")]
    for row in section["defaults"]:
        g, f = row["gifx"], row["ffmpeg"]
        line = (f"| {row['gif']} | {g['median_s']:.2f} s | {g['peak_rss_mib']:.0f} MiB | {f['median_s']:.2f} s | "
                f"{f['peak_rss_mib']:.0f} MiB | {g['median_s'] / f['median_s']:.2f} | "
                f"{g['peak_rss_mib'] / f['peak_rss_mib']:.2f} |")
        if section.get("baseline") and row.get("today", {}).get("median_s"):
            t = row["today"]
            line += f" {t['median_s']:.2f} s ({t['peak_rss_mib']:.0f} MiB) | {g['median_s'] / t['median_s']:.2f} |"
        out.append(line)
    out += ["", "| GIF | under --memory-budget | status | peak RSS | bound (× 1.10) | within | wall |",
            "|---|---|---|---|---|---|---|"]
    for row in section["budgets"]:
        bound = row["budget_mib"] * 1.10
        within = "yes" if row["status"] == "ok" and row["peak_rss_mib"] <= bound else (
            "refused" if row["exit_code"] == 78 else "no")
        wall = f"{row['median_s']:.2f} s" if row["median_s"] else ""
        out.append(f"| {row['gif']} | {row['arm']} {row['budget_mib']}M | {row['status']} ({row['exit_code']}) | "
                   f"{row['peak_rss_mib']:.0f} MiB | {bound:.0f} MiB | {within} | {wall} |")
    r = section.get("refusal")
    if r:
        out += ["", f"`--memory-budget 64M` on 3840x2160x60: exit {r['exit_code']} in {r['wall_s']:.2f} s, "
                f"\"{r['message']}\"; files left: {len(r['left_behind'])}; rerun with the named "
                f"{r.get('named_mib')} MiB: {r.get('rerun_status')}, peak RSS {r.get('rerun_peak_rss_mib', 0):.0f} MiB."]
    out += ["", "| run (1280x720x250 unless named) | wall | CPU | CPU ÷ wall |", "|---|---|---|---|"]
    for row in section["threads"]:
        if row["median_s"]:
            out.append(f"| {row['arm']} | {row['median_s']:.2f} s | {row['median_cpu_s']:.2f} s | "
                       f"{row['median_cpu_s'] / row['median_s']:.2f} |")
    return out + [""]
