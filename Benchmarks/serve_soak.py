#!/usr/bin/env python3
"""Soak of `gifx serve` (issue 36, "Done when"): 32 clients for --duration seconds, with a SIGKILL and a
restart on the same cache folder in the middle. Not part of `make test`: `make soak-serve` runs it (SOAK_SECONDS, SOAK_BUDGET).

Uploads (POST /v1/convert?format=mp4, a quarter of them with stream=1: a chunked fragmented MP4): 90 % good GIFs, half of them repeats of a pool (cache hits and single
flight), half made unique by a GIF comment (a conversion each); 10 % bad: cut short (gifx keeps what arrived
or answers 422), damaged beyond the keep rule (422), pixel bombs (a 12000x12000 canvas needs 5.8 GB: 413
over_budget from the plan; a 65535x65535 one is past the decoder's 16384x16384 limit: 422), frame bombs
(200,000 1x1 frames of 1 cs: hours of video on 256x256; the conversion timeout ends them, 503), bodies over
--max-body (413), not a GIF (415, or 422 for a PNG signature with nothing valid after it).

A streamed frame bomb is admitted, answered 200 and cut at the conversion timeout (the connection closed without
the last chunk, docs/serve.md "Streamed responses"): counted as "200 cut (stream)", an error for any other kind.

With --crash-share F (0.1 in `make soak-serve`), a killer sends SIGKILL to a busy worker process (one whose CPU time
moved in the last 50 ms) whenever fewer than F of the conversions so far (the service's own count on /metrics,
converted plus crashed) were killed: F of the conversions die mid-way. Their requests must get the JSON 500
`conversion_crashed` naming SIGKILL, or a cut stream; every other answer is judged as without it.

A client that gets a 503 with Retry-After waits that long (at most 1 s, jittered) before its next upload.

Asserted (exit 1 when one fails, each printed):
  - 0 crashes: the server never exits by itself, /healthz is 200 at the end;
  - 0 answers outside the codes docs/openapi.yaml lists for /v1/convert, 0 error bodies without a documented
    `code`, and no 500 (`internal`) but the killed conversions' `conversion_crashed`;
  - with --crash-share: the service counted a crash (`gifx_worker_crashes_total`) for at most each kill sent and
    for at least half of them (a kill can land as a job ends), as many requests were answered 500
    `conversion_crashed` or cut (a frame bomb's cut stream counts: it is cut either way) as crashes were counted, and the killed share of conversions is within 0.05 of F;
  - peak RSS of the server (its VmHWM, and /proc sampled every 50 ms) ≤ --budget × 1.10;
  - every 200 verifies: `gifx verify` against the bytes sent, for every distinct output of a damaged upload and a
    random sample of --verify others (--verify 0: all), or is refused alike when the CLI converts the same bytes
    (`gifx to-mp4`: the encoder's quality on that GIF, not the service's); every answer with the same key has the
    same bytes;
  - after the SIGKILL and the restart: no partial entry in the cache (an output without its .meta, a .meta
    without its output, a hidden temporary, a spooled body), and every key answered before the kill is served
    again by GET /v1/o/KEY with the same bytes;
  - after the final SIGTERM: nothing in the spool, no hidden temporary, nothing in the server's TMPDIR.

  python3 Benchmarks/serve_soak.py --gifx .build-release/release/gifx --duration 600 --budget 512M
Runs its client in the serve bench's virtual environment (aiohttp; made when missing).
"""

import argparse
import asyncio
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "soak"))
import serve_common as sc  # noqa: E402
import soak_gifs  # noqa: E402

ROOT = os.path.dirname(HERE)


def documented():
    """(status codes of POST /v1/convert, error codes) from docs/openapi.yaml."""
    with open(os.path.join(ROOT, "docs", "openapi.yaml")) as f:
        text = f.read()
    block = text.split("  /v1/convert:", 1)[1].split("\n  /", 1)[0]
    statuses = {int(s) for s in re.findall(r'^\s+"(\d{3})":', block, re.M)}
    enum = text.split("enum:", 1)[1].split("message:", 1)[0]
    codes = set(re.findall(r"^\s+- (\w+)$", enum, re.M))
    return statuses, codes


def ensure_aiohttp(root):
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        import serve_bench
        python = serve_bench.venv_python(root, print)
        os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])


# ---------------------------------------------------------------- inputs

def make_inputs(work, rng):
    """{kind: [bytes]}: good GIFs (ffmpeg-free, soak_gifs' writer), and every bad kind."""
    good = []
    for i in range(40):
        w, h = rng.randrange(16, 321, 2), rng.randrange(16, 241, 2)
        frames = []
        for k in range(rng.randrange(2, 40)):
            # Rects on even coordinates and sizes: 4:2:0 chroma keeps them (odd edges between saturated
            # colours cost the MP4 up to 3 dB under verify's 30, at any CRF; the soak tests the service).
            fw, fh = rng.randrange(2, w + 1, 2), rng.randrange(2, h + 1, 2)
            frames.append((rng.randrange(0, w - fw + 1, 2), rng.randrange(0, h - fh + 1, 2), fw, fh, k % 4,
                           rng.choice([2, 3, 4, 5, 7, 10, 20])))
        frames[0] = (0, 0, w, h, 0, frames[0][5])
        good.append(soak_gifs.gif_bytes(w, h, frames))
    bench_gifs = os.path.join(ROOT, ".build-bench", "serve", "gifs")
    if os.path.isdir(bench_gifs):
        for name in sorted(os.listdir(bench_gifs)):
            with open(os.path.join(bench_gifs, name), "rb") as f:
                good.append(f.read())
    damaged = [g[:25] + bytes([0x99]) + bytes(rng.randrange(256) for _ in range(40)) for g in good[:5]]
    damaged += [g[:6] + b"\x00\x00" + g[8:] for g in good[5:10]]
    pixel_bombs = [soak_gifs.gif_bytes(65535, 65535, [(0, 0, 1, 1, 1, 10), (1, 0, 1, 1, 2, 10)]),
                   soak_gifs.gif_bytes(12000, 12000, [(0, 0, 1, 1, 1, 10), (1, 0, 1, 1, 2, 10)])]
    frame_bombs = [soak_gifs.gif_bytes(256, 256, [(i % 64, 0, 1, 1, i % 4, 1) for i in range(200_000)])]
    not_gif = [b"\x89PNG\r\n\x1a\n" + bytes(200), b"hello, this is not an image at all\n" * 10]
    return {"good": good, "damaged": damaged, "pixel_bomb": pixel_bombs, "frame_bomb": frame_bombs,
            "not_gif": not_gif}


def pick(rng, inputs, counter, max_body):
    """(kind, body). 90 % good (half repeats, half unique), 10 % bad."""
    x = rng.random()
    if x < 0.45:
        return "good_repeat", rng.choice(inputs["good"])
    if x < 0.90:
        return "good_unique", sc.gif_with_nonce(rng.choice(inputs["good"]), b"%016x" % next(counter))
    if x < 0.94:
        g = rng.choice(inputs["good"])
        return "truncated", sc.gif_with_nonce(g, b"%016x" % next(counter))[:rng.randrange(20, len(g))]
    if x < 0.96:
        return "damaged", rng.choice(inputs["damaged"])
    if x < 0.98:
        return "pixel_bomb", rng.choice(inputs["pixel_bomb"])
    if x < 0.99:
        return "oversized", b"GIF89a" + bytes(max_body + 1024)
    if x < 0.995:
        return "frame_bomb", inputs["frame_bombs_unique"](next(counter))
    return "not_gif", rng.choice(inputs["not_gif"])


# ---------------------------------------------------------------- the cache folder

def scan_cache(cache):
    """Partial entries, hidden temporaries and spooled bodies left in the cache folder."""
    objects = os.path.join(cache, "objects")
    names = os.listdir(objects) if os.path.isdir(objects) else []
    hidden = [n for n in names if n.startswith(".")]
    stems = {}
    for n in names:
        if n.startswith("."):
            continue
        stem, ext = n.split(".", 1) if "." in n else (n, "")
        stems.setdefault(stem, set()).add(ext)
    no_meta = [s for s, exts in stems.items() if "meta" not in exts]
    meta_only = [s for s, exts in stems.items() if exts == {"meta"}]
    spool = os.path.join(cache, "spool")
    spooled = os.listdir(spool) if os.path.isdir(spool) else []
    return {"entries": sum(1 for exts in stems.values() if "meta" in exts and len(exts) > 1),
            "outputs_without_meta": len(no_meta), "meta_without_output": len(meta_only),
            "hidden_temporaries": len(hidden), "spooled_bodies": len(spooled)}


def partial(scan):
    return scan["outputs_without_meta"] + scan["meta_without_output"] + scan["hidden_temporaries"] + \
        scan["spooled_bodies"]


# ---------------------------------------------------------------- the soak

class Server:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.cache = os.path.join(work, "cache")
        self.tmp = os.path.join(work, "tmp")
        os.makedirs(self.tmp, exist_ok=True)
        self.port = sc.free_port()
        self.proc, self.sampler, self.peak_kib, self.up = None, None, 0, False
        self.flags = ["--memory-budget", args.budget, "--queue", str(args.queue), "--queue-timeout", "20",
                      "--conversion-timeout", str(args.conversion_timeout), "--max-body", args.max_body,
                      "--cache-size", "16G", "--grace", "10"]

    def start(self):
        env = dict(os.environ, TMPDIR=self.tmp)
        self.proc = sc.start_gifx(self.args.gifx, self.cache, self.port, self.flags,
                                  log_path=os.path.join(self.work, "serve.log"), env=env)
        self.sampler = sc.TreeRSS(self.proc.pid)
        self.sampler.__enter__()
        self.up = True

    def _take_peak(self):
        self.peak_kib = max(self.peak_kib, sc.vm_hwm_kib(self.proc.pid), self.sampler.peak_kib)
        self.sampler.__exit__()

    def kill(self):
        self.up = False
        self._take_peak()
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def terminate(self):
        self.up = False
        self._take_peak()
        sc.stop(self.proc, signal.SIGTERM, timeout=60)
        return self.proc.returncode


async def soak(args, work, inputs, statuses, codes, log):
    import aiohttp
    rng = random.Random(args.seed)
    counter = iter(range(10 ** 9))
    server = Server(args, work)
    server.start()
    base = lambda: f"http://127.0.0.1:{server.port}"  # noqa: E731
    outputs_dir = os.path.join(work, "outputs")
    os.makedirs(outputs_dir)
    stats = {"answers": {}, "by_kind": {}, "outside_documented": [], "undocumented_code": [], "internal": [],
             "connection_errors_while_down": 0, "connection_errors_while_up": [], "crashes": 0,
             "key_bytes_mismatch": [], "latency_ok_s": [], "kills_sent": 0, "crashed_answers": 0,
             "cut_streams_after_kill": 0}
    keys = {}            # key -> {"sha": ..., "input": path, "kind": ..., "output": path}
    served_before_kill = {}
    killed = {"done": False}
    started = time.time()
    end = started + args.duration
    kill_at = started + args.duration * args.kill_at

    async def client(session, seed):
        crng = random.Random(seed)
        while time.time() < end:
            kind, body = pick(crng, inputs, counter, args.max_body_bytes)
            if not server.up:
                await asyncio.sleep(0.2)
                continue
            stream = crng.random() < args.stream_share
            t0 = time.perf_counter()
            try:
                async with session.post(base() + "/v1/convert?format=mp4" + ("&stream=1" if stream else ""), data=body) as resp:
                    payload = await resp.read()
                    status, key = resp.status, resp.headers.get("X-Gifx-Key")
                    retry_after = resp.headers.get("Retry-After")
            except (aiohttp.ClientError, asyncio.TimeoutError, ConnectionError) as e:
                if stream and kind == "frame_bomb" and isinstance(e, aiohttp.ClientPayloadError):
                    stats["answers"]["200 cut (stream)"] = stats["answers"].get("200 cut (stream)", 0) + 1
                elif stream and stats["kills_sent"] and isinstance(e, aiohttp.ClientPayloadError):
                    # A streamed answer whose worker the killer ended: cut, as docs/serve.md says.
                    stats["cut_streams_after_kill"] += 1
                    stats["answers"]["200 cut (worker killed)"] = stats["answers"].get("200 cut (worker killed)", 0) + 1
                elif not server.up or killed.get("window", 0) > time.time():
                    stats["connection_errors_while_down"] += 1
                elif kind == "oversized":
                    # The service may answer 413 from Content-Length and close before the body is sent.
                    stats["answers"]["413 (closed while sending)"] = stats["answers"].get("413 (closed while sending)", 0) + 1
                else:
                    stats["connection_errors_while_up"].append(f"{kind}: {type(e).__name__}: {e}"[:200])
                await asyncio.sleep(0.2)
                continue
            latency = time.perf_counter() - t0
            label = str(status)
            if status != 200:
                try:
                    code = json.loads(payload).get("code")
                except ValueError:
                    code = None
                label = f"{status} {code}"
                if code not in codes:
                    stats["undocumented_code"].append(f"{kind}: {status} {payload[:120]!r}")
                if status == 500 and code == "conversion_crashed" and stats["kills_sent"]:
                    stats["crashed_answers"] += 1
                elif status == 500:
                    stats["internal"].append(f"{kind}: {payload[:200]!r}")
            if status not in statuses:
                stats["outside_documented"].append(f"{kind}: {status}")
            stats["answers"][label] = stats["answers"].get(label, 0) + 1
            per_kind = stats["by_kind"].setdefault(kind, {})
            per_kind[label] = per_kind.get(label, 0) + 1
            if status == 200 and key:
                stats["latency_ok_s"].append(latency)
                sha = hashlib.sha256(payload).hexdigest()
                if key in keys:
                    if keys[key]["sha"] != sha:
                        stats["key_bytes_mismatch"].append(key)
                else:
                    stem = os.path.join(outputs_dir, key)
                    with open(stem + ".mp4", "wb") as f:
                        f.write(payload)
                    with open(stem + ".gif", "wb") as f:
                        f.write(body)
                    keys[key] = {"sha": sha, "kind": kind}
                if not killed["done"]:
                    served_before_kill[key] = sha
            if status == 503 and retry_after:
                # As a client that honours Retry-After would (capped at 1 s, jittered): without it 32 clients
                # retry a full queue thousands of times a minute and the soak measures refusals, not work.
                await asyncio.sleep(min(float(retry_after), 1.0) * crng.uniform(0.5, 1.0))

    async def killer(session):
        await asyncio.sleep(max(0, kill_at - time.time()))
        log(f"SIGKILL at {time.time() - started:.0f} s, {len(served_before_kill)} keys served so far")
        killed["window"] = time.time() + 5
        server.kill()
        killed["done"] = True
        stats["peak_rss_before_kill_mib"] = round(server.peak_kib / 1024, 1)
        stats["scan_after_kill"] = scan_cache(server.cache)
        server.start()
        killed["window"] = time.time() + 2
        stats["scan_after_restart"] = scan_cache(server.cache)
        log(f"restarted: cache after the kill {stats['scan_after_kill']}, after the restart {stats['scan_after_restart']}")
        missing, differ = [], []
        sem = asyncio.Semaphore(8)

        async def check(key, sha):
            async with sem:
                try:
                    async with session.get(f"{base()}/v1/o/{key}") as resp:
                        payload = await resp.read()
                        if resp.status != 200:
                            missing.append(f"{key}: {resp.status}")
                        elif hashlib.sha256(payload).hexdigest() != sha:
                            differ.append(key)
                except aiohttp.ClientError as e:
                    missing.append(f"{key}: {type(e).__name__}")
        await asyncio.gather(*(check(k, s) for k, s in list(served_before_kill.items())))
        stats["served_again"] = {"keys": len(served_before_kill), "missing": missing[:20],
                                 "missing_count": len(missing), "bytes_differ": differ[:20]}
        log(f"served again from the cache: {len(served_before_kill) - len(missing) - len(differ)} of "
            f"{len(served_before_kill)}")

    def metric_sum(text, name):
        return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
                   if line.startswith(name + "{") or line.startswith(name + " "))

    async def crasher(session):
        """SIGKILL to a busy worker whenever fewer than --crash-share of the conversions so far were killed."""
        cpu = {}
        counted = {}  # service pid -> (conversions, crashes), its last /metrics (a restarted service counts from 0)
        last_metrics = 0.0
        while time.time() < end:
            await asyncio.sleep(0.05)
            if not server.up:
                cpu.clear()
                continue
            pid = server.proc.pid
            now = time.time()
            if now - last_metrics > 0.5:
                last_metrics = now
                try:
                    async with session.get(base() + "/metrics") as resp:
                        text = await resp.text()
                    if server.up and server.proc.pid == pid:
                        counted[pid] = (metric_sum(text, "gifx_conversions_total"),
                                        metric_sum(text, "gifx_worker_crashes_total"))
                        stats["conversions_counted"] = sum(c for c, _ in counted.values())
                        stats["crashes_counted"] = sum(k for _, k in counted.values())
                except (aiohttp.ClientError, asyncio.TimeoutError, ValueError, IndexError):
                    pass
            busy = []
            for child in sc.tree_pids(pid)[1:]:
                try:
                    with open(f"/proc/{child}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                    ticks = int(fields[11]) + int(fields[12])
                except (OSError, IndexError, ValueError):
                    continue
                if child in cpu and ticks > cpu[child]:
                    busy.append(child)
                cpu[child] = ticks
            total = stats.get("conversions_counted", 0) + stats.get("crashes_counted", 0)
            if busy and stats["kills_sent"] < args.crash_share * (total + 1):
                try:
                    os.kill(rng.choice(busy), signal.SIGKILL)
                    stats["kills_sent"] += 1
                except ProcessLookupError:
                    pass

    async def watchdog():
        while time.time() < end:
            await asyncio.sleep(0.5)
            if server.up and server.proc.poll() is not None:
                stats["crashes"] += 1
                log(f"CRASH: the server exited with {server.proc.returncode}; restarting")
                server.up = False
                server.start()

    async def progress():
        while time.time() < end:
            await asyncio.sleep(60)
            total = sum(stats["answers"].values())
            log(f"{time.time() - started:4.0f} s: {total} answers, {len(keys)} distinct outputs, "
                f"load {sc.load_average()}, {dict(sorted(stats['answers'].items()))}")

    timeout = aiohttp.ClientTimeout(total=args.conversion_timeout + 60)
    async with aiohttp.ClientSession(timeout=timeout, connector=aiohttp.TCPConnector(limit=0)) as session:
        tasks = [client(session, args.seed * 1000 + i) for i in range(args.clients)]
        tasks += [killer(session)] if args.kill_at > 0 else []
        tasks += [crasher(session)] if args.crash_share > 0 else []
        await asyncio.gather(*tasks, watchdog(), progress())
        stats["healthz_at_end"] = sc.http_status(base() + "/healthz")
    stats["exit_code_after_sigterm"] = server.terminate()
    stats["peak_rss_mib"] = round(server.peak_kib / 1024, 1)
    stats["scan_after_stop"] = scan_cache(server.cache)
    stats["tmpdir_left"] = os.listdir(server.tmp)
    stats["distinct_outputs"] = len(keys)
    stats["elapsed_s"] = round(time.time() - started, 1)
    return stats, keys, outputs_dir


def verify(args, keys, outputs_dir, log):
    """gifx verify of every distinct output of a damaged (cut) upload and a sample of the others."""
    rng = random.Random(args.seed)
    cut = [k for k, v in keys.items() if v["kind"] == "truncated"]
    others = [k for k, v in keys.items() if v["kind"] != "truncated"]
    if args.verify and len(others) > args.verify:
        others = rng.sample(others, args.verify)
    chosen = cut + others
    failed = []
    procs = []

    def reap(block):
        while procs and (block or procs[0][1].poll() is not None):
            key, p = procs.pop(0)
            _, err = p.communicate()
            if p.returncode != 0:
                failed.append(f"{key} ({keys[key]['kind']}): {err.decode(errors='replace').strip()[:200]}")
            block = block and len(procs) >= 2
    for key in chosen:
        stem = os.path.join(outputs_dir, key)
        procs.append((key, subprocess.Popen([args.gifx, "verify", stem + ".gif", stem + ".mp4", "--quiet",
                                             "--threads", "1", "--min-psnr", str(args.min_psnr)], stdout=subprocess.DEVNULL,
                                            stderr=subprocess.PIPE)))
        if len(procs) >= 2:
            reap(True)
    while procs:
        reap(True)
    # An output verify refuses is judged against the CLI's own conversion of the same bytes: when `gifx to-mp4`
    # gives a file verify refuses alike (the same worst frame within 0.5 dB), it is the encoder's quality at the
    # default CRF on that GIF (a cut frame's edge in 4:2:0, docs/serve.md), not the service's.
    encoder_limit, service_failed = [], []
    for line in failed:
        key = line.split(" ", 1)[0]
        stem = os.path.join(outputs_dir, key)
        worst = re.search(r"worst ([0-9.]+) dB at output frame (\d+)", line)
        subprocess.run([args.gifx, "to-mp4", stem + ".gif", "-o", stem + ".cli.mp4", "--threads", "1", "--overwrite",
                        "--quiet"], capture_output=True)
        cli = subprocess.run([args.gifx, "verify", stem + ".gif", stem + ".cli.mp4", "--quiet", "--threads", "1",
                              "--min-psnr", str(args.min_psnr)], capture_output=True)
        alike = re.search(r"worst ([0-9.]+) dB at output frame (\d+)", cli.stderr.decode(errors="replace"))
        if cli.returncode != 0 and worst and alike and worst.group(2) == alike.group(2) \
                and abs(float(worst.group(1)) - float(alike.group(1))) <= 0.5:
            encoder_limit.append(f"{line[:120]} (the CLI's to-mp4: {alike.group(1)} dB at frame {alike.group(2)})")
        else:
            service_failed.append(line)
    log(f"gifx verify: {len(chosen) - len(failed)} of {len(chosen)} passed ({len(cut)} cut uploads, "
        f"{len(others)} sampled of {len(keys) - len(cut)} others); {len(encoder_limit)} refused alike from the CLI")
    return {"verified": len(chosen), "cut_uploads": len(cut), "failed": service_failed,
            "refused_alike_from_the_cli": encoder_limit}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gifx", default=os.environ.get("GIFX", ".build-release/release/gifx"))
    p.add_argument("--duration", type=float, default=600, help="seconds (600 for the real run)")
    p.add_argument("--budget", default="512M", help="gifx serve --memory-budget (512M or 2G)")
    p.add_argument("--clients", type=int, default=32)
    p.add_argument("--kill-at", type=float, default=0.5, help="SIGKILL at this fraction of the run (0: none)")
    p.add_argument("--queue", type=int, default=16)
    p.add_argument("--stream-share", type=float, default=0.25, help="share of uploads sent with stream=1")
    p.add_argument("--crash-share", type=float, default=0.0,
                   help="share of conversions whose worker is killed with SIGKILL mid-way (0.1 for issue 50)")
    p.add_argument("--conversion-timeout", type=int, default=30)
    p.add_argument("--max-body", default="16M")
    p.add_argument("--verify", type=int, default=300, help="distinct outputs verified besides the cut uploads (0: all)")
    p.add_argument("--min-psnr", type=float, default=30.0, help="gifx verify --min-psnr (its default, 30 dB)")
    p.add_argument("--seed", type=int, default=36)
    p.add_argument("--root", default=".build-bench")
    p.add_argument("--work", default=None, help="work folder (default ROOT/serve-soak-BUDGET; emptied first)")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    ensure_aiohttp(args.root)
    args.gifx = os.path.abspath(args.gifx)
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    to_bytes = lambda s: int(float(s[:-1]) * units[s[-1].upper()]) if s[-1].upper() in units else int(s)  # noqa: E731
    args.max_body_bytes = to_bytes(args.max_body)
    budget_bytes = to_bytes(args.budget)
    work = os.path.abspath(args.work or os.path.join(args.root, f"serve-soak-{args.budget}"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    started = time.time()

    def log(msg):
        print(f"[soak {time.time() - started:5.0f}s] {msg}", flush=True)

    statuses, codes = documented()
    rng = random.Random(args.seed)
    inputs = make_inputs(work, rng)
    bomb = inputs["frame_bomb"][0]
    inputs["frame_bombs_unique"] = lambda n: sc.gif_with_nonce(bomb, b"%016x" % n)
    log(f"{len(inputs['good'])} good GIFs; documented statuses {sorted(statuses)}; budget {args.budget}, "
        f"{args.clients} clients, {args.duration:.0f} s, load {sc.load_average()}")
    load_before = sc.load_average()
    stats, keys, outputs_dir = asyncio.run(soak(args, work, inputs, statuses, codes, log))
    stats["verify"] = verify(args, keys, outputs_dir, log)
    lat = stats.pop("latency_ok_s")
    stats.update({"budget": args.budget, "clients": args.clients, "duration_s": args.duration,
                  "load_before": load_before, "load_after": sc.load_average(),
                  "answers_total": sum(v for k, v in stats["answers"].items()),
                  "p50_ok_ms": round(sc.percentile(lat, 50) * 1000) if lat else None,
                  "p99_ok_ms": round(sc.percentile(lat, 99) * 1000) if lat else None,
                  "server_flags": Server(args, work).flags})
    limit_mib = budget_bytes * 1.10 / (1 << 20)
    failures = []
    if stats["crashes"]:
        failures.append(f"{stats['crashes']} crashes")
    if stats["healthz_at_end"] != 200:
        failures.append(f"/healthz answered {stats['healthz_at_end']} at the end")
    for field in ("outside_documented", "undocumented_code", "internal", "connection_errors_while_up",
                  "key_bytes_mismatch"):
        if stats[field]:
            failures.append(f"{field}: {len(stats[field])}, e.g. {stats[field][:3]}")
    if stats["peak_rss_mib"] > limit_mib:
        failures.append(f"peak RSS {stats['peak_rss_mib']} MiB > budget × 1.10 = {limit_mib:.0f} MiB")
    if args.crash_share > 0:
        sent, counted = stats["kills_sent"], stats.get("crashes_counted", 0)
        # A frame bomb's stream is cut either way (the timeout, or its worker killed): it counts for both.
        answered = stats["crashed_answers"] + stats["cut_streams_after_kill"] + stats["answers"].get("200 cut (stream)", 0)
        total = stats.get("conversions_counted", 0) + counted
        stats["killed_share"] = round(counted / total, 3) if total else None
        if not sent or counted > sent or counted < sent / 2:
            failures.append(f"{sent} kills sent, {counted} crashes counted by the service")
        if answered < counted:
            failures.append(f"{counted} crashes but only {answered} requests answered 500 conversion_crashed or cut")
        if stats["killed_share"] is None or abs(stats["killed_share"] - args.crash_share) > 0.05:
            failures.append(f"killed share {stats['killed_share']}, asked {args.crash_share}")
    if stats["verify"]["failed"]:
        failures.append(f"gifx verify failed on {len(stats['verify']['failed'])}: {stats['verify']['failed'][:3]}")
    if args.kill_at > 0:
        if partial(stats["scan_after_restart"]):
            failures.append(f"partial entries after the restart: {stats['scan_after_restart']}")
        again = stats["served_again"]
        if again["missing_count"] or again["bytes_differ"]:
            failures.append(f"not served again after the restart: {again}")
    if partial(stats["scan_after_stop"]) or stats["tmpdir_left"]:
        failures.append(f"left behind after SIGTERM: {stats['scan_after_stop']}, TMPDIR {stats['tmpdir_left'][:5]}")
    stats["failures"] = failures
    stats["connection_errors_while_up"] = stats["connection_errors_while_up"][:20]
    if args.json:
        with open(args.json, "w") as f:
            json.dump(stats, f, indent=1)
    print(json.dumps({k: v for k, v in stats.items() if k not in ("by_kind",)}, indent=1))
    print(json.dumps(stats["by_kind"], indent=1))
    if failures:
        print("serve soak: FAILED:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"serve soak: passed ({stats['answers_total']} answers in {stats['elapsed_s']:.0f} s, peak RSS "
          f"{stats['peak_rss_mib']} MiB ≤ {limit_mib:.0f} MiB, {stats['verify']['verified']} outputs verified)")
    shutil.rmtree(outputs_dir, ignore_errors=True)


if __name__ == "__main__":
    main()
