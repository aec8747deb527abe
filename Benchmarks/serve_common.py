"""Shared by the serve bench (serve_bench.py) and the serve soak (serve_soak.py): starting `gifx serve` and
thumbor on 127.0.0.1, waiting for them, the peak RSS of a server's process tree sampled from /proc, a
unique-bytes copy of a GIF (so a content-addressed cache never answers), GIF schedules from
`gifx timeline --json`, and MP4 durations from ffprobe. Standard library only (the clients use aiohttp).
"""

import json
import os
import signal
import socket
import subprocess
import threading
import time
import urllib.error
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_http(url, timeout=60.0, proc=None):
    """Polls url until it answers 200; False if proc exits or the time passes."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(0.1)
    return False


def http_status(url, timeout=5.0):
    """The status of a GET (an HTTP error's own status), or None when nothing answers."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return None


def start_gifx(gifx, cache_dir, port, args=(), log_path=None, env=None):
    cmd = [gifx, "serve", "--host", "127.0.0.1", "--port", str(port), "--cache-dir", cache_dir, *args]
    log = open(log_path, "ab") if log_path else subprocess.DEVNULL
    proc = subprocess.Popen(cmd, stdout=log, stderr=log, stdin=subprocess.DEVNULL, env=env,
                            start_new_session=True)
    if log_path:
        log.close()
    if not wait_http(f"http://127.0.0.1:{port}/healthz", 60, proc):
        stop(proc)
        raise RuntimeError(f"gifx serve did not start: {' '.join(cmd)}")
    return proc


def stop(proc, sig=signal.SIGTERM, timeout=60):
    """Signals the server's whole process group (it was started in its own session) and waits."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def tree_pids(pid):
    """pid and its descendants (from /proc/PID/task/*/children)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo += [int(c) for c in f.read().split()]
        except OSError:
            pass
    return out


def _status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def vm_hwm_kib(pid):
    """The process's own peak RSS (the kernel's high-water mark)."""
    return _status_kib(pid, "VmHWM")


class TreeRSS:
    """Samples the summed RSS of a process tree every `interval` s (a thread); `peak_kib` is the largest sum.
    Sums RSS, so pages shared between the tree's processes count once per process (errs high)."""

    def __init__(self, pid, interval=0.05):
        self.pid, self.interval, self.peak_kib, self.samples = pid, interval, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            total = sum(_status_kib(p, "VmRSS") for p in tree_pids(self.pid))
            self.peak_kib = max(self.peak_kib, total)
            self.samples += 1
            self._stop.wait(self.interval)

    def reset(self):
        self.peak_kib = 0

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()


def gif_with_nonce(data, nonce):
    """The GIF's bytes with a comment extension holding `nonce` (bytes, < 256) after the header and the global
    colour table: the same pictures and schedule, a different hash (so gifx's content-addressed cache misses)."""
    if data[:3] != b"GIF" or len(data) < 13:
        return data + nonce
    packed = data[10]
    at = 13 + (3 * (2 << (packed & 7)) if packed & 0x80 else 0)
    return data[:at] + b"\x21\xfe" + bytes([len(nonce)]) + nonce + b"\x00" + data[at:]


def gif_duration_cs(gifx, path):
    p = subprocess.run([gifx, "timeline", path, "--json"], capture_output=True, text=True, check=True)
    doc = json.loads(p.stdout)
    return doc["duration"]["centiseconds"], len(doc["frames"])


def ffprobe_mp4(path):
    """(format duration s, video frame count) of an MP4, or None when ffprobe cannot read it."""
    p = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets",
                        "-show_entries", "format=duration:stream=nb_read_packets,codec_name",
                        "-of", "json", path], capture_output=True, text=True)
    try:
        doc = json.loads(p.stdout)
        return float(doc["format"]["duration"]), int(doc["streams"][0]["nb_read_packets"])
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def percentile(values, q):
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[int(rank) - 1]


def load_average():
    return [round(x, 2) for x in os.getloadavg()]
