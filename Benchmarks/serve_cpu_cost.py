#!/usr/bin/env python3
"""CPU per conversion of `gifx serve`, worker processes against --no-workers (issue 50).

Starts `gifx serve` (MODE: `workers`, as shipped, or `in-process`: --no-workers) on 127.0.0.1, has CLIENTS
closed-loop clients (default 8) POST N unique MP4 conversions of the serve bench's GIFs (ROOT/gifs and ROOT/serve/gifs, made by
serve_bench.py), stops the service with SIGTERM and reads the CPU time of the whole tree (the service and the
workers it reaped) from getrusage(RUSAGE_CHILDREN). Run the two modes alternately, several times.

  python3 Benchmarks/serve_cpu_cost.py GIFX MODE N [ROOT [CLIENTS]]   (ROOT default .build-bench)
"""
import http.client
import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import serve_common as sc  # noqa: E402

gifx, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
root = sys.argv[4] if len(sys.argv) > 4 else ".build-bench"
clients = int(sys.argv[5]) if len(sys.argv) > 5 else 8
gifs = [open(os.path.join(d, f), "rb").read() for d in (os.path.join(root, "gifs"), os.path.join(root, "serve", "gifs"))
        for f in sorted(os.listdir(d)) if f.endswith(".gif")]
port = sc.free_port()
cache = os.path.join(root, f"cpucache-{mode}")
shutil.rmtree(cache, ignore_errors=True)
before = resource.getrusage(resource.RUSAGE_CHILDREN)
p = subprocess.Popen([gifx, "serve", "--host", "127.0.0.1", "--port", str(port), "--cache-dir", cache,
                      "--memory-budget", "2G", "--queue", "512", "--queue-timeout", "600"]
                     + (["--no-workers"] if mode == "in-process" else []),
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
assert sc.wait_http(f"http://127.0.0.1:{port}/readyz", proc=p), "the service did not start"
lock, taken, refused = threading.Lock(), [0], []


def client():
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    while True:
        with lock:
            i = taken[0]
            taken[0] += 1
        if i >= n:
            return
        body = sc.gif_with_nonce(gifs[i % len(gifs)], b"%016d" % (i + 7919 * n))
        conn.request("POST", "/v1/convert?format=mp4", body=body, headers={"Content-Type": "image/gif"})
        r = conn.getresponse()
        r.read()
        if r.status != 200:
            refused.append(r.status)


started = time.time()
threads = [threading.Thread(target=client) for _ in range(clients)]
for t in threads:
    t.start()
for t in threads:
    t.join()
wall = time.time() - started
p.send_signal(signal.SIGTERM)
p.wait()
shutil.rmtree(cache, ignore_errors=True)
after = resource.getrusage(resource.RUSAGE_CHILDREN)
user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
print(f"{mode:10} {clients} clients, {n} conversions ({len(refused)} not 200): wall {wall:.1f} s, cpu user {user:.1f} s, system {system:.1f} s "
      f"-> {(user + system) / n * 1000:.1f} ms cpu per conversion ({system / n * 1000:.1f} ms system)")
