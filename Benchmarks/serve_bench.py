#!/usr/bin/env python3
"""The serve kind (issue 36, section 7): `gifx serve` against thumbor in the same run, with the same client.

thumbor 7 (PyPI) with the thumbor-plugins-gifv optimizer (the ffmpeg CLI underneath) and the gifsicle
engine, loading from a local folder (file loader), answering `/unsafe/filters:gifv()/NAME.gif`; gifx serve
answering `POST /v1/convert?format=mp4` with the same GIF as the body. Both convert every request: thumbor
has no result storage (RESULT_STORAGE = None, STORAGE = no_storage), and each body sent to gifx carries a
unique 16-byte GIF comment extension (same pictures and schedule, another content hash), so gifx's cache
never answers; both servers are restarted for each concurrency level (a fresh cache folder for gifx).

One asyncio client (aiohttp) drives both, closed loop: C workers take the next request from one list until
it is empty, at C = 1, 8 and 32. Per server and level: conversions/s (200s / wall time from the first
request to the last answer), p50 and p99 latency, peak RSS of the server's process tree (thumbor's
processes and their gifsicle and ffmpeg children, /proc sampled every 50 ms; for gifx, one process, the
larger of that and its VmHWM), answers by status, and the timing error of every MP4 (ffprobe's duration
against `gifx timeline --json`), plus `gifx verify` on one gifx output per GIF and level.

Run by `BENCH_KINDS=serve make bench` (Benchmarks/bench.py calls run(), which makes the virtual environment
under .build-bench/serve/venv and runs this file in it), or by hand:
  python3 Benchmarks/serve_bench.py --gifx .build-release/release/gifx [--levels 1,8,32] [--markdown F]
Not part of `make test`. Needs ffmpeg, gifsicle (Debian) and PyPI.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_gifs  # noqa: E402
import serve_common as sc  # noqa: E402

PIP_PACKAGES = ["thumbor==7.8.0", "thumbor-plugins-gifv==0.1.5", "aiohttp"]
# The bench GIFs a service sees most (small and mid-size clips; the 98 MB and 4K ones are the memory kind's).
BENCH_NAMES = ["333x187x100", "sprite-256x192x96", "vardelay-480x270x150"]
# Generated for this kind: small clips, mixed and variable delays (written by make_gifs, cached).
SERVE_GIFS = [
    make_gifs.BenchGif("serve-160x120x24", "testsrc2", 160, 120, 24, why="a small sticker"),
    make_gifs.BenchGif("serve-200x200x40-mixed", "mandelbrot", 200, 200, 40, delay_cycle=(2, 3, 7, 10),
                       why="delays 2/3/7/10 cs"),
    make_gifs.BenchGif("serve-320x240x60", "testsrc2", 320, 240, 60, delay_cycle=(4, 6),
                       why="delays 4/6 cs"),
    make_gifs.BenchGif("serve-96x96x12-slow", "testsrc2", 96, 96, 12, delay_cycle=(50, 25),
                       why="a slow reaction GIF"),
]


def venv_python(root, log):
    """The virtual environment's python (made, with thumbor, the gifv plugin and aiohttp, when missing)."""
    venv = os.path.join(root, "serve", "venv")
    python = os.path.join(venv, "bin", "python")
    probe = [python, "-c", "import thumbor, thumbor_plugins.optimizers.gifv, aiohttp"]
    if os.path.exists(python) and subprocess.run(probe, capture_output=True).returncode == 0:
        return python
    log(f"  serve: pip install {' '.join(PIP_PACKAGES)} into {venv}")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    subprocess.run([python, "-m", "pip", "install", "-q", *PIP_PACKAGES], check=True)
    return python


def run(gifx, root, log, levels="1,8,32", timeout=3600):
    """bench.py's entry: the serve section of results.json (or {"status": "skipped", "reason": ...})."""
    for tool in ("gifsicle", "ffmpeg", "ffprobe"):
        if not shutil.which(tool):
            log(f"serve: {tool} is missing (Debian: apt-get install {tool}); skipped")
            return {"status": "skipped", "reason": f"{tool} is missing"}
    try:
        python = venv_python(root, log)
    except (subprocess.CalledProcessError, OSError) as e:
        log(f"serve: no thumbor: {e}; skipped")
        return {"status": "skipped", "reason": f"thumbor could not be installed: {e}"}
    out = os.path.join(root, "serve", "results.json")
    p = subprocess.run([python, os.path.abspath(__file__), "--gifx", gifx, "--root", root,
                        "--levels", levels, "--json", out], timeout=timeout)
    if p.returncode != 0:
        return {"status": "failed", "reason": f"serve_bench.py exited {p.returncode}"}
    with open(out) as f:
        return json.load(f)


# ---------------------------------------------------------------- measuring (runs in the venv)

def build_gifs(root, gifx):
    paths = make_gifs.build_all(root, set(BENCH_NAMES), log=lambda m: None)
    directory = os.path.join(root, "serve", "gifs")
    os.makedirs(directory, exist_ok=True)
    for spec in SERVE_GIFS:
        paths[spec.name], _ = make_gifs.build_bench_gif(spec, directory)
    gifs = {}
    for name, path in paths.items():
        duration_cs, frames = sc.gif_duration_cs(gifx, path)
        with open(path, "rb") as f:
            data = f.read()
        gifs[name] = {"path": path, "bytes": len(data), "frames": frames, "duration_cs": duration_cs,
                      "data": data}
    return gifs


THUMBOR_CONF = """\
LOADER = 'thumbor.loaders.file_loader'
FILE_LOADER_ROOT_PATH = {images!r}
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
USE_GIFSICLE_ENGINE = True
OPTIMIZERS = ['thumbor_plugins.optimizers.gifv']
FFMPEG_PATH = {ffmpeg!r}
ALLOW_UNSAFE_URL = True
MAX_AGE = 0
"""


def start_thumbor(work, gifs, port, processes):
    images = os.path.join(work, "images")
    os.makedirs(images, exist_ok=True)
    for name, g in gifs.items():
        shutil.copy(g["path"], os.path.join(images, name + ".gif"))
    conf = os.path.join(work, "thumbor.conf")
    with open(conf, "w") as f:
        f.write(THUMBOR_CONF.format(images=images, ffmpeg=shutil.which("ffmpeg")))
    thumbor = os.path.join(os.path.dirname(sys.executable), "thumbor")
    cmd = [thumbor, "-p", str(port), "-i", "127.0.0.1", "-c", conf, "-l", "warning",
           "--processes", str(processes)]
    log = open(os.path.join(work, "thumbor.log"), "ab")
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    log.close()
    name = next(iter(gifs))
    if not sc.wait_http(f"http://127.0.0.1:{port}/healthcheck", 60, proc):
        sc.stop(proc)
        raise RuntimeError("thumbor did not start: " + " ".join(cmd))
    return proc, name


async def drive(requests, concurrency, outdir):
    """requests: [(method, url, body or None, gif name)]. Returns per-request records and the wall time."""
    import aiohttp
    records = [None] * len(requests)
    next_index = iter(range(len(requests)))
    timeout = aiohttp.ClientTimeout(total=900)
    connector = aiohttp.TCPConnector(limit=concurrency, force_close=False)
    async with aiohttp.ClientSession(timeout=timeout, connector=connector) as session:
        async def worker():
            for i in next_index:
                method, url, body, name = requests[i]
                t0 = time.perf_counter()
                try:
                    async with session.request(method, url, data=body) as resp:
                        payload = await resp.read()
                        status = resp.status
                except (aiohttp.ClientError, asyncio.TimeoutError) as e:
                    payload, status = b"", f"error: {type(e).__name__}"
                latency = time.perf_counter() - t0
                path = None
                if status == 200:
                    path = os.path.join(outdir, f"{i:04d}-{name}.mp4")
                    with open(path, "wb") as f:
                        f.write(payload)
                records[i] = {"gif": name, "status": status, "latency_s": latency, "bytes": len(payload),
                              "path": path}
        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        wall = time.perf_counter() - started
    return records, wall


def check_outputs(records, gifs, gifx, verify_sample):
    """Timing error of every 200 (ffprobe duration − GIF duration), `gifx verify` on one output per GIF."""
    errors, unreadable, verified, verify_failed = [], 0, 0, []
    seen = set()
    for r in records:
        if r["status"] != 200:
            continue
        probe = sc.ffprobe_mp4(r["path"])
        if probe is None:
            unreadable += 1
            continue
        error_ms = (probe[0] - gifs[r["gif"]]["duration_cs"] / 100) * 1000
        r["duration_error_ms"] = round(error_ms, 1)
        errors.append(abs(error_ms))
        if verify_sample and r["gif"] not in seen:
            seen.add(r["gif"])
            p = subprocess.run([gifx, "verify", gifs[r["gif"]]["path"], r["path"], "--quiet"],
                               capture_output=True, text=True)
            if p.returncode == 0:
                verified += 1
            else:
                verify_failed.append(f"{r['gif']}: {p.stderr.strip()[:200]}")
    per_gif = {}
    for r in records:
        if "duration_error_ms" in r:
            per_gif.setdefault(r["gif"], set()).add(r["duration_error_ms"])
    return {"max_abs_duration_error_ms": round(max(errors), 1) if errors else None,
            "mean_abs_duration_error_ms": round(statistics.mean(errors), 1) if errors else None,
            "exact_outputs": sum(1 for e in errors if e < 0.5), "checked_outputs": len(errors),
            "unreadable_outputs": unreadable, "duration_error_ms_by_gif": {k: sorted(v) for k, v in per_gif.items()},
            **({"verified": verified, "verify_failed": verify_failed} if verify_sample else {})}


def summarise(records, wall, peak_kib):
    by_status = {}
    for r in records:
        by_status[str(r["status"])] = by_status.get(str(r["status"]), 0) + 1
    ok = [r["latency_s"] for r in records if r["status"] == 200]
    return {"requests": len(records), "ok": len(ok), "wall_s": round(wall, 2),
            "conversions_per_s": round(len(ok) / wall, 3) if wall else None,
            "p50_ms": round(sc.percentile(ok, 50) * 1000) if ok else None,
            "p99_ms": round(sc.percentile(ok, 99) * 1000) if ok else None,
            "peak_rss_mib": round(peak_kib / 1024, 1), "by_status": by_status}


def measure(args):
    started = time.time()

    def log(msg):
        print(f"[serve {time.time() - started:5.0f}s] {msg}", flush=True)

    root = args.root
    work = os.path.join(root, "serve", "work")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    gifs = build_gifs(root, args.gifx)
    names = sorted(gifs)
    log("GIFs: " + ", ".join(f"{n} ({gifs[n]['frames']} frames, {gifs[n]['duration_cs'] / 100:.2f} s, "
                             f"{gifs[n]['bytes'] / 1e3:.0f} kB)" for n in names))
    cores = os.cpu_count() or 1
    # The service's own defaults for threads (the cores) and jobs (one per thread, threads by demand), a queue deep enough for
    # every client (thumbor queues without a bound) and timeouts past the longest wait.
    gifx_args = ["--memory-budget", args.budget, *(["--jobs", str(args.jobs)] if args.jobs else []),
                 "--queue", "256", "--queue-timeout", "900", "--conversion-timeout", "900",
                 "--cache-size", "8G", "--max-body", "256M"]
    result = {"status": "ok", "load_average_at_start": sc.load_average(), "cores": cores,
              "gifx_serve_args": gifx_args, "thumbor_processes": cores,
              "thumbor_packages": PIP_PACKAGES[:2],
              "gifs": {n: {k: v for k, v in gifs[n].items() if k not in ("data", "path")} for n in names},
              "levels": []}
    rng = random.Random(36)
    for level_index, concurrency in enumerate(int(c) for c in args.levels.split(",")):
        count = max(2 * len(names), args.per_client * concurrency)
        order = [names[i % len(names)] for i in range(count)]
        rng.shuffle(order)
        row = {"concurrency": concurrency, "requests": count, "load_average_before": sc.load_average()}
        peer = args.versus
        rounds = {"gifx": [], peer: []}
        # Each round runs both servers, in the other order than the round before (ABBA...): a load that drifts
        # over the level weighs on both alike, and the ratio is the median of the rounds' own ratios.
        order_of_rounds = [["gifx", peer] if (level_index + k) % 2 == 0 else [peer, "gifx"] for k in range(args.rounds)]
        for round_index, server in ((k, srv) for k, servers in enumerate(order_of_rounds) for srv in servers):
            outdir = os.path.join(work, f"{server}-{concurrency}-{round_index}")
            os.makedirs(outdir)
            port = sc.free_port()
            if server in ("gifx", "in-process"):
                # `gifx`: the service as shipped, converting in worker processes (issue 50); `in-process`: the same
                # service with --no-workers, converting in its own process as before.
                cache = os.path.join(work, f"cache-{server}-{concurrency}-{round_index}")
                proc = sc.start_gifx(args.gifx, cache, port, gifx_args + (["--no-workers"] if server == "in-process" else []),
                                     log_path=os.path.join(work, "gifx-serve.log"))
                url = f"http://127.0.0.1:{port}/v1/convert?format=mp4"
                warm = [("POST", url, sc.gif_with_nonce(gifs[n]["data"], os.urandom(16)), n) for n in names[:2]]
                reqs = [("POST", url, sc.gif_with_nonce(gifs[n]["data"], b"%016x" % (i + 1000 * concurrency + 10**6 * round_index)), n)
                        for i, n in enumerate(order)]
            else:
                proc, _ = start_thumbor(os.path.join(work, f"thumbor-{concurrency}-{round_index}"), gifs, port, cores)
                base = f"http://127.0.0.1:{port}/unsafe/filters:gifv()/"
                warm = [("GET", base + n + ".gif", None, n) for n in names[:2]]
                reqs = [("GET", base + n + ".gif", None, n) for n in order]
            try:
                asyncio.run(drive(warm, 1, outdir))
                with sc.TreeRSS(proc.pid) as sampler:
                    records, wall = asyncio.run(drive(reqs, concurrency, outdir))
                peak = sampler.peak_kib
                # The service process's own high-water mark (with --workers the tree adds the workers').
                service_peak = sc.vm_hwm_kib(proc.pid)
                if server == "gifx":
                    peak = max(peak, service_peak)
                alive = proc.poll() is None
            finally:
                sc.stop(proc)
            summary = summarise(records, wall, peak)
            summary["server_survived"] = alive
            summary["service_process_peak_rss_mib"] = round(service_peak / 1024, 1)
            summary.update(check_outputs(records, gifs, args.gifx, verify_sample=(server != "thumbor")))
            rounds[server].append(summary)
            log(f"C={concurrency:2} {server:7} {summary['conversions_per_s']:.2f} conv/s, p50 {summary['p50_ms']} ms, "
                f"p99 {summary['p99_ms']} ms, peak RSS {summary['peak_rss_mib']} MiB, {summary['by_status']}, "
                f"max |duration error| {summary['max_abs_duration_error_ms']} ms")
            shutil.rmtree(outdir, ignore_errors=True)
        row["load_average_after"] = sc.load_average()
        ratios = {"throughput": [], "p99": [], "p50": []}
        for g, t in zip(rounds["gifx"], rounds[peer]):
            if g["conversions_per_s"] and t["conversions_per_s"]:
                ratios["throughput"].append(g["conversions_per_s"] / t["conversions_per_s"])
            if g["p99_ms"] and t["p99_ms"]:
                ratios["p99"].append(g["p99_ms"] / t["p99_ms"])
                ratios["p50"].append(g["p50_ms"] / t["p50_ms"])
        for key, values in ratios.items():
            if values:
                row[f"{key}_ratio"] = round(statistics.median(values), 2)
                row[f"{key}_ratio_rounds"] = [round(v, 2) for v in values]
        # The table shows each server's median round by throughput (the middle one of an odd count).
        for server, summaries in rounds.items():
            row[server] = sorted(summaries, key=lambda r: r["conversions_per_s"] or 0)[(len(summaries) - 1) // 2]
        row["rounds"] = args.rounds
        result["levels"].append(row)
    result["load_average_at_end"] = sc.load_average()
    result["total_s"] = round(time.time() - started, 1)
    shutil.rmtree(work, ignore_errors=True)
    return result


def report(section):
    """Markdown lines for docs/benchmarks.md."""
    if not section:
        return []
    out = ["## `gifx serve` vs thumbor's gifv optimizer (issue 36; `BENCH_KINDS=serve`)", ""]
    if section.get("status") != "ok":
        return out + [f"Not measured: {section.get('reason')}", ""]
    out += [f"Same machine, same run, same client (aiohttp, closed loop, C concurrent clients); "
            f"load average {section['load_average_at_start']} at start, {section['load_average_at_end']} at end, "
            f"{section['cores']} cores. gifx serve `{' '.join(section['gifx_serve_args'])}` (threads: the service's "
            f"default, the cores, granted by demand; jobs: "
            f"{'as given' if '--jobs' in section['gifx_serve_args'] else 'the default, one per thread'}); thumbor 7.8.0 with "
            f"`--processes {section['thumbor_processes']}`, the gifsicle engine and the thumbor-plugins-gifv "
            "optimizer (ffmpeg CLI, libx264), no result storage. Both convert every request (gifx's bodies carry "
            "a unique GIF comment, so its cache never answers).", "",
            "| C | requests | gifx conv/s | thumbor conv/s | throughput gifx/thumbor | gifx p50 / p99 ms | "
            "thumbor p50 / p99 ms | p99 gifx/thumbor | peak RSS gifx / thumbor MiB | answers gifx / thumbor | "
            "load before → after |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in section["levels"]:
        g, t = row["gifx"], row["thumbor"]
        out.append(f"| {row['concurrency']} | {row['requests']} | {g['conversions_per_s']} | {t['conversions_per_s']} | "
                   f"**{row.get('throughput_ratio')}×** | {g['p50_ms']} / {g['p99_ms']} | {t['p50_ms']} / {t['p99_ms']} | "
                   f"**{row.get('p99_ratio')}×** | {g['peak_rss_mib']} / {t['peak_rss_mib']} | "
                   f"{_statuses(g)} / {_statuses(t)} | {row['load_average_before'][0]} → "
                   f"{row['load_average_after'][0]} |")
    out += ["", "Timing of the outputs (MP4 duration by ffprobe − the GIF's duration by `gifx timeline --json`, "
            "policy flanimated; exact = within 0.5 ms):", "",
            "| C | gifx: exact / checked, max error | gifx verify (one per GIF) | thumbor: exact / checked, max error |",
            "|---|---|---|---|"]
    for row in section["levels"]:
        g, t = row["gifx"], row["thumbor"]
        out.append(f"| {row['concurrency']} | {g['exact_outputs']} / {g['checked_outputs']}, "
                   f"{g['max_abs_duration_error_ms']} ms | {g.get('verified')} passed"
                   f"{', failed: ' + '; '.join(g['verify_failed']) if g.get('verify_failed') else ''} | "
                   f"{t['exact_outputs']} / {t['checked_outputs']}, {t['max_abs_duration_error_ms']} ms |")
    last = section["levels"][-1]["thumbor"].get("duration_error_ms_by_gif", {})
    out += ["", "thumbor's duration error by GIF (ms): " + "; ".join(
        f"{name} ({section['gifs'][name]['duration_cs'] / 100:.2f} s): {', '.join(str(e) for e in errs)}"
        for name, errs in sorted(last.items())), "",
        "GIFs: " + "; ".join(f"{n}: {g['frames']} frames, {g['duration_cs'] / 100:.2f} s, {g['bytes'] / 1e3:.0f} kB"
                             for n, g in section["gifs"].items()), ""]
    return out


def report_in_process(section):
    """Markdown lines for `--versus in-process`: the shipped service (workers) against --no-workers, per level."""
    out = ["| C | requests | in-process conv/s | gifx conv/s | throughput gifx / in-process | in-process p50 / p99 ms | "
           "gifx p50 / p99 ms | p99 gifx / in-process | service RSS in-process MiB | service / tree RSS gifx MiB | "
           "answers gifx / in-process | load before → after |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in section.get("levels", []):
        g, t = row["gifx"], row["in-process"]
        out.append(f"| {row['concurrency']} | {row['requests']} | {t['conversions_per_s']} | {g['conversions_per_s']} | "
                   f"**{row.get('throughput_ratio')}×** | {t['p50_ms']} / {t['p99_ms']} | {g['p50_ms']} / {g['p99_ms']} | "
                   f"**{row.get('p99_ratio')}×** | {t['service_process_peak_rss_mib']} | "
                   f"{g['service_process_peak_rss_mib']} / {g['peak_rss_mib']} | {_statuses(g)} / {_statuses(t)} | "
                   f"{row['load_average_before'][0]} → {row['load_average_after'][0]} |")
    if any(row.get("rounds", 1) > 1 for row in section.get("levels", [])):
        out += ["", "Ratios are the median of each round's own (rounds alternate which server goes first); per round:", ""]
        for row in section["levels"]:
            out.append(f"- C={row['concurrency']}: throughput {row.get('throughput_ratio_rounds')}, "
                       f"p99 {row.get('p99_ratio_rounds')}")
    return out


def _statuses(summary):
    return ", ".join(f"{k}: {v}" for k, v in sorted(summary["by_status"].items()))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gifx", default=os.environ.get("GIFX", ".build/release/gifx"))
    p.add_argument("--root", default=".build-bench")
    p.add_argument("--levels", default="1,8,32")
    p.add_argument("--per-client", type=int, default=4, help="requests per client at each level (at least 2 per GIF)")
    p.add_argument("--budget", default="2G", help="gifx serve --memory-budget")
    p.add_argument("--jobs", type=int, default=0, help="gifx serve --jobs (default: the service's, one per thread)")
    p.add_argument("--versus", choices=["thumbor", "in-process"], default="thumbor",
                   help="the peer: thumbor (issue 36), or the same gifx serve with --no-workers (issue 50)")
    p.add_argument("--rounds", type=int, default=1,
                   help="runs of both servers per level, alternating which goes first; ratios are the rounds' median")
    p.add_argument("--json", help="write the results here")
    p.add_argument("--markdown", help="write the docs/benchmarks.md section here")
    args = p.parse_args()
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        python = venv_python(args.root, print)
        os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])
    args.gifx = os.path.abspath(args.gifx)
    result = measure(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    text = "\n".join(report_in_process(result) if args.versus == "in-process" else report(result))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
