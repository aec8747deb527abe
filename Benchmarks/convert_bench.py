"""Issue 15: one decode, many outputs (`BENCH_KINDS=convert`).

Three questions, each measured alternately in one run on the same GIFs:
1. `gifx convert -o X.mp4 -o X.webm -o X.jpg` against the same three outputs written by three separate
   runs (`to-mp4`, `convert -o X.webm`, `convert -o X.jpg`), summed; and against the same one-run
   conversion with its sinks fed in series (`GIFX_SERIAL_SINKS=1`), to show what the encoder threads
   bring on their own.
2. WebM VP9 against the command the issue names, `ffmpeg -i X -c:v libvpx-vp9 -pix_fmt yuva420p Y.webm`
   (libvpx's defaults there: a 256 kbit/s target, cpu-used 1), and against the ffmpeg CLI with gifx's own
   VP9 settings (crf 32, no bitrate, good deadline, cpu-used 3, row-mt), so that both the as-posed ratio and
   the like-for-like one are on record. On the transparent GIF both keep alpha.
3. Quality per byte: x264 (gifx's default: medium, crf 23), VP9 and AV1 (SVT-AV1) at several crf values,
   each scored with the ffmpeg CLI's `ssim` filter (all planes, "All") against the GIF as ffmpeg decodes
   it, frames matched by time. "Matched" is the highest crf whose SSIM is at least x264's; its wall time
   and size are given relative to x264's. Opaque GIFs only (a composite over white is not comparable to
   ffmpeg's decode of a transparent GIF). Standard library only.
"""

import os
import re
import shutil
import statistics
import subprocess

import runner
import timing_bench

# (bench GIF, in make_gifs' or timing_bench's set, whether quality is scored)
GIFS = [("480x270x200", True), ("video30-480x270", True), ("sprite-256x192x96", False)]
VP9_CRFS = [28, 32, 36, 40]
AV1_CRFS = [27, 31, 35, 39, 43]


def _gifx_convert(gifx, path, outputs, extra=()):
    cmd = [gifx, "convert", path, "--overwrite", "--quiet"]
    for out in outputs:
        cmd += ["-o", out]
    return cmd + list(extra)


def ssim(video, gif):
    """SSIM "All" of `video` against the GIF as the ffmpeg CLI decodes it (sizes as gifx encodes: even)."""
    graph = ("[0:v]format=yuv420p,setpts=PTS-STARTPTS[a];"
             "[1:v]scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p,setpts=PTS-STARTPTS[b];[a][b]ssim")
    err = subprocess.run(["ffmpeg", "-nostdin", "-v", "info", "-i", video, "-i", gif, "-lavfi", graph,
                          "-f", "null", "-"], capture_output=True, text=True).stderr
    match = re.search(r"All:([0-9.]+)", err)
    return float(match.group(1)) if match else None


def _timed(cmd, timeout, env=None):
    result = runner.run(cmd, timeout, env=env)
    return result


def _median(values):
    return round(statistics.median(values), 3) if values else None


def run(gifx, root, gif_paths, only, reps, timeout, log):
    """Measures every convert GIF; returns the `convert` section of results.json."""
    paths = dict(gif_paths)
    paths.update(timing_bench.build(root, log))
    work = os.path.join(root, "out", "convert")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    rows = []
    for name, scored in GIFS:
        if (only and name not in only) or name not in paths:
            continue
        path = paths[name]
        o = lambda suffix: os.path.join(work, name + suffix)  # noqa: E731
        arms = {
            "convert mp4+webm+jpg": [(_gifx_convert(gifx, path, [o(".1.mp4"), o(".1.webm"), o(".1.jpg")]), None)],
            "convert, sinks in series": [(_gifx_convert(gifx, path, [o(".2.mp4"), o(".2.webm"), o(".2.jpg")]),
                                          {"GIFX_SERIAL_SINKS": "1"})],
            "3 separate runs": [
                ([gifx, "to-mp4", path, "-o", o(".3.mp4"), "--overwrite", "--quiet"], None),
                (_gifx_convert(gifx, path, [o(".3.webm")]), None),
                (_gifx_convert(gifx, path, [o(".3.jpg")]), None),
            ],
            "ffmpeg vp9 yuva420p (as posed)": [
                (["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-c:v", "libvpx-vp9", "-pix_fmt",
                  "yuva420p", o(".4.webm")], None)],
            "ffmpeg vp9, gifx's settings": [
                (["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path, "-c:v", "libvpx-vp9", "-pix_fmt",
                  "yuva420p", "-crf", "32", "-b:v", "0", "-deadline", "good", "-cpu-used", "3", "-row-mt", "1",
                  o(".5.webm")], None)],
        }
        walls = {label: [] for label in arms}
        cpus = {label: [] for label in arms}
        rss = {label: 0 for label in arms}
        separate_parts = [[], [], []]
        separate_rss = [0, 0, 0]
        for rep in range(reps):
            order = list(arms.items()) if rep % 2 == 0 else list(reversed(arms.items()))
            for label, steps in order:
                total, cpu, ok = 0.0, 0.0, True
                for index, (cmd, env) in enumerate(steps):
                    result = _timed(cmd, timeout, env)
                    ok = ok and result.status == "ok"
                    total += result.wall_s
                    cpu += result.cpu_s
                    rss[label] = max(rss[label], result.peak_rss_kib)
                    if label == "3 separate runs":
                        separate_parts[index].append(result.wall_s)
                        separate_rss[index] = max(separate_rss[index], result.peak_rss_kib)
                if ok:
                    walls[label].append(total)
                    cpus[label].append(cpu)
                log(f"  convert   {name:18} {label:32} rep {rep + 1}: {'ok' if ok else 'failed':7} {total:8.2f} s "
                    f"{rss[label] / 1024:8.1f} MiB")
        row = {"gif": name, "cores": os.cpu_count(), "arms": {},
               "separate_parts_s": [_median(p) for p in separate_parts],
               "separate_parts_rss_mib": [round(r / 1024, 1) for r in separate_rss]}
        sizes = {"convert mp4+webm+jpg": [o(".1.mp4"), o(".1.webm"), o(".1.jpg")],
                 "convert, sinks in series": [o(".2.mp4"), o(".2.webm"), o(".2.jpg")],
                 "3 separate runs": [o(".3.mp4"), o(".3.webm"), o(".3.jpg")],
                 "ffmpeg vp9 yuva420p (as posed)": [o(".4.webm")], "ffmpeg vp9, gifx's settings": [o(".5.webm")]}
        for label in arms:
            row["arms"][label] = {
                "median_s": _median(walls[label]), "walls": [round(w, 3) for w in walls[label]],
                "median_cpu_s": _median(cpus[label]),
                "peak_rss_mib": round(rss[label] / 1024, 1),
                "bytes": [os.path.getsize(p) if os.path.exists(p) else None for p in sizes[label]]}
        row["webm_alone_s"] = row["separate_parts_s"][1]
        if scored:
            row["quality"] = quality(gifx, path, name, work, timeout, log)
        rows.append(row)
    shutil.rmtree(work, ignore_errors=True)
    return {"rows": rows}


def quality(gifx, path, name, work, timeout, log):
    """SSIM, wall and bytes for x264 (default), VP9 and AV1 at each crf; the matched crf of each."""
    entries = []

    def encode(codec, crf, suffix):
        out = os.path.join(work, f"{name}.q.{codec}.{crf}{suffix}")
        cmd = _gifx_convert(gifx, path, [out], ["--codec", codec, "--crf", str(crf)])
        result = runner.run(cmd, timeout)
        score = ssim(out, path) if result.status == "ok" else None
        entry = {"codec": codec, "crf": crf, "wall_s": round(result.wall_s, 3), "status": result.status,
                 "bytes": os.path.getsize(out) if os.path.exists(out) else None, "ssim": score}
        log(f"  convert   {name:18} {codec} crf {crf:<3} {result.wall_s:8.2f} s "
            f"{(entry['bytes'] or 0) / 1e3:9.1f} kB  SSIM {score}")
        entries.append(entry)
        return entry

    reference = encode("h264", 23, ".mp4")
    for crf in VP9_CRFS:
        encode("vp9", crf, ".webm")
    for crf in AV1_CRFS:
        encode("av1", crf, ".mp4")
    matched = {}
    for codec in ("vp9", "av1"):
        good = [e for e in entries if e["codec"] == codec and e["ssim"] is not None and reference["ssim"] is not None
                and e["ssim"] >= reference["ssim"]]
        if good:
            best = max(good, key=lambda e: e["crf"])
            matched[codec] = {"crf": best["crf"], "ssim": best["ssim"],
                              "time_ratio": round(best["wall_s"] / reference["wall_s"], 2),
                              "size_ratio": round(best["bytes"] / reference["bytes"], 2)}
    return {"reference": reference, "entries": entries, "matched": matched}


def report(section):
    """Markdown lines for docs/benchmarks.md."""
    if not section:
        return []
    out = ["## One decode, many outputs: convert, WebM, AV1 (issue 15)", "",
           __doc__.split("\n\n", 1)[1].strip().replace("\n", " "), "",
           "| GIF | arm | median wall | × 3 separate runs | median CPU | peak RSS | bytes (mp4, webm, jpg) |",
           "|---|---|---|---|---|---|---|"]
    floors = []
    for row in section["rows"]:
        separate = row["arms"]["3 separate runs"]["median_s"]
        for label, arm in row["arms"].items():
            if label.startswith("ffmpeg"):
                continue
            ratio = f"{arm['median_s'] / separate:.2f}" if arm["median_s"] and separate else ""
            wall = f"{arm['median_s']:.2f} s" if arm["median_s"] else "failed"
            cpu = arm.get("median_cpu_s")
            out.append(f"| {row['gif']} | {label} | {wall} | {ratio} | {'' if cpu is None else f'{cpu:.2f} s'} | "
                       f"{arm['peak_rss_mib']:.0f} MiB | {', '.join(str(b) for b in arm['bytes'])} |")
        one_run = row["arms"]["convert mp4+webm+jpg"]
        sep_cpu = row["arms"]["3 separate runs"].get("median_cpu_s")
        if separate and sep_cpu and one_run.get("median_cpu_s") and row.get("cores"):
            floors.append(
                f"{row['gif']}: the separate runs use {sep_cpu:.2f} s of CPU, so on {row['cores']} cores no "
                f"overlap of the same work can finish before {sep_cpu / row['cores']:.2f} s = "
                f"{sep_cpu / row['cores'] / separate:.2f}× their wall; the one run uses {one_run['median_cpu_s']:.2f} s "
                f"({one_run['median_cpu_s'] / row['cores'] / separate:.2f}×)")
    if floors:
        out += ["", "The CPU floor of the target (convert ≤ 0.8× the separate runs): a run cannot take less wall time "
                "than its CPU time divided by the cores. " + "; ".join(floors) + "."]
    out += ["", "The separate runs' parts (to-mp4, webm, jpg), medians: " + "; ".join(
        f"{r['gif']}: " + ", ".join(f"{p:.2f} s" if p else "-" for p in r["separate_parts_s"])
        for r in section["rows"]) + ".", "",
        "| GIF | WebM VP9 | median wall | × gifx | peak RSS | bytes |", "|---|---|---|---|---|---|"]
    for row in section["rows"]:
        gifx_webm = row["webm_alone_s"]
        webm_rss = row.get("separate_parts_rss_mib", [None, None])[1]
        out.append(f"| {row['gif']} | gifx convert -o X.webm | {gifx_webm:.2f} s | 1.00 | "
                   f"{f'{webm_rss:.0f} MiB' if webm_rss else ''} | "
                   f"{row['arms']['3 separate runs']['bytes'][1]} |" if gifx_webm else f"| {row['gif']} | gifx | failed | | | |")
        for label in ("ffmpeg vp9 yuva420p (as posed)", "ffmpeg vp9, gifx's settings"):
            arm = row["arms"][label]
            ratio = f"{arm['median_s'] / gifx_webm:.2f}" if arm["median_s"] and gifx_webm else ""
            wall = f"{arm['median_s']:.2f} s" if arm["median_s"] else "failed"
            out.append(f"| {row['gif']} | {label} | {wall} | {ratio} | {arm['peak_rss_mib']:.0f} MiB | "
                       f"{arm['bytes'][0]} |")
    scored = [r for r in section["rows"] if r.get("quality")]
    if scored:
        out += ["", "| GIF | codec | crf | wall | bytes | SSIM (All) |", "|---|---|---|---|---|---|"]
        for row in scored:
            for e in row["quality"]["entries"]:
                out.append(f"| {row['gif']} | {e['codec']} | {e['crf']} | {e['wall_s']:.2f} s | {e['bytes']} | "
                           f"{e['ssim']} |")
        out += ["", "Matched quality (highest crf with SSIM ≥ x264 crf 23's), relative to x264: " + "; ".join(
            f"{r['gif']}: " + ", ".join(
                f"{codec} crf {m['crf']} {m['time_ratio']}× the time, {m['size_ratio']}× the bytes"
                for codec, m in r["quality"]["matched"].items()) for r in scored) + "."]
    return out + [""]
