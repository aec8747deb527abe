#!/usr/bin/env python3
"""gifx serve's threads and jobs on a many-core machine (docs/serve.md, "Why threads by demand").

For each configuration, a fresh `gifx serve --threads CORES [--jobs J]` on 127.0.0.1, then 1, 8 and 32 closed-loop
clients (stdlib only: one thread per client, http.client), each POSTing /v1/convert?format=mp4 with a GIF from
GIFDIR made unique by a GIF comment before its trailer, so the cache never answers. Prints one JSON line per
(configuration, clients) and writes OUT/serve_jobs.json and each service's log (whose `converted` lines carry
the threads granted).

Usage: serve_jobs.py GIFX GIFDIR OUT
Environment: CORES (default: os.cpu_count()); CONFIGS, e.g. "default,16,8,4" (default = no --jobs, the
service's own; default list: CORES, CORES/2, CORES/4 and 1 jobs); SCALE multiplies the request counts
(2, 16 and 32 per GIF at 1, 8 and 32 clients).
The device machines have no Debian packages: carry gifx with libavcodec's closure (ldd), as
../shared/tools/device-pack.sh does for the rest.
"""
import http.client, json, os, subprocess, sys, threading, time, shutil, statistics
gifx, gifdir, out = sys.argv[1:4]
os.makedirs(out, exist_ok=True)
gifs = []
for name in sorted(os.listdir(gifdir)):
    if name.endswith(".gif"):
        data = open(os.path.join(gifdir, name), "rb").read()
        assert data[-1:] == b"\x3b", name
        gifs.append((name, data))
cores = int(os.environ.get("CORES", os.cpu_count()))
counter = [0]; lock = threading.Lock()
def body(i):
    name, data = gifs[i % len(gifs)]
    with lock:
        counter[0] += 1; n = counter[0]
    tag = ("%016d" % n).encode()
    return data[:-1] + b"\x21\xfe" + bytes([len(tag)]) + tag + b"\x00\x3b"
def rss(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmHWM:"): return int(line.split()[1]) / 1024
    except OSError: return None
configs = [(j, cores // j) for j in (cores, cores // 2, cores // 4, 1) if j >= 1]
configs = list(dict.fromkeys(configs))
if os.environ.get("CONFIGS"):  # e.g. "default,16,8": default = no --jobs (the service's own)
    configs = [(None, "demand") if c == "default" else (int(c), cores // int(c)) for c in os.environ["CONFIGS"].split(",")]
results = []
port = 18080
for jobs, tpj in configs:
    port += 1
    cache = f"/tmp/serve-cache-{jobs}"; shutil.rmtree(cache, ignore_errors=True)
    log = open(f"{out}/serve-j{jobs}.log", "w")
    p = subprocess.Popen([gifx, "serve", "--host", "127.0.0.1", "--port", str(port), "--cache-dir", cache,
                          "--memory-budget", "32G", "--threads", str(cores), *(["--jobs", str(jobs)] if jobs else []), "--queue", "512",
                          "--queue-timeout", "900", "--conversion-timeout", "900", "--max-body", "256M", "--cache-size", "16G"],
                         stdout=log, stderr=log)
    for _ in range(200):
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2); c.request("GET", "/readyz")
            if c.getresponse().status == 200: break
        except OSError: pass
        time.sleep(0.05)
    for clients in (1, 8, 32):
        scale = float(os.environ.get("SCALE", "1"))
        total = max(clients, int(scale * {1: 2 * len(gifs), 8: 16 * len(gifs), 32: 32 * len(gifs)}[clients]))
        next_i = [0]; lat = []; statuses = {}
        def client():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=900)
            while True:
                with lock:
                    i = next_i[0]
                    if i >= total: return
                    next_i[0] += 1
                b = body(i); t = time.perf_counter()
                conn.request("POST", "/v1/convert?format=mp4", body=b, headers={"Content-Type": "image/gif"})
                r = conn.getresponse(); r.read(); dt = time.perf_counter() - t
                with lock:
                    lat.append(dt); statuses[r.status] = statuses.get(r.status, 0) + 1
        t0 = time.perf_counter()
        ts = [threading.Thread(target=client) for _ in range(clients)]
        for t in ts: t.start()
        for t in ts: t.join()
        wall = time.perf_counter() - t0
        lat.sort()
        row = dict(jobs=jobs, threads_per_job=tpj, clients=clients, requests=total, wall_s=round(wall, 3),
                   conv_per_s=round(total / wall, 2), p50_ms=round(1000 * lat[len(lat) // 2], 1),
                   p99_ms=round(1000 * lat[min(len(lat) - 1, int(0.99 * len(lat)))], 1), statuses=statuses)
        results.append(row); print(json.dumps(row), flush=True)
    row["peak_rss_mib"] = rss(p.pid)
    p.terminate(); p.wait(timeout=60); shutil.rmtree(cache, ignore_errors=True)
    print(f"jobs {jobs}: peak RSS {row['peak_rss_mib']} MiB, exit {p.returncode}", flush=True)
json.dump({"cores": cores, "gifs": [g[0] for g in gifs], "results": results}, open(f"{out}/serve_jobs.json", "w"), indent=1)
