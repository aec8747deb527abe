#!/usr/bin/env python3
"""gifx benchmark driver: gifx against the tool a user would pick instead, same run, alternating.

Run through `make bench` (or `bash Benchmarks/run.sh`). Writes .build-bench/results.json
and docs/benchmarks.md. Standard library only.
"""

import argparse
import datetime
import glob
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fidelity  # noqa: E402
import gifblocks  # noqa: E402
import gifwriter  # noqa: E402
import machine  # noqa: E402
import make_gifs  # noqa: E402
import report  # noqa: E402
import runner  # noqa: E402
import timing_bench  # noqa: E402
import repeats_bench  # noqa: E402
import batch_scaling_bench  # noqa: E402
import convert_bench  # noqa: E402
import memory_bench  # noqa: E402
import framecount_bench  # noqa: E402
import animated_decode_bench  # noqa: E402
import serve_bench  # noqa: E402
from gifx_probe import DECODE_ONLY_FLAGS, GifxProbe  # noqa: E402

RAISED_POLICY_DIR = os.path.join(HERE, "imagemagick-raised")
MP4_FILTER = "scale=trunc(iw/2)*2:trunc(ih/2)*2"
# A second gifx binary (e.g. built from main in its own scratch path) measured beside GIFX in the same run,
# alternating, for the decode and to-sprite kinds: "today's wall time" for a change under test.
GIFX_BASELINE = os.environ.get("GIFX_BASELINE", "")
# Decode thread counts measured beside gifx's default when it has `--threads` (issue 18's scaling table).
THREAD_COUNTS = [int(n) for n in os.environ.get("BENCH_THREADS", "1,2").split(",") if n]
SPRITE_MAX_SIZE = 4096


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gifx", default=os.environ.get("GIFX", ".build/release/gifx"))
    p.add_argument("--root", default=".build-bench", help="cache and output folder (git-ignored)")
    p.add_argument("--reps", type=int, default=int(os.environ.get("BENCH_REPS", 3)))
    p.add_argument("--reps-4k", type=int, default=int(os.environ.get("BENCH_REPS_4K", 2)),
                   help="repetitions for the 3840x2160 GIF")
    p.add_argument("--timeout", type=float, default=float(os.environ.get("BENCH_TIMEOUT", 300)),
                   help="seconds allowed for one run of one tool")
    p.add_argument("--budget-min", type=float, default=float(os.environ.get("BENCH_BUDGET_MIN", 16)),
                   help="after this many minutes, remaining cases get one repetition only")
    p.add_argument("--only", default=os.environ.get("BENCH_ONLY", ""),
                   help="comma-separated GIF names to run (default all)")
    p.add_argument("--kinds", default=os.environ.get(
        "BENCH_KINDS", "timeline,to-mp4,to-sprite,sprite-pack,decode,batch,micro,timing,repeats,convert,frame-count,memory"))
    p.add_argument("--reps-batch", type=int, default=int(os.environ.get("BENCH_REPS_BATCH", 1)),
                   help="repetitions of the 500-GIF batch comparison")
    p.add_argument("--max-jobs", type=int, default=int(os.environ.get("BENCH_MAX_JOBS", 0)),
                   help="batch-scaling: the largest --jobs measured (default: the cores)")
    p.add_argument("--no-fidelity", action="store_true")
    p.add_argument("--doc", default="docs/benchmarks.md")
    p.add_argument("--report-only", action="store_true",
                   help="re-render --doc from the last results.json without measuring")
    return p.parse_args()


class Tool:
    """One side of a comparison: a command (built lazily), how often to run it, and its runs."""

    def __init__(self, label, role, make_cmd, reps, env=None,
                 stop_after_failure=True, only_if_failed=None, note=""):
        self.label, self.role, self.make_cmd, self.reps = label, role, make_cmd, reps
        self.env, self.stop_after_failure, self.only_if_failed = env, stop_after_failure, only_if_failed
        self.note = note
        self.runs = []
        self.command = None
        self.skipped_reason = None

    def should_run(self, rep, tools_by_label):
        if rep >= self.reps:
            return False
        if self.stop_after_failure and self.runs and all(r.status != "ok" for r in self.runs):
            return False
        if self.only_if_failed:
            other = tools_by_label[self.only_if_failed]
            if not other.runs or any(r.status == "ok" for r in other.runs):
                self.skipped_reason = f"not needed: {other.label} succeeded"
                return False
            self.skipped_reason = None
        return True

    def summary(self):
        ok = [r for r in self.runs if r.status == "ok"]
        times = [r.wall_s for r in ok]
        out = {
            "label": self.label, "role": self.role, "command": self.command, "note": self.note,
            "runs": [r.as_json() for r in self.runs],
            "status": "ok" if ok else (self.runs[0].status if self.runs else "skipped"),
        }
        if self.skipped_reason and not self.runs:
            out["skipped_reason"] = self.skipped_reason
        if ok:
            out.update({
                "median_s": round(statistics.median(times), 4),
                "min_s": round(min(times), 4), "max_s": round(max(times), 4),
                "peak_rss_mib": round(max(r.peak_rss_kib for r in ok) / 1024, 1),
            })
        failed = [r for r in self.runs if r.status != "ok"]
        if failed:
            out["failure"] = f"{failed[0].status} after {failed[0].wall_s:.1f} s " \
                             f"(exit {failed[0].exit_code}): {failed[0].stderr_tail}"
        return out


def clean_dir(path):
    shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path)


def output_bytes(directory, pattern="*"):
    return sum(os.path.getsize(p) for p in glob.glob(os.path.join(directory, pattern)) if os.path.isfile(p))


def png_area(directory):
    """Total pixels of the PNGs in `directory` (width x height from each IHDR)."""
    total = 0
    for path in glob.glob(os.path.join(directory, "*.png")):
        with open(path, "rb") as f:
            head = f.read(24)
        total += int.from_bytes(head[16:20], "big") * int.from_bytes(head[20:24], "big")
    return total


def optipng_of(directory, work, timeout, log):
    """`optipng -o2` on copies of the PNGs gifx wrote: (bytes after, seconds), or None without optipng."""
    if not shutil.which("optipng"):
        return None
    clean_dir(work)
    for path in glob.glob(os.path.join(directory, "*.png")):
        shutil.copy(path, work)
    files = sorted(glob.glob(os.path.join(work, "*.png")))
    result = runner.run(["optipng", "-quiet", "-o2", *files], timeout)
    if result.status != "ok":
        log(f"  optipng failed: {result.stderr_tail[:200]}")
        return None
    return output_bytes(work, "*.png"), result.wall_s


def run_case(kind, gif_name, tools, outdir, timeout, log, reps_cap=None):
    """Runs the tools alternately (order flipped each repetition)."""
    by_label = {t.label: t for t in tools}
    max_reps = max(t.reps for t in tools)
    if reps_cap is not None:
        max_reps = min(max_reps, reps_cap)
    for rep in range(max_reps):
        order = tools if rep % 2 == 0 else list(reversed(tools))
        # A conditional tool must come after the tool it depends on.
        order = sorted(order, key=lambda t: t.only_if_failed is not None)
        for tool in order:
            if not tool.should_run(rep, by_label):
                continue
            tool_out = os.path.join(outdir, tool.role)
            clean_dir(tool_out)
            cmd = tool.make_cmd(tool_out)
            tool.command = cmd
            result = runner.run(cmd, timeout, env=tool.env)
            result.output_bytes = output_bytes(tool_out)
            result.sheet_bytes = output_bytes(tool_out, "*.png")
            tool.runs.append(result)
            log(f"  {kind:9} {gif_name:22} {tool.label:28} rep {rep + 1}: {result.status:7} "
                f"{result.wall_s:8.2f} s {result.peak_rss_kib / 1024:8.1f} MiB"
                + (f"  [{result.stderr_tail[:120]}]" if result.status != "ok" else ""))
    summaries = [t.summary() for t in tools]
    extra = {}
    for tool, s in zip(tools, summaries):
        ok = [r for r in tool.runs if r.status == "ok"]
        if ok:
            s["output_mb"] = round(ok[-1].output_bytes / 1e6, 2)
            if kind == "to-sprite":
                s["sheet_bytes"] = ok[-1].sheet_bytes
                if tool.role == "gifx":
                    # Issue 16: gifx's own sheet against optipng -o2 of it (the last run's output is still there).
                    opt = optipng_of(os.path.join(outdir, tool.role), os.path.join(outdir, "optipng"), timeout, log)
                    if opt:
                        extra["optipng_bytes"], extra["optipng_s"] = opt[0], round(opt[1], 3)
                        log(f"  {kind:9} {gif_name:22} optipng -o2 of gifx's sheet: {opt[0]} B "
                            f"(gifx {ok[-1].sheet_bytes} B) in {opt[1]:.2f} s")
    shutil.rmtree(outdir, ignore_errors=True)
    return {"kind": kind, "gif": gif_name, "tools": summaries, **extra}


def sprite_layout_from_gifx(out_dir):
    """(columns, rows) of the first page gifx wrote, read from its JSON; None if unreadable."""
    for path in glob.glob(os.path.join(out_dir, "*.json")):
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError):
            continue
        rects = []

        def walk(node):
            if isinstance(node, dict):
                rect = node.get("rect") or node.get("frame")
                page = node.get("page", 0)
                if isinstance(rect, dict) and "x" in rect and "y" in rect and page in (0, None):
                    rects.append((rect["x"], rect["y"]))
                for v in node.values():
                    walk(v)
            elif isinstance(node, list):
                for v in node:
                    walk(v)
        walk(doc)
        if rects:
            return len({x for x, _ in rects}), len({y for _, y in rects})
    return None


def own_sprite_layout(width, height, frames):
    """The most square grid of cells that fits SPRITE_MAX_SIZE, as gifx documents it."""
    columns = max(1, min(math.ceil(math.sqrt(frames)), SPRITE_MAX_SIZE // width))
    rows = max(1, min(math.ceil(frames / columns), SPRITE_MAX_SIZE // height))
    return columns, rows


def build_tools(kind, name, path, info, probe, args, layout_box):
    reps = args.reps_4k if info.width * info.height >= 3840 * 2160 else args.reps
    heavy = info.width * info.height * len(info.images) > 100e6
    gifx = probe.path
    if kind == "timeline":
        return [
            Tool("gifx timeline --json", "gifx",
                 lambda out: [gifx, "timeline", path, "--json"], reps) if probe.has("timeline") else None,
            Tool("ffprobe -show_frames", "peer",
                 lambda out: ["ffprobe", "-v", "error", "-show_frames", "-of", "json", path], reps),
        ]
    if kind == "to-mp4":
        return [
            Tool("gifx to-mp4", "gifx",
                 lambda out: [gifx, "to-mp4", path, "-o", os.path.join(out, "Y.mp4"), "--overwrite"],
                 reps) if probe.has("to-mp4") else None,
            Tool("ffmpeg (libx264)", "peer",
                 lambda out: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path,
                              "-movflags", "+faststart", "-pix_fmt", "yuv420p", "-vf", MP4_FILTER,
                              os.path.join(out, "Y.mp4")], reps),
        ]
    if kind == "to-sprite":
        def sprite_cmd(binary, extra=()):
            def make(out):
                cmd = [binary, "to-sprite", path, "-o", os.path.join(out, "Y.png"), "--overwrite", *extra]
                if probe.has_option("to-sprite", "--json"):
                    cmd += ["--json", os.path.join(out, "Y.json")]
                return cmd
            return make
        gifx_cmd = sprite_cmd(gifx)

        def montage_cmd(out):
            if layout_box.get("layout") is None:
                found = sprite_layout_from_gifx(os.path.join(os.path.dirname(out), "gifx"))
                layout_box["source"] = "gifx's JSON" if found else "own most-square layout"
                layout_box["layout"] = found or own_sprite_layout(info.width, info.height,
                                                                  len(info.images))
            c, r = layout_box["layout"]
            return ["montage", path, "-coalesce", "-tile", f"{c}x{r}", "-geometry", "+0+0",
                    os.path.join(out, "Y.png")]
        return [
            Tool("gifx to-sprite", "gifx", gifx_cmd, reps) if probe.has("to-sprite") else None,
            *variant_tools(probe, "to-sprite", reps, sprite_cmd),
            Tool("montage (Debian policy)", "peer", montage_cmd, reps,
                 note="/etc/ImageMagick-6/policy.xml as installed"),
            Tool("montage (raised limits)", "peer-raised", montage_cmd, 1 if heavy else reps,
                 env={"MAGICK_CONFIGURE_PATH": RAISED_POLICY_DIR},
                 only_if_failed="montage (Debian policy)",
                 note="MAGICK_CONFIGURE_PATH=Benchmarks/imagemagick-raised (memory 8GiB, map 16GiB, "
                      "disk 32GiB, area 4GP)" + (", 1 repetition" if heavy else "")),
        ]
    if kind == "decode":
        flag = probe.decode_only_flag()
        return [
            Tool(f"gifx frames {flag}", "gifx", lambda out: [gifx, "frames", path, flag], reps)
            if flag else None,
            *(variant_tools(probe, "frames", reps,
                            lambda binary, extra=(): lambda out: [binary, "frames", path, flag, *extra])
              if flag else []),
            Tool("ffmpeg -f null", "peer",
                 lambda out: ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"], reps),
        ]
    raise ValueError(kind)


def run_sprite_pack(name, meta, probe, args, log):
    """Issue 16: sheet area and bytes of `--trim --pack maxrects` against the default grid (same run)."""
    out = os.path.join(args.root, "out", "sprite-pack", name)
    row = {"kind": "sprite-pack", "gif": name, "tools": []}
    for label, extra in (("grid", []), ("trim+maxrects", ["--trim", "--pack", "maxrects", "--format", "texturepacker"])):
        clean_dir(out)
        cmd = [probe.path, "to-sprite", meta["path"], "-o", os.path.join(out, "Y.png"), "--overwrite", "--quiet", *extra]
        result = runner.run(cmd, args.timeout)
        entry = {"label": label, "command": cmd, "status": result.status, "seconds": round(result.wall_s, 3),
                 "peak_rss_mib": round(result.peak_rss_kib / 1024, 1)}
        if result.status == "ok":
            entry["area_px"] = png_area(out)
            entry["sheet_bytes"] = output_bytes(out, "*.png")
        else:
            entry["failure"] = result.stderr_tail
        row["tools"].append(entry)
        log(f"  sprite-pack {name:22} {label:14} {result.status} area {entry.get('area_px')} px, "
            f"{entry.get('sheet_bytes')} B, {result.wall_s:.2f} s")
    shutil.rmtree(out, ignore_errors=True)
    return row


def variant_tools(probe, sub, reps, make):
    """gifx with each `--threads N` of THREAD_COUNTS (when it has the option), and the GIFX_BASELINE binary
    with its defaults; roles start with "gifx" so the report does not take them for peers."""
    tools = []
    if probe.has_option(sub, "--threads"):
        tools += [Tool(f"gifx {sub} --threads {n}", f"gifx-t{n}", make(probe.path, ("--threads", str(n))), reps)
                  for n in THREAD_COUNTS]
    if probe.has_option(sub, "--decoder"):
        # giflib's LZW (the oracle of gifx's own decoder, issue 25) on one thread, beside gifx's own.
        tools.append(Tool(f"gifx {sub} --threads 1 --decoder giflib", "gifx-giflib-t1",
                          make(probe.path, ("--threads", "1", "--decoder", "giflib")), reps))
    if GIFX_BASELINE:
        tools.append(Tool(f"gifx (baseline) {sub}", "gifx-baseline", make(GIFX_BASELINE), reps,
                          note=f"GIFX_BASELINE={GIFX_BASELINE}"))
    return tools


def gifx_skip_reason(kind, probe):
    if not probe.available:
        return "gifx binary not found"
    sub = {"timeline": "timeline", "to-mp4": "to-mp4", "to-sprite": "to-sprite", "decode": "frames",
           "batch": "batch", "sprite-pack": "to-sprite"}[kind]
    if not probe.has(sub):
        return f"gifx has no `{sub}` subcommand yet"
    if kind == "decode" and not probe.decode_only_flag():
        return "gifx frames has no decode-only flag (one of " + ", ".join(DECODE_ONLY_FLAGS) + ")"
    return None


def run_batch(probe, args, gif_meta, log):
    """Issue 9: `gifx batch to-mp4 --jobs 2` vs xargs -P 2 over the ffmpeg CLI, 500 small GIFs."""
    directory = make_gifs.build_batch(args.root, log=lambda m: log("  " + m))
    files = sorted(glob.glob(os.path.join(directory, "*.gif")))
    gif_meta["batch"] = {"path": directory, "files": len(files),
                         "bytes": sum(os.path.getsize(f) for f in files)}
    gifx = probe.path
    tools = [
        Tool("gifx batch to-mp4 --jobs 2", "gifx",
             lambda out: [gifx, "batch", "to-mp4", directory, "--out-dir", out, "--jobs", "2"],
             args.reps_batch) if probe.has("batch") else None,
        Tool("xargs -P 2 ffmpeg", "peer",
             lambda out: ["bash", os.path.join(HERE, "peer-batch.sh"), directory, out], args.reps_batch),
    ]
    return run_case("batch", "batch", [t for t in tools if t], os.path.join(args.root, "out", "batch"),
                    args.timeout, log)


def run_micro(args, log):
    """Swift micro-benchmarks (Benchmarks/Micro): Timeline on 100k frames. Built in release."""
    package = os.path.join(HERE, "Micro")
    scratch = os.path.join(os.path.abspath(args.root), "micro-build")
    build = subprocess.run(["swift", "build", "-c", "release", "--package-path", package,
                            "--scratch-path", scratch], capture_output=True, text=True)
    if build.returncode != 0:
        log("  micro: build failed: " + build.stderr.strip()[-300:])
        return {"status": "failed", "error": (build.stdout + build.stderr).strip()[-500:]}
    p = subprocess.run([os.path.join(scratch, "release", "TimelineMicro")], capture_output=True, text=True)
    try:
        result = json.loads(p.stdout)
    except ValueError:
        return {"status": "failed", "error": p.stderr.strip()[-500:]}
    log(f"  micro: Timeline on {result['frames']} frames: resolve {result['resolve']['median_ms']:.2f} ms, "
        f"JSONEncoder {result['json_encode']['median_ms']:.0f} ms, streaming writer "
        f"{result['json_stream']['median_ms']:.0f} ms")
    return {"status": "ok", **result}


def reference_schedule(path, probe, log):
    """Start times and duration (cs) from `gifx timeline --json`, else the harness's own parse."""
    info = gifblocks.parse_file(path)
    delays, starts, duration = gifblocks.resolved_schedule(info)
    own = {"starts": starts, "duration": duration, "source": "harness parse (timeline.md rules)"}
    if not probe.has("timeline"):
        return own, None
    p = subprocess.run([probe.path, "timeline", path, "--json"], capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
        g_starts = [f["start"] for f in doc["frames"]]
        g_duration = doc["duration"]["centiseconds"]
    except (ValueError, KeyError, TypeError):
        log(f"  gifx timeline --json unreadable for {path}: {p.stderr.strip()[:200]}")
        return own, "gifx timeline --json failed or unreadable; used the harness parse"
    mismatch = None
    if g_starts != starts or g_duration != duration:
        mismatch = f"gifx timeline disagrees with the harness parse of timeline.md " \
                   f"(gifx duration {g_duration} cs, harness {duration} cs)"
    return {"starts": g_starts, "duration": g_duration, "source": "gifx timeline --json"}, mismatch


def run_fidelity(gif_paths, probe, args, log):
    rows = []
    out = os.path.join(args.root, "out", "fidelity")
    for spec in make_gifs.FIDELITY_GIFS:
        path = gif_paths[spec.name]
        schedule, note = reference_schedule(path, probe, log)
        palette = gifwriter.distinct_colours(len(spec.delays))
        w, h = make_gifs.FIDELITY_SIZE
        row = {"gif": spec.name, "why": spec.why, "raw_delays": list(spec.delays),
               "expected_starts_cs": schedule["starts"], "duration_cs": schedule["duration"],
               "schedule_source": schedule["source"], "note": note, "tools": {}}
        tools = {"ffmpeg (libx264)": lambda y: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", path,
                                                "-movflags", "+faststart", "-pix_fmt", "yuv420p",
                                                "-vf", MP4_FILTER, y]}
        if probe.has("to-mp4"):
            tools = {"gifx to-mp4": lambda y: [probe.path, "to-mp4", path, "-o", y, "--overwrite"],
                     **tools}
        for label, make in tools.items():
            clean_dir(out)
            y = os.path.join(out, "Y.mp4")
            result = runner.run(make(y), args.timeout)
            if result.status != "ok":
                row["tools"][label] = {"status": result.status, "error": result.stderr_tail}
            else:
                row["tools"][label] = fidelity.measure(y, w, h, palette, schedule["starts"],
                                                       schedule["duration"])
            r = row["tools"][label]
            log(f"  fidelity  {spec.name:22} {label:28} max error {r.get('max_abs_error_ms')} ms, "
                f"missing {r.get('missing_frames')}, duration error {r.get('duration_error_ms')} ms")
        rows.append(row)
    shutil.rmtree(out, ignore_errors=True)
    return rows


def main():
    args = parse_args()
    if args.report_only:
        with open(os.path.join(args.root, "results.json")) as f:
            report.write(json.load(f), args.doc)
        return
    started = time.time()
    os.makedirs(args.root, exist_ok=True)

    def log(msg):
        print(f"[{time.time() - started:6.0f}s] {msg}", flush=True)

    load_at_start = [round(x, 2) for x in os.getloadavg()]
    probe = GifxProbe(args.gifx)
    log(f"gifx: {probe.path}: {probe.describe()}")
    only = {s for s in args.only.split(",") if s}
    log("building benchmark GIFs (cached under %s/gifs)" % args.root)
    gif_paths = make_gifs.build_all(args.root, only or None, log=lambda m: log("  " + m))
    gifs_built_s = time.time() - started

    gif_meta = {}
    for spec in make_gifs.BENCH_GIFS:
        if spec.name not in gif_paths:
            continue
        info = gifblocks.parse_file(gif_paths[spec.name])
        _, _, duration = gifblocks.resolved_schedule(info)
        gif_meta[spec.name] = {
            "path": gif_paths[spec.name], "width": info.width, "height": info.height,
            "frames": len(info.images), "bytes": os.path.getsize(gif_paths[spec.name]),
            # Colour indices the LZW data decodes to (one byte per pixel of every frame's rect).
            "index_bytes": sum(image.width * image.height for image in info.images),
            "duration_cs": duration, "sha256": make_gifs.sha256(gif_paths[spec.name]),
            "source": spec.source, "why": spec.why, "info": info,
        }

    cases, skipped, micro, timing, convert, frame_count, memory = [], [], None, None, None, None, None
    repeats, batch_scaling, animated_decode, serve = None, None, None, None
    for kind in [k for k in args.kinds.split(",") if k]:
        if kind == "frame-count":
            frame_count = framecount_bench.run(probe.path, args.root, max(args.timeout, 1200), log)
            continue
        if kind == "convert":
            if probe.has("convert"):
                convert = convert_bench.run(probe.path, args.root, gif_paths, only, args.reps, args.timeout, log)
            else:
                skipped.append({"kind": kind, "reason": "gifx has no convert"})
            continue
        if kind == "memory":
            memory = memory_bench.run(probe.path, args.root, gif_paths, args.reps, args.timeout, log,
                                      baseline=os.environ.get("GIFX_BASELINE"))
            continue
        if kind == "timing":
            if probe.has("to-mp4"):
                timing = timing_bench.run(probe.path, args.root, only, args.reps, args.timeout, log)
            else:
                skipped.append({"kind": kind, "reason": "gifx has no to-mp4"})
            continue
        if kind == "batch-scaling":
            if probe.has("batch"):
                batch_scaling = batch_scaling_bench.run(probe.path, args.root, gif_paths, args.max_jobs, args.reps,
                                                        max(args.timeout, 600), log)
            else:
                skipped.append({"kind": kind, "reason": "gifx has no batch"})
            continue
        if kind == "serve":
            if probe.has("serve"):
                serve = serve_bench.run(probe.path, args.root, log)
            else:
                skipped.append({"kind": kind, "reason": "gifx has no serve"})
            continue
        if kind == "repeats":
            if probe.has("to-mp4"):
                repeats = repeats_bench.run(probe.path, args.root, gif_paths, only, args.reps, args.timeout, log)
            else:
                skipped.append({"kind": kind, "reason": "gifx has no to-mp4"})
            continue
        reason = None if kind == "micro" else gifx_skip_reason(kind, probe)
        if reason:
            skipped.append({"kind": kind, "reason": reason})
            log(f"{kind}: gifx side skipped: {reason}")
        if kind == "batch":
            cases.append(run_batch(probe, args, gif_meta, log))
            continue
        if kind == "micro":
            micro = run_micro(args, log)
            continue
        if kind == "sprite-pack":
            if not reason:
                cases += [run_sprite_pack(name, meta, probe, args, log) for name, meta in gif_meta.items()]
            continue
        for name, meta in gif_meta.items():
            layout_box = {}
            tools = [t for t in build_tools(kind, name, meta["path"], meta["info"], probe, args,
                                            layout_box) if t]
            over_budget = time.time() - started > args.budget_min * 60
            if over_budget:
                log(f"  over the {args.budget_min} min budget: one repetition each")
            case = run_case(kind, name, tools, os.path.join(args.root, "out", kind, name),
                            min(args.timeout, 60) if over_budget else args.timeout, log,
                            reps_cap=1 if over_budget else None)
            if layout_box.get("layout"):
                case["montage_tile"] = "%dx%d" % layout_box["layout"]
                case["montage_tile_source"] = layout_box["source"]
            cases.append(case)
        if kind == "decode" and not reason:
            # Issue 35: WebP and APNG made from the bench GIFs, against WebPAnimDecoder and the ffmpeg CLI.
            animated_decode = animated_decode_bench.run(probe.path, args.root, gif_paths, only, args.reps,
                                                        args.timeout, log)

    fidelity_rows = [] if args.no_fidelity else run_fidelity(gif_paths, probe, args, log)

    for meta in gif_meta.values():
        meta.pop("info", None)
    results = {
        "schema": "gifx.bench/1",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": {**machine.describe(probe.path), "load_average_at_start": load_at_start},
        "gifx": {"path": probe.path, "available": probe.available,
                 "subcommands": sorted(probe.subcommands), "decode_only_flag": probe.decode_only_flag()},
        "settings": {"reps": args.reps, "reps_4k": args.reps_4k, "timeout_s": args.timeout,
                     "budget_min": args.budget_min},
        "gifs": gif_meta, "cases": cases, "micro": micro, "skipped": skipped, "fidelity": fidelity_rows,
        "timing": timing,
        "repeats": repeats,
        "batch_scaling": batch_scaling,
        "convert": convert,
        "memory": memory,
        "frame_count": frame_count,
        "animated_decode": animated_decode,
        "serve": serve,
        "gif_build_s": round(gifs_built_s, 1),
        "note": os.environ.get("BENCH_NOTE", ""),
        "total_s": round(time.time() - started, 1),
    }
    json_path = os.path.join(args.root, "results.json")
    with open(json_path, "w") as f:
        json.dump(results, f, indent=1)
    log(f"wrote {json_path}")
    if args.doc:
        report.write(results, args.doc)
        log(f"wrote {args.doc}")


if __name__ == "__main__":
    main()
