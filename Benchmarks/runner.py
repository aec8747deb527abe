"""Runs one command with a timeout and measures its wall time, peak RSS and CPU time exactly.

Peak RSS is the child's ru_maxrss (wait4), taken by GNU time (`/usr/bin/time -f %M`)
rather than by this Python process: Linux carries the pre-exec high-water mark of a
forked child into ru_maxrss, so a child forked from a large Python process would
report at least Python's own RSS. GNU time is a ~2 MB process, so its child's
figure is the program's own (and its waited-for descendants', as the largest one).
CPU time (user + system, `%U %S`) comes from the same wait4: on 2 cores a run can never take less wall
time than its CPU time / 2, which is what tells "could overlap more" from "the cores are full".
"""

import os
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass

GNU_TIME = "/usr/bin/time"


@dataclass
class RunResult:
    status: str          # "ok", "failed", "timeout"
    wall_s: float
    peak_rss_kib: int
    exit_code: int | None
    stderr_tail: str
    cpu_s: float = 0.0   # user + system

    def as_json(self):
        return {"status": self.status, "wall_s": round(self.wall_s, 4),
                "peak_rss_mib": round(self.peak_rss_kib / 1024, 1), "cpu_s": round(self.cpu_s, 3),
                "exit_code": self.exit_code, "stderr": self.stderr_tail}


def run(cmd, timeout_s, env=None, cwd=None, stdout=None):
    """Run cmd (list) in its own process group; kill the whole group at timeout."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    with tempfile.TemporaryFile() as err, tempfile.NamedTemporaryFile("r") as rss_file:
        out = stdout if stdout is not None else subprocess.DEVNULL
        timed_cmd = [GNU_TIME, "-q", "-f", "%M %U %S", "-o", rss_file.name, "--", *cmd]
        start = time.perf_counter()
        proc = subprocess.Popen(timed_cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=full_env, cwd=cwd, start_new_session=True)
        timed_out = threading.Event()

        def kill():
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout_s, kill)
        timer.start()
        try:
            _, status, _ = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        wall = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        tail = err.read()[-2000:].decode("utf-8", "replace").strip()
        # The last line is "%M %U %S" (GNU time may write a line of its own before it).
        fields = (rss_file.read().strip().splitlines() or [""])[-1].split()
        peak_kib = int(fields[0]) if fields and fields[0].isdigit() else 0
        try:
            cpu = float(fields[1]) + float(fields[2])
        except (IndexError, ValueError):
            cpu = 0.0
    if timed_out.is_set():
        state = "timeout"
    elif proc.returncode != 0:
        state = "failed"
    else:
        state = "ok"
    lines = [line for line in tail.splitlines() if line.strip()]
    return RunResult(state, wall, peak_kib, proc.returncode, " | ".join(lines[-3:])[:400], cpu)
