"""`gifx serve` for the browser check's modes that need one (serve and embed: browser_check.py; playground:
playground.py), started one way: a free port of 127.0.0.1, its cache emptied first, stderr kept in a log, killed
at exit if still running, and ready once GET /healthz answers 200."""

import atexit
import http.client
import os
import socket
import subprocess
import time


def start(gifx, out, cache, log, arguments, name="gifx serve"):
    """`gifx serve` with `arguments` after its address and OUT/CACHE as its cache (emptied first), stderr in OUT/LOG.
    Returns (process, port) once it answers /healthz (30 s at most); otherwise kills it and exits, naming `name`."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    cache = os.path.join(out, cache)
    subprocess.run(["rm", "-rf", cache], check=True)
    proc = subprocess.Popen(
        [gifx, "serve", "--host", "127.0.0.1", "--port", str(port), "--cache-dir", cache, *arguments],
        stdout=subprocess.DEVNULL, stderr=open(os.path.join(out, log), "wb"))
    atexit.register(lambda: proc.poll() is None and proc.kill())  # an exception must not leave it running
    for _ in range(300):
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                return proc, port
        except OSError:
            if proc.poll() is not None:
                break
        time.sleep(0.1)
    proc.kill()
    raise SystemExit(f"{name} did not start (see {out}/{log})")
