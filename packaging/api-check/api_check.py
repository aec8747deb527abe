#!/usr/bin/env python3
"""`make api-check`: docs/openapi.yaml proven against a running `gifx serve` by schemathesis (issue 50).

Makes a small GIF, animated WebP and APNG with Pillow, starts `gifx serve` on 127.0.0.1 (a free port, a temporary
cache folder, a small --memory-budget), and runs schemathesis against it with every check, the examples, coverage,
fuzzing and stateful phases and a fixed seed, its bodies, queries and signed paths partly drawn from those files
(gifx_api_hooks.py; the signed form fetches them from a local origin, a thread of this script), so conversions
run and the stateful phase reaches /v1/o/{key} through the spec's link. Per-operation settings are in
schemathesis.toml beside this file. Traffic goes to 127.0.0.1 only; the server is stopped at the end whatever
happens (SIGTERM and Ctrl-C through `finally`; Linux's parent-death signal if this script is killed). Ends with
one line, "api-check: ..."; exit 1 on any failed check or error. --spec runs it against another spec (the one
of before issue 50 fails: a control that the run can fail)."""
import argparse
import functools
import http.server
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SCHEMATHESIS_VERSION = "4.32.5"


def make_fixtures(folder: pathlib.Path) -> None:
    """A 24x16 GIF of 4 frames of 40 ms, and the same animation as an animated WebP and an APNG."""
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        raise SystemExit("api-check: Pillow is missing (make deps installs it: python3 -m pip install Pillow)")

    frames = []
    for index, colour in enumerate([(220, 40, 40), (40, 200, 60), (40, 80, 220), (230, 200, 40)]):
        frame = Image.new("RGB", (24, 16), (250, 250, 250))
        ImageDraw.Draw(frame).rectangle([index * 5, 2, index * 5 + 6, 13], fill=colour)
        frames.append(frame)
    options = dict(save_all=True, append_images=frames[1:], duration=40, loop=0)
    frames[0].save(folder / "a.gif", **options)
    frames[0].save(folder / "b.webp", lossless=True, **options)
    frames[0].save(folder / "c.png", format="PNG", **options)


# The signed form's key: made up here, used only by this run's service on 127.0.0.1.
SIGNING_KEY = "gifx-api-check-signing-key-of-this-test-only"


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *_):
        pass


def start_origin(folder: pathlib.Path) -> http.server.ThreadingHTTPServer:
    """The signed form's origin: the fixtures over HTTP on 127.0.0.1, from a thread of this process."""
    origin = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietFiles, directory=str(folder)))
    threading.Thread(target=origin.serve_forever, daemon=True).start()
    return origin


def interrupted(*_):
    raise KeyboardInterrupt


def die_with_parent():
    """In the server's process before exec: SIGTERM when this script dies, even by SIGKILL (Linux's PDEATHSIG)."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def start_server(gifx: str, work: pathlib.Path, origin: str, log) -> tuple[subprocess.Popen, int]:
    key = work / "signing.key"
    key.write_text(SIGNING_KEY)
    server = subprocess.Popen(
        [gifx, "serve", "--host", "127.0.0.1", "--port", "0", "--cache-dir", str(work / "cache"), "--memory-budget", "256M",
         "--threads", "2", "--jobs", "2", "--conversion-timeout", "60", "--grace", "5",
         "--signing-key-file", str(key), "--origin", origin, "--playground"],
        stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True, preexec_fn=die_with_parent)
    line = server.stdout.readline()
    match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
    if not match:
        raise SystemExit(f"api-check: gifx serve did not start (it said {line!r}; its log is {log.name})")
    port = int(match.group(1))
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as reply:
                if reply.status == 200:
                    return server, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit("api-check: gifx serve does not answer /healthz")


def stop_server(server: subprocess.Popen) -> None:
    if server.poll() is not None:
        return
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def schemathesis_command(venv: pathlib.Path) -> list[str]:
    """schemathesis SCHEMATHESIS_VERSION, installed into `venv` (beside the system's packages, for Pillow) when missing."""
    binary = venv / "bin" / "schemathesis"
    if binary.exists():
        version = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout
        if SCHEMATHESIS_VERSION in version:
            return [str(binary)]
    print(f"api-check: installing schemathesis {SCHEMATHESIS_VERSION} (PyPI) into {venv}", flush=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", f"schemathesis=={SCHEMATHESIS_VERSION}"],
                   check=True)
    return [str(binary)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gifx", default=str(ROOT / ".build/debug/gifx"))
    parser.add_argument("--venv", default=str(ROOT / ".build/api-check/venv"))
    parser.add_argument("--spec", default=str(ROOT / "docs/openapi.yaml"))
    parser.add_argument("--seed", type=int, default=50)
    parser.add_argument("--max-examples", type=int, default=25)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the work folder (report, server log) after a pass")
    args = parser.parse_args()

    started = time.monotonic()
    command = schemathesis_command(pathlib.Path(args.venv))
    work = pathlib.Path(tempfile.mkdtemp(prefix="gifx-api-check-"))
    server = origin = None
    # SIGTERM (a CI's timeout) ends the run as Ctrl-C does: through `finally`, which stops the server.
    signal.signal(signal.SIGTERM, interrupted)
    try:
        fixtures = work / "fixtures"
        fixtures.mkdir()
        make_fixtures(fixtures)
        log = open(work / "serve.log", "w")
        origin = start_origin(fixtures)
        origin_url = f"http://127.0.0.1:{origin.server_address[1]}"
        server, port = start_server(args.gifx, work, origin_url, log)
        report = work / "report"
        environment = dict(os.environ, GIFX_API_CHECK_FIXTURES=str(fixtures), SCHEMATHESIS_HOOKS="gifx_api_hooks",
                           GIFX_API_CHECK_ORIGIN=origin_url, GIFX_API_CHECK_SIGNING_KEY=SIGNING_KEY, PYTHONDONTWRITEBYTECODE="1",
                           PYTHONPATH=str(HERE) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        run = subprocess.run(
            command + ["--config-file", str(HERE / "schemathesis.toml"), "run", args.spec,
                       "--url", f"http://127.0.0.1:{port}", "--checks", "all",
                       "--phases", "examples,coverage,fuzzing,stateful", "--seed", str(args.seed),
                       "--max-examples", str(args.max_examples), "--workers", str(args.workers),
                       "--report", "ndjson", "--report-dir", str(report), "--no-color"],
            env=environment, cwd=work)
        crashed = server.poll() is not None
        stop_server(server)
        summary = summarize(report)
        seconds = time.monotonic() - started
        ok = run.returncode == 0 and not crashed and summary["failures"] == 0 and summary["errors"] == 0
        print(f"api-check: {'ok' if ok else 'FAILED'}: schemathesis {SCHEMATHESIS_VERSION}, seed {args.seed}, all checks, "
              f"{summary['requests']} requests, {summary['failures']} failed checks, {summary['errors']} errors"
              f"{', the server died' if crashed else ''} in {seconds:.0f} s")
        if not ok:
            print(f"api-check: the server's log is {work / 'serve.log'}", file=sys.stderr)
            return 1
        if args.keep:
            print(f"api-check: kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
        return 0
    finally:
        if server is not None:
            stop_server(server)
        if origin is not None:
            origin.shutdown()


def summarize(report: pathlib.Path) -> dict:
    """Requests sent, failed checks (each check of each request, before schemathesis groups them into unique
    failures) and errors, from schemathesis's NDJSON events."""
    requests = failures = errors = 0
    for path in report.glob("*.ndjson"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            for name, body in event.items():
                if name == "ScenarioFinished":
                    for check in body.get("recorder", {}).get("checks", {}).values():
                        failures += sum(1 for item in check if item.get("status") == "failure")
                    requests += len(body.get("recorder", {}).get("interactions", {}))
                elif name == "NonFatalError" or name == "FatalError":
                    errors += 1
    return {"requests": requests, "failures": failures, "errors": errors}


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("api-check: interrupted (the server was stopped)", file=sys.stderr)
        sys.exit(130)
