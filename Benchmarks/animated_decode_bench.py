#!/usr/bin/env python3
"""Decode + composite of animated WebP and APNG (issue 35), part of the `decode` kind of `make bench`.

Inputs are made from the bench GIFs (cached in ROOT/animated/, never committed): gif2webp lossless and
lossy (`-lossy -q 75`), and ffmpeg's apng muxer (`-f apng -plays 0`). Each is decoded and composited, every
frame, writing nothing:

- WebP: `gifx frames X --null` (default threads and `--threads 1`) against libwebp's own `WebPAnimDecoder`
  (Benchmarks/webp_anim_decode.c, compiled here with cc against the system libwebpdemux), with
  `use_threads` 0 (its default: one thread) and 1;
- APNG: `gifx frames X --null` (default threads and `--threads 1`) against the ffmpeg CLI
  (`ffmpeg -i X -f null -`, its default threads, and `-threads 1`).

The tools alternate (order flipped each repetition); the table gives medians of wall time and of CPU time
(user + system), and `--callgrind` adds instructions retired (valgrind --tool=callgrind, one run of each
one-thread tool), which a loaded machine does not distort. Speed ratio = peer time / gifx time (above 1×:
gifx is faster). Targets: WebP ≥ 1.0× WebPAnimDecoder at one thread; APNG ≥ 1.5× the ffmpeg CLI.

Standalone: `python3 Benchmarks/animated_decode_bench.py --gifx .build-release/release/gifx [--only a,b]
[--reps 3] [--callgrind] [--markdown out.md]`; inside `make bench` the decode kind calls `run()`.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_gifs  # noqa: E402
import runner  # noqa: E402

# The bench GIFs used (the two largest are left out: gif2webp takes minutes on them, and they add nothing per
# pixel; name them with --only to run them).
DEFAULT_GIFS = ["480x270x200", "333x187x100", "sprite-256x192x96", "64x64x5000"]
VARIANTS = {
    "webp-lossless": (".lossless.webp", lambda gif, out: ["gif2webp", "-quiet", gif, "-o", out]),
    "webp-lossy": (".lossy.webp", lambda gif, out: ["gif2webp", "-quiet", "-lossy", "-q", "75", gif, "-o", out]),
    "apng": (".apng", lambda gif, out: ["ffmpeg", "-nostdin", "-v", "error", "-y", "-i", gif, "-f", "apng",
                                        "-plays", "0", out]),
}
TARGETS = {"webp": 1.0, "apng": 1.5}


def build_harness(root):
    exe = os.path.join(root, "webp_anim_decode")
    source = os.path.join(HERE, "webp_anim_decode.c")
    if not os.path.exists(exe) or os.path.getmtime(exe) < os.path.getmtime(source):
        subprocess.run(["cc", "-O2", "-o", exe, source, "-lwebpdemux", "-lwebp"], check=True)
    return exe


def make_inputs(root, gif_paths, names, log):
    folder = os.path.join(root, "animated")
    os.makedirs(folder, exist_ok=True)
    inputs = []
    for name in names:
        gif = gif_paths.get(name)
        if not gif:
            continue
        for variant, (suffix, make) in VARIANTS.items():
            out = os.path.join(folder, name + suffix)
            if not os.path.exists(out):
                t0 = time.time()
                p = subprocess.run(make(gif, out + ".tmp"), capture_output=True, text=True)
                if p.returncode != 0:
                    log(f"  animated-decode: cannot make {out}: {p.stderr.strip()[-200:]}")
                    continue
                os.replace(out + ".tmp", out)
                log(f"  animated-decode: made {os.path.basename(out)} ({os.path.getsize(out) / 1e6:.1f} MB) "
                    f"in {time.time() - t0:.0f} s")
            inputs.append((name, variant, out))
    return inputs


def tools_for(variant, path, gifx, harness):
    gifx_tools = [("gifx frames --null", [gifx, "frames", path, "--null"], False),
                  ("gifx frames --null --threads 1", [gifx, "frames", path, "--null", "--threads", "1"], True)]
    if variant.startswith("webp"):
        peers = [("WebPAnimDecoder use_threads 0", [harness, path], True),
                 ("WebPAnimDecoder use_threads 1", [harness, "--threads", "1", path], False)]
    else:
        peers = [("ffmpeg -f null", ["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "null", "-"], False),
                 ("ffmpeg -threads 1 -f null", ["ffmpeg", "-nostdin", "-v", "error", "-threads", "1", "-i", path,
                                                "-f", "null", "-"], True)]
    return gifx_tools, peers


def instructions(cmd, work):
    """Instructions retired by cmd and its children (callgrind totals), or None."""
    if not shutil.which("valgrind"):
        return None
    out = os.path.join(work, "callgrind.out.%p")
    for f in os.listdir(work):
        if f.startswith("callgrind.out."):
            os.remove(os.path.join(work, f))
    p = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes", f"--callgrind-out-file={out}",
                        *cmd], capture_output=True, text=True)
    if p.returncode != 0:
        return None
    total = 0
    for f in os.listdir(work):
        if f.startswith("callgrind.out."):
            with open(os.path.join(work, f)) as fh:
                for line in fh:
                    if line.startswith("summary:") or line.startswith("totals:"):
                        total += int(line.split()[1])
                        break
    return total or None


def run(gifx, root, gif_paths, only, reps, timeout, log, callgrind=False):
    names = [n for n in gif_paths if n in only] if only else DEFAULT_GIFS
    harness = build_harness(root)
    inputs = make_inputs(root, gif_paths, names, log)
    rows = []
    work = tempfile.mkdtemp(prefix="gifx-animated-bench-")
    try:
        for name, variant, path in inputs:
            gifx_tools, peers = tools_for(variant, path, gifx, harness)
            tools = gifx_tools + peers
            runs = {label: [] for label, _, _ in tools}
            for rep in range(reps):
                order = tools if rep % 2 == 0 else list(reversed(tools))
                for label, cmd, _ in order:
                    r = runner.run(cmd, timeout)
                    runs[label].append(r)
                    if r.status != "ok":
                        log(f"  animated-decode {name} {variant} {label}: {r.status} {r.stderr_tail[:200]}")
            row = {"gif": name, "variant": variant, "bytes": os.path.getsize(path), "tools": {}}
            for label, cmd, one_thread in tools:
                ok = [r for r in runs[label] if r.status == "ok"]
                entry = {"command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)),
                         "one_thread": one_thread}
                if ok:
                    entry.update({"wall_s": round(statistics.median(r.wall_s for r in ok), 4),
                                  "cpu_s": round(statistics.median(r.cpu_s for r in ok), 4),
                                  "peak_rss_mib": round(max(r.peak_rss_kib for r in ok) / 1024, 1)})
                else:
                    entry["failure"] = runs[label][0].stderr_tail if runs[label] else "not run"
                if callgrind and one_thread:
                    entry["instructions"] = instructions(cmd, work)
                row["tools"][label] = entry
            rows.append(row)
            t = row["tools"]
            log(f"  animated-decode {name:20} {variant:14} " + ", ".join(
                f"{label} {e.get('wall_s', 'failed')} s" for label, e in t.items()))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return {"rows": rows, "reps": reps, "callgrind": callgrind, "load_average": [round(x, 2) for x in os.getloadavg()]}


def _ratio(peer, ours, key):
    if not peer or not ours or key not in peer or key not in ours or not ours[key]:
        return None
    return peer[key] / ours[key]


def report(result):
    if not result or not result.get("rows"):
        return []
    lines = ["## Animated WebP and APNG: decode + composite vs libwebp's WebPAnimDecoder and the ffmpeg CLI "
             "(issue 35)", "",
             "Inputs made from the bench GIFs: gif2webp lossless, gif2webp `-lossy -q 75`, ffmpeg's apng muxer "
             "(`Benchmarks/animated_decode_bench.py`). gifx: `frames X --null`; WebP peer: `WebPAnimDecoder` "
             "(`Benchmarks/webp_anim_decode.c`, MODE_RGBA, every frame, `use_threads` 0 = its default, 1 thread, "
             "or 1); APNG peer: `ffmpeg -i X -f null -` (default threads) and with `-threads 1`. "
             f"{result['reps']} alternating runs, medians; process wall time and CPU time (user + system) "
             "include start-up. × = peer time / gifx time (above 1×: gifx faster). One thread: "
             "`--threads 1` against `use_threads 0` / `-threads 1`; default: gifx's default against the peer's "
             "default (`use_threads 0` is libwebp's default; `use_threads 1` is shown too). "
             f"Load average at the end: {result.get('load_average')}.", "",
             "| input | MB | gifx 1 thread: wall s / CPU s | peer 1 thread: wall s / CPU s | × wall | × CPU | "
             "gifx default: wall s | peer default (and other): wall s | × wall | instructions gifx / peer (1 thread) | "
             "peak RSS MiB gifx / peer | target |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in result["rows"]:
        t = row["tools"]
        webp = row["variant"].startswith("webp")
        g1, gd = t.get("gifx frames --null --threads 1"), t.get("gifx frames --null")
        if webp:
            p1, pd, po = t.get("WebPAnimDecoder use_threads 0"), t.get("WebPAnimDecoder use_threads 0"), \
                t.get("WebPAnimDecoder use_threads 1")
        else:
            p1, pd, po = t.get("ffmpeg -threads 1 -f null"), t.get("ffmpeg -f null"), None
        rw, rc, rd = _ratio(p1, g1, "wall_s"), _ratio(p1, g1, "cpu_s"), _ratio(pd, gd, "wall_s")
        ins = ""
        if g1 and p1 and g1.get("instructions") and p1.get("instructions"):
            ins = f"{g1['instructions'] / 1e6:,.0f} M / {p1['instructions'] / 1e6:,.0f} M " \
                  f"({p1['instructions'] / g1['instructions']:.2f}×)"
        target = TARGETS["webp" if webp else "apng"]
        verdict = "–" if rw is None else ("met" if (rc or rw) >= target else "missed") + f" (≥ {target}× at one thread)"

        def w(e):
            return f"{e['wall_s']:.3f} / {e['cpu_s']:.3f}" if e and "wall_s" in e else "failed"

        def fx(r):
            return f"{r:.2f}×" if r else "–"
        other = f" ({po['wall_s']:.3f} with use_threads 1)" if po and "wall_s" in po else ""
        lines.append(
            f"| {row['gif']} {row['variant']} | {row['bytes'] / 1e6:.1f} | {w(g1)} | {w(p1)} | {fx(rw)} | {fx(rc)} | "
            f"{gd['wall_s'] if gd and 'wall_s' in gd else 'failed'} | "
            f"{pd['wall_s'] if pd and 'wall_s' in pd else 'failed'}{other} | {fx(rd)} | {ins or '–'} | "
            f"{g1.get('peak_rss_mib', '–') if g1 else '–'} / {p1.get('peak_rss_mib', '–') if p1 else '–'} | {verdict} |")
    lines.append("")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gifx", default=".build-release/release/gifx")
    ap.add_argument("--root", default=".build-bench")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--callgrind", action="store_true")
    ap.add_argument("--markdown")
    ap.add_argument("--json")
    args = ap.parse_args()
    only = {s for s in args.only.split(",") if s}
    started = time.time()

    def log(msg):
        print(f"[{time.time() - started:6.0f}s] {msg}", flush=True)
    names = sorted(only) if only else DEFAULT_GIFS
    gif_paths = make_gifs.build_all(args.root, set(names), log=lambda m: log("  " + m))
    result = run(args.gifx, args.root, gif_paths, only, args.reps, args.timeout, log, args.callgrind)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    text = "\n".join(report(result))
    print(text)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
