"""make browser-check: every gifx output kind and timing mode, played in Chromium and Firefox.

Fixture GIFs with known schedules and colours (fixtures.py) are converted by gifx into each output; a
page served from 127.0.0.1 (with HTTP Range, which Chromium needs to seek) measures each one (check.html):
video.duration, the colour shown at every GIF frame's midpoint (seek, `seeked` + requestVideoFrameCallback,
canvas), every frame change to the millisecond (binary search), WebP frame durations and colours through
ImageDecoder, and alpha. The expected values come from the fixtures' delays, never from gifx. One table
per browser; exit 1 on any difference beyond the mode's tolerance.

Mode `serve` (issue 36): a `gifx serve` started here on 127.0.0.1 converts each fixture (POST
/v1/convert?format=mp4) and the browsers play `<video src=".../v1/o/KEY">` from it. The page's server forwards
/v1/ requests to the service as they come (Range and If-None-Match in; status, Content-Range, Content-Type,
Content-Length, ETag, Cache-Control out), so the video is same-origin: a cross-origin video without CORS taints
the canvas the check reads its colours from.

Mode `embed` (issue 60): the same service, started with a signing key and the page's server as its origin, writes
the markup of GET /v1/embed for a GIF that loops forever, one that plays once and one that plays 3 times; each is
put in a page of its own, and the browser plays it: the video starts (its source converted on that first request,
through the signed URL), and the number of `ended` events and rewinds over the next plays is the GIF's loop count
(forever: no `ended`, at least two rewinds; N plays: N `ended`, N - 1 rewinds, then paused).

Mode `playground` (issue 60, playground.py): `gifx serve --playground` with a token and a signing key; a fixture
dropped on its page, every output playing, the timeline drawn, the embed shown, no console error.
"""

import argparse
import atexit
import http.client
import http.server
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fixtures  # noqa: E402
import playground  # noqa: E402
import service  # noqa: E402

WHITE = (255, 255, 255)
COLOUR_TOLERANCE = 48  # max channel error of a solid block after 4:2:0 lossy coding (distinct colours >= 170 apart)

# mode: (file suffix, gifx arguments, fixtures, tolerance of frame changes in ms (early, late), duration ms,
#        midpoints checked for frames of at least this delay in ms)
EXACT = ((-1, 1), 0.5, 0)
MODES = {
    "tick":        (".tick.mp4", [], None, *EXACT),
    "vfr":         (".vfr.mp4", ["--vfr"], None, *EXACT),
    "fps-auto":    (".auto.mp4", ["--fps", "auto"], None, (-10, 10), 10, 0),
    "fps-30":      (".fps30.mp4", ["--fps", "30"], None, (-1, 34.4), 34.4, 70),
    "max-fps-30":  (".max30.mp4", ["--max-fps", "30"], None, (-6, 34.4), 34.4, 70),
    "webm":        (".webm", [], None, *EXACT),
    "webm-vfr":    (".vfr.webm", ["--vfr"], None, *EXACT),
    "webp":        (".webp", [], None, *EXACT),
    # animated PNG (issue 49): ImageDecoder with image/apng, as WebP; alpha kept
    "apng":        (".apng", [], None, *EXACT),
    # animated AVIF at its default timing (one sample per GIF frame): ImageDecoder, as WebP; composited
    # over white. Its 1 cs-tick form (`--fps tick`) is slowed to 100 ms a frame by Firefox (docs/browsers.md).
    "avif":        (".avif", [], None, *EXACT),
    "hevc":        (".hevc.mp4", ["--codec", "hevc"], ["tick3", "timing-mix", "alpha"], *EXACT),
    "av1":         (".av1.mp4", ["--codec", "av1"], ["tick3", "timing-mix", "alpha"], *EXACT),
    # AV1 from 64 pixels a side (the fixtures, 64x48, scaled 2x): SVT-AV1 with repeats, the shown frames it keeps in
    # no reference slot stored in slot 7 by their rewritten refresh_frame_flags (docs/repeats.md, "How (AV1)")
    "av1-svt":     (".av1svt.mp4", ["--codec", "av1", "--scale", "2"], ["tick3", "timing-mix", "alpha"], *EXACT),
    # POST /v1/convert?format=mp4 to a running `gifx serve`, played from GET /v1/o/KEY (see the top)
    "serve":       ("", [], None, *EXACT),
    # issue 57: written to a pipe (`-o mp4:-`, `-o webm:-`: a fragmented MP4, a WebM without cues), whose header
    # declares the length before any frame (10x it from a WebP or APNG at ec802e3)
    "stream":      (".stream.mp4", [], None, *EXACT),
    # Firefox 153 seeking in a cue-less WebM after the screen fixture's 1.5 s hold lands on the held frame (frames 4
    # and 5 "never shown"; ec802e3 the same; Chromium exact): the screen fixture is left out here (docs/browsers.md)
    "stream-webm": (".stream.webm", [], ["tick3", "timing-mix", "video30", "undelayed", "alpha"], *EXACT),
    # issue 59: an AVIF input itself, through ImageDecoder: the browsers' frames, durations and repetitionCount
    # against the schedule worked by hand, which `gifx timeline --json` must equal too (checked before converting)
    "avif-in":     (".in.avif", [], ["avif-ms", "avif-thirds", "avif-plays-3"], *EXACT),
}
# Measured and printed, but not failing the check: WebM --vfr is not among the modes, and Chromium
# shows it late (frames up to 53 ms late, see docs/browsers.md); kept visible so a fix shows up here.
REPORT_ONLY = {"webm-vfr"}
# Mode embed: fixture -> plays the embedded video must make (None: forever), from fixtures.PLAYS' loop counts.
EMBED_FIXTURES = {"timing-mix": None, "plays-1": 1, "plays-3": 3}
EMBED_KEY = "gifx-browser-check-signing-key-of-this-run-only-0123456789"
# Put after the markup in each embed page: counts the video's `ended` events and rewinds from the start, and
# reports them once the video has played for `watchMs` after it first started (or 90 s passed without a start).
EMBED_PROBE = """<script>
(() => {
  const v = document.querySelector("video");
  const seen = {ended: 0, rewinds: 0, startedAt: null, errors: []};
  let last = 0;
  v.addEventListener("ended", () => seen.ended++);
  v.addEventListener("playing", () => { if (seen.startedAt === null) seen.startedAt = performance.now(); });
  // A source the browser cannot play fires error too, and is skipped: only one it said it could play counts.
  for (const s of v.querySelectorAll("source"))
    s.addEventListener("error", () => { if (v.canPlayType(s.type)) seen.errors.push(s.type); });
  setInterval(() => { if (v.currentTime + 0.05 < last) seen.rewinds++; last = v.currentTime; }, 10);
  window.gifxEmbedCheck = (watchMs) => new Promise(resolve => {
    const began = performance.now();
    const poll = setInterval(() => {
      const now = performance.now();
      if ((seen.startedAt !== null && now - seen.startedAt >= watchMs) || now - began > 90000) {
        clearInterval(poll);
        resolve(JSON.stringify({...seen, started: seen.startedAt !== null, currentSrc: v.currentSrc,
                                paused: v.paused, loop: v.loop}));
      }
    }, 20);
  });
})();
</script>"""
NEEDS = {"hevc": "hevc", "av1": "av1", "av1-svt": "av1"}  # mode -> canPlayType key that must answer "probably"/"maybe"
IMAGE_MIME = {"webp": "image/webp", "avif": "image/avif", "apng": "image/apng", "avif-in": "image/avif"}  # modes measured through ImageDecoder


class RangeHandler(http.server.SimpleHTTPRequestHandler):
    """Static files with single-range `Range: bytes=a-b` support (206), as a real web server has."""

    extensions_map = {".mp4": "video/mp4", ".webm": "video/webm", ".webp": "image/webp", ".apng": "image/apng", ".html": "text/html",
                      ".gif": "image/gif", "": "application/octet-stream"}

    service_port = None  # the `gifx serve` that /v1/o/ requests are forwarded to (mode serve)
    FORWARDED = ("content-type", "content-length", "content-range", "accept-ranges", "etag", "cache-control")

    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.service_port and self.path.startswith("/v1/"):
            self.forward()
        else:
            super().do_GET()

    def forward(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.service_port, timeout=60)
        headers = {k: self.headers[k] for k in ("Range", "If-None-Match") if self.headers.get(k)}
        conn.request("GET", self.path, headers=headers)
        response = conn.getresponse()
        body = response.read()
        conn.close()
        self.send_response(response.status)
        for name, value in response.getheaders():
            if name.lower() in self.FORWARDED:
                self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def send_head(self):
        path = self.translate_path(self.path)
        if not os.path.isfile(path):
            self.send_error(404)
            return None
        size = os.path.getsize(path)
        f = open(path, "rb")
        start, end = 0, size - 1
        match = re.fullmatch(r"bytes=(\d*)-(\d*)", self.headers.get("Range", "").strip())
        if match and (match.group(1) or match.group(2)):
            if match.group(1):
                start = int(match.group(1))
                end = min(int(match.group(2)), size - 1) if match.group(2) else size - 1
            else:
                start = max(0, size - int(match.group(2)))
            if start > end:
                f.close()
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{size}")
                self.end_headers()
                return None
            self.send_response(206)
            self.send_header("Content-Range", f"bytes {start}-{end}/{size}")
        else:
            self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Accept-Ranges", "bytes")
        self.send_header("Content-Length", str(end - start + 1))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        f.seek(start)
        self.remaining = end - start + 1
        return f

    def copyfile(self, source, outputfile):
        while self.remaining > 0:
            chunk = source.read(min(65536, self.remaining))
            if not chunk:
                break
            outputfile.write(chunk)
            self.remaining -= len(chunk)


def serve(root):
    handler = lambda *a, **k: RangeHandler(*a, directory=root, **k)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def schedule(name):
    """Starts and ends in ms, and alpha, from the fixture's resolved delays (cs for a GIF, ms otherwise)."""
    if name in fixtures.OTHER_INPUTS:
        _, _, delays_ms, alpha = fixtures.OTHER_INPUTS[name]
    else:
        _, delays, alpha = fixtures.FIXTURES[name]
        delays_ms = [d * 10 for d in delays]
    starts, t = [], 0
    for d in delays_ms:
        starts.append(t)
        t += d
    return starts, [s + d for s, d in zip(starts, delays_ms)], alpha


def all_jobs():
    """(fixture, mode, output file name) for every fixture and mode it runs in: the GIF fixtures in every
    mode (or the mode's own list), the WebP and APNG fixtures in OTHER_INPUT_MODES."""
    jobs = []
    for name in [*fixtures.FIXTURES, *fixtures.OTHER_INPUTS]:
        for mode, (suffix, args, only, *_rest) in MODES.items():
            if name in fixtures.OTHER_INPUTS:
                if mode not in fixtures.OTHER_INPUT_MODES or (only and name not in only):
                    continue
            elif only and name not in only:
                continue
            elif name in fixtures.PLAYS and mode not in IMAGE_MIME:  # loop counts are the image modes' (issue 57)
                continue
            jobs.append((name, mode, name + suffix))
    return jobs


def row_key(name, mode):
    """The table row: the mode, with the input format named for a WebP or APNG fixture."""
    if name in fixtures.OTHER_INPUTS:
        return f"{mode} ({fixtures.OTHER_INPUTS[name][0]} in)"
    return mode


def convert(gifx, out, gif_dir):
    """Every fixture into every mode's output; returns [(fixture, mode, file name)]."""
    jobs = all_jobs()
    for name, mode, file in jobs:
        if mode == "serve":
            continue
        suffix, args = MODES[mode][0], MODES[mode][1]
        if mode == "avif-in":  # the input itself; gifx's timeline of it must be the schedule the browsers are held to
            source = fixtures.input_path(gif_dir, name)
            timeline = json.loads(subprocess.run([gifx, "timeline", source, "--json", "--policy", "browser"],
                                                 capture_output=True, check=True).stdout)
            scale = timeline.get("timescale", 100)
            got = [f["delay"] * 1000 / scale for f in timeline["frames"]]
            wanted = fixtures.OTHER_INPUTS[name][2]
            plays = fixtures.OTHER_INPUT_PLAYS.get(name)
            if len(got) != len(wanted) or any(abs(g - w) > 1e-6 for g, w in zip(got, wanted)) \
                    or timeline["loop"]["plays"] != plays:
                raise SystemExit(f"gifx timeline of {name}: {got} ms, plays {timeline['loop']['plays']}; "
                                 f"the fixture is {wanted} ms, plays {plays}")
            shutil.copy(source, os.path.join(out, file))
            continue
        if mode.startswith("stream"):
            with open(os.path.join(out, file), "wb") as sink:
                subprocess.run([gifx, "convert", fixtures.input_path(gif_dir, name), "-o",
                                suffix.rsplit(".", 1)[1] + ":-", "--quiet", *args], stdout=sink, check=True)
            continue
        command = "convert" if suffix.endswith((".webm", ".webp", ".avif", ".apng")) else "to-mp4"
        subprocess.run([gifx, command, fixtures.input_path(gif_dir, name), "-o", os.path.join(out, file),
                        "--overwrite", "--quiet", *args], check=True)
    return jobs


def start_service(gifx, out, origin=None):
    """`gifx serve` on a free port of 127.0.0.1, its cache in OUT/serve-cache (emptied first); with `origin`, signed
    URLs on (a key in OUT/embed.key) fetching from that origin (mode embed)."""
    signing = []
    if origin:
        key = os.path.join(out, "embed.key")
        with open(key, "w") as f:
            f.write(EMBED_KEY + "\n")
        signing = ["--signing-key-file", key, "--origin", origin]
    return service.start(gifx, out, "serve-cache", "serve.log", signing)


def serve_jobs(jobs, port, gif_dir):
    """The serve mode's jobs, each fixture POSTed to the service: (fixture, "serve", "v1/o/KEY")."""
    out = []
    for name, mode, file in jobs:
        if mode == "serve":
            with open(fixtures.input_path(gif_dir, name), "rb") as f:
                body = f.read()
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("POST", "/v1/convert?format=mp4", body=body)
            response = conn.getresponse()
            response.read()
            if response.status != 200:
                raise SystemExit(f"gifx serve answered {response.status} for {name}")
            file = "v1/o/" + response.getheader("X-Gifx-Key")
        out.append((name, mode, file))
    return out


# The embed pages: the markup whole (the browser takes the first source it can play: AV1), and with the sources
# before VP9, then before H.264, taken out, so each rendition is played: variant -> (video sources dropped, the
# options of the source that must play).
EMBED_VARIANTS = {"all": (0, None), "vp9": (1, "format:webm"), "h264": (2, "format:mp4")}


def embed_pages(out, port, base):
    """Mode embed: GET /v1/embed for each EMBED_FIXTURES GIF (served by the page's server, the service's origin),
    written into OUT/embed-NAME-VARIANT.html with EMBED_PROBE for each EMBED_VARIANTS; returns
    [(fixture, variant, page URL)]."""
    pages = []
    for name in EMBED_FIXTURES:
        query = urllib.parse.urlencode({"source": f"{base}/gifs/{name}.gif", "base": base, "alt": f"<{name}>"})
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/v1/embed?" + query)
        response = conn.getresponse()
        markup = response.read().decode()
        if response.status != 200:
            raise SystemExit(f"GET /v1/embed answered {response.status} for {name}: {markup}")
        for variant, (drop, _) in EMBED_VARIANTS.items():
            lines = markup.split("\n")
            video_sources = [i for i, line in enumerate(lines) if line.startswith("<source src=")]
            kept = [line for i, line in enumerate(lines) if i not in video_sources[:drop]]
            page = f"embed-{name}-{variant}.html"
            with open(os.path.join(out, page), "w") as f:
                f.write(f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>embed {name}</title></head>\n"
                        f"<body>\n" + "\n".join(kept) + f"{EMBED_PROBE}\n</body></html>\n")
            pages.append((name, variant, f"{base}/{page}"))
    return pages


def embed_check(browser, pages):
    """Plays each embed page in `browser`; returns (table lines, failed)."""
    lines = ["| embed | sources | plays expected | started | source played | ended | rewinds | paused at the end | result |",
             "|---|---|---|---|---|---|---|---|---|"]
    failed = False
    if browser == "chromium":
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio",
                    "--autoplay-policy=no-user-gesture-required"):
            options.add_argument(arg)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        driver.set_script_timeout(180)
        navigate = driver.get
        script = "const done = arguments[arguments.length - 1]; window.gifxEmbedCheck(arguments[0]).then(done);"
        check = lambda ms: driver.execute_async_script(script, ms)  # noqa: E731
        close = driver.quit
    else:
        import bidi
        ff = bidi.Firefox(prefs={"media.autoplay.default": 0})
        navigate = ff.navigate
        check = lambda ms: ff.call("(ms) => window.gifxEmbedCheck(Number(ms))", str(ms))  # noqa: E731
        close = ff.close
    try:
        for name, variant, page in pages:
            plays = EMBED_FIXTURES[name]
            play_ms = sum(fixtures.FIXTURES[name][1]) * 10
            navigate(page)
            # Watch the plays asked for and two more (forever: three plays).
            r = json.loads(check(play_ms * ((plays or 1) + 2)))
            problems = []
            if not r["started"]:
                problems.append("never started")
            if plays is None:
                if not r["loop"] or r["ended"] != 0 or r["rewinds"] < 2 or r["paused"]:
                    problems.append("does not loop")
            elif r["loop"] or r["ended"] != plays or r["rewinds"] != plays - 1 or not r["paused"]:
                problems.append(f"played {r['ended']} times")
            if r["errors"]:
                problems.append(f"sources that failed: {r['errors']}")
            played = re.sub(r"/v1/[^/]+/([^/]+)/.*", r"\1", urllib.parse.urlparse(r["currentSrc"]).path)
            wanted = EMBED_VARIANTS[variant][1]
            if wanted and played != wanted:
                problems.append(f"played {played or 'nothing'}, not {wanted}")
            failed |= bool(problems)
            lines.append(f"| {name} | {variant} | {'forever' if plays is None else plays} | {'yes' if r['started'] else 'NO'} "
                         f"| {played or '–'} | {r['ended']} | {r['rewinds']} | {'yes' if r['paused'] else 'no'} "
                         f"| {'; '.join(problems) if problems else 'pass'} |")
    finally:
        close()
    return lines, failed


def evaluate(name, mode, result):
    """Compares one measurement with the fixture's schedule; returns a dict of findings."""
    starts, ends, alpha = schedule(name)
    colours = [fixtures.COLOURS[i] for i in range(len(starts))]
    _, _, _, change_tol, duration_tol, mid_min = MODES[mode]
    f = {"frames": 0, "wrong": 0, "colour_err": 0, "duration_err": None, "change_err": [], "alpha_ok": True,
         "problems": []}
    if "error" in result:
        f["problems"].append(result["error"])
        return f
    total = ends[-1]
    right_alpha = 0 if alpha and mode in ("webm", "webm-vfr", "stream-webm", "webp", "apng") else 255
    right_colour = WHITE if alpha else None  # MP4 (and an opaque WebM) composite over the white background

    def check_colour(i, shown):
        f["frames"] += 1
        left, right = shown["left"], shown["right"]
        errors = [max(abs(a - b) for a, b in zip(left[:3], c)) for c in colours]
        err = errors[i]
        if min(range(len(colours)), key=lambda k: errors[k]) != i or err > COLOUR_TOLERANCE:
            f["wrong"] += 1
            f["problems"].append(f"frame {i}: shows {left[:3]}, expected {colours[i]}")
        f["colour_err"] = max(f["colour_err"], err)
        if abs(left[3] - 255) > 8 or abs(right[3] - right_alpha) > 8:
            f["alpha_ok"] = False
            f["problems"].append(f"frame {i}: alpha {left[3]}/{right[3]}, expected 255/{right_alpha}")
        if right_alpha == 255:
            expect_right = right_colour or colours[i]
            if max(abs(a - b) for a, b in zip(right[:3], expect_right)) > COLOUR_TOLERANCE:
                f["wrong"] += 1
                f["problems"].append(f"frame {i}: right half {right[:3]}, expected {expect_right}")

    if mode in IMAGE_MIME:
        if not result.get("imageDecoder"):
            check_colour(0, result["first"])
            f["note"] = "no ImageDecoder: first frame only"
            return f
        if result["frameCount"] != len(starts):
            f["problems"].append(f"{result['frameCount']} frames, expected {len(starts)}")
        expected = fixtures.PLAYS[name][1] if name in fixtures.PLAYS else float("inf")
        if name in fixtures.OTHER_INPUT_PLAYS:
            expected = fixtures.OTHER_INPUT_PLAYS[name] - 1
        # JSON has no Infinity: JSON.stringify writes ImageDecoder's Infinity as null
        got = float("inf") if result["repetitionCount"] is None else result["repetitionCount"]
        if got != expected:
            f["problems"].append(f"repetitionCount {got}, expected {'Infinity (loop forever)' if expected == float('inf') else expected}")
        durations = [fr["duration"] / 1000 for fr in result["frames"]]
        f["duration_err"] = sum(durations) - total
        for i, frame in enumerate(result["frames"][:len(starts)]):
            check_colour(i, frame["colour"])
            err = durations[i] - (ends[i] - starts[i])
            if abs(err) > duration_tol and ends[i] - starts[i] != int(ends[i] - starts[i]) \
                    and abs(durations[i] - math.floor(ends[i] - starts[i])) < 1e-6:
                # A frame in fractions of a ms (an AVIF input's 1/30 s): Firefox 153's ImageDecoder gives it in whole ms,
                # cut down (66.67 ms reads 66.0), as docs/browsers.md says; Chromium gives it exact.
                f["note"] = "durations cut to whole ms (Firefox's ImageDecoder)"
            elif abs(err) > duration_tol:
                f["problems"].append(f"frame {i}: {durations[i]} ms, expected {ends[i] - starts[i]}")
            f["change_err"].append(err)
        return f

    f["duration_err"] = result["duration"] * 1000 - total
    if abs(f["duration_err"]) > duration_tol:
        if mode != "webm" and total != int(total) and abs(result["duration"] * 1000 - math.ceil(total)) <= duration_tol:
            # A schedule in fractions of a ms (APNG 1/30 s): the MP4's movie header (mvhd, edit list) counts
            # whole ms, so the browsers read the duration rounded up; the frames themselves are exact.
            f["note"] = "MP4 duration rounded up to whole ms (mvhd timescale 1000)"
        else:
            f["problems"].append(f"duration {result['duration'] * 1000:.3f} ms, expected {total}")
    for i, shown in enumerate(result["mids"]):
        if ends[i] - starts[i] >= mid_min:
            check_colour(i, shown)
    for i, change in enumerate(result["changes"], start=1):
        if change is None:
            if ends[i] - starts[i] < mid_min:  # a resampled rate may drop a short frame (reported by gifx)
                f["note"] = "short frames dropped"
            else:
                f["problems"].append(f"frame {i} never shown")
            continue
        err = change - starts[i]
        f["change_err"].append(err)
        if not change_tol[0] <= err <= change_tol[1]:
            f["problems"].append(f"frame {i} starts at {change} ms, expected {starts[i]}")
    return f


def run_browser(label, call, base, jobs, probe):
    print(f"\n== {label}: {probe['userAgent']}", flush=True)
    print(f"   canPlayType: {probe['canPlay']}; ImageDecoder: {probe['imageDecoder']}; "
          f"requestVideoFrameCallback: {probe['rvfc']}", flush=True)
    rows = {}
    for name, mode, file in jobs:
        need = NEEDS.get(mode)
        if need and probe["canPlay"].get(need) not in ("probably", "maybe"):
            rows.setdefault(row_key(name, mode), {"skipped": f"canPlayType({need}) = '{probe['canPlay'].get(need)}'"})
            continue
        starts, ends, _ = schedule(name)
        spec = {"url": f"{base}/{file}", "kind": "image" if mode in IMAGE_MIME else "video",
                "mime": IMAGE_MIME.get(mode, "image/webp"),
                "colours": [fixtures.COLOURS[i] for i in range(len(starts))], "starts": starts, "ends": ends,
                "search": True}
        result = json.loads(call(json.dumps(spec)))
        f = evaluate(name, mode, result)
        row = rows.setdefault(row_key(name, mode), {"files": 0, "frames": 0, "wrong": 0, "colour_err": 0, "duration_err": [],
                                     "change_err": [], "alpha_ok": True, "problems": [], "notes": set(),
                                     "seconds": 0.0})
        row["files"] += 1
        row["seconds"] += result.get("ms", 0) / 1000
        for key in ("frames", "wrong"):
            row[key] += f[key]
        row["colour_err"] = max(row["colour_err"], f["colour_err"])
        if f["duration_err"] is not None:
            row["duration_err"].append(f["duration_err"])
        row["change_err"] += f["change_err"]
        row["alpha_ok"] &= f["alpha_ok"]
        row["problems"] += [f"{file}: {p}" for p in f["problems"]]
        if "note" in f:
            row["notes"].add(f["note"])
    return rows


def table(rows):
    lines = ["| mode | files | frames checked | wrong | worst colour error | duration error (ms) "
             "| frame changes vs schedule (ms) | alpha | tolerance | result |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    failed = False
    for mode, row in rows.items():
        tol = MODES[mode.split(" ")[0]]  # a WebP/APNG row ("tick (webp in)") has its mode's tolerance
        tolerance = "exact (changes ±1 ms)" if tol[3] == EXACT[0] else \
            f"changes {tol[3][0]:+g}..{tol[3][1]:+g} ms, duration ±{tol[4]:g} ms"
        if "skipped" in row:
            lines.append(f"| {mode} | – | – | – | – | – | – | – | {tolerance} | skipped: {row['skipped']} |")
            continue
        d = row["duration_err"]
        c = row["change_err"]
        ok = not row["problems"]
        base = mode.split(" ")[0]  # "tick (webp in)" is measured as "tick"
        failed |= not ok and base not in REPORT_ONLY
        fmt = lambda v: f"{v:+.1f}" if abs(v - round(v)) > 0.05 else f"{round(v):+d}"  # noqa: E731
        lines.append(
            f"| {mode} | {row['files']} | {row['frames']} | {row['wrong']} | {row['colour_err']} "
            f"| {fmt(min(d)) if d else '–'}..{fmt(max(d)) if d else '–'} "
            f"| {fmt(min(c)) if c else '–'}..{fmt(max(c)) if c else '–'} ({len(c)}) "
            f"| {'ok' if row['alpha_ok'] else 'WRONG'} | {tolerance} "
            f"| {'pass' if ok else 'differs (report only)' if base in REPORT_ONLY else 'FAIL'}{'; ' + '; '.join(sorted(row['notes'])) if row['notes'] else ''} |")
    return "\n".join(lines), failed


def chromium_session(page):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--mute-audio"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.set_script_timeout(600)
    driver.get(page)
    script = ("const done = arguments[arguments.length - 1];"
              "window.gifxCheck(arguments[0]).then(done, e => done(JSON.stringify({error: String(e)})));")
    version = f"Chromium {driver.capabilities.get('browserVersion')}"
    return (lambda spec: driver.execute_async_script(script, spec),
            lambda: driver.execute_script("return window.gifxProbe()"), driver.quit, version)


def firefox_session(page):
    import bidi
    # ImageDecoder ships behind a pref in Firefox ESR: turned on so WebP frame durations can be read.
    # GIFX_FIREFOX_PREFS (a JSON object) adds prefs, to bisect a Firefox difference (docs/repeats.md, VP9).
    prefs = {"dom.media.webcodecs.image-decoder.enabled": True, **json.loads(os.environ.get("GIFX_FIREFOX_PREFS", "{}"))}
    ff = bidi.Firefox(prefs=prefs)
    ff.navigate(page)
    version = f"Firefox {ff.capabilities.get('browserVersion')}"
    return (lambda spec: ff.call("(s) => window.gifxCheck(s)", spec),
            lambda: ff.call("async () => window.gifxProbe()"), ff.close, version)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gifx", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--browsers", default="chromium,firefox")
    parser.add_argument("--report", help="also write the tables (markdown) here")
    parser.add_argument("--skip-convert", action="store_true", help="measure the outputs already in --out")
    parser.add_argument("--modes", help="only these modes (comma-separated; embed and playground are those modes)")
    args = parser.parse_args()
    embed = not args.modes or "embed" in args.modes.split(",")
    with_playground = not args.modes or "playground" in args.modes.split(",")
    if args.modes:
        for mode in set(MODES) - set(args.modes.split(",")):
            del MODES[mode]
    started = time.monotonic()
    out = os.path.abspath(args.out)
    gif_dir = os.path.join(out, "gifs")
    fixtures.main(gif_dir)
    with open(os.path.join(HERE, "check.html")) as src, open(os.path.join(out, "check.html"), "w") as dst:
        dst.write(src.read())
    if args.skip_convert:
        jobs = all_jobs()
    else:
        jobs = convert(args.gifx, out, gif_dir)
    print(f"converted {len(fixtures.FIXTURES)} fixture GIFs and {len(fixtures.OTHER_INPUTS)} WebP/APNG into {len(jobs)} outputs "
          f"in {time.monotonic() - started:.0f} s", flush=True)
    service = None
    server = serve(out)
    base = f"http://127.0.0.1:{server.server_address[1]}"
    pages = []
    if "serve" in MODES or embed:
        service, RangeHandler.service_port = start_service(args.gifx, out, origin=base if embed else None)
        jobs = serve_jobs(jobs, RangeHandler.service_port, gif_dir)
        if embed:
            pages = embed_pages(out, RangeHandler.service_port, base)
    playground_service = playground_port = None
    if with_playground:
        playground_service, playground_port = playground.start_service(args.gifx, out, base, EMBED_KEY)
        atexit.register(lambda: playground_service.poll() is None and playground_service.kill())
    report = [f"gifx browser check, {time.strftime('%Y-%m-%d')}: {len(fixtures.FIXTURES)} fixture GIFs, "
              f"{len(fixtures.OTHER_INPUTS)} WebP/APNG, "
              f"{len(jobs)} outputs"]
    failed = False
    sessions = {"chromium": chromium_session, "firefox": firefox_session}
    for browser in args.browsers.split(","):
        t0 = time.monotonic()
        if playground_port:
            lines, bad = playground.check(browser, playground_port, base, gif_dir)
            failed |= bad
            print("\n".join(lines), flush=True)
            report.append("\n" + "\n".join(lines))
        if not MODES and not pages:  # only the playground asked for
            continue
        call, probe_call, close, version = sessions[browser](f"{base}/check.html")
        try:
            probe = json.loads(probe_call())
            rows = run_browser(version, call, base, jobs, probe)
        finally:
            close()
        text, bad = table(rows)
        failed |= bad
        print(text)
        for mode, row in rows.items():
            for p in row.get("problems", [])[:12]:
                print(f"   {mode}: {p}")
        elapsed = time.monotonic() - t0
        print(f"   ({elapsed:.0f} s)", flush=True)
        report.append(f"\n### {version}\n\ncanPlayType: {probe['canPlay']}; ImageDecoder: {probe['imageDecoder']}; "
                      f"{elapsed:.0f} s\n\n{text}")
        if pages:
            lines, bad = embed_check(browser, pages)
            failed |= bad
            print("\n".join(lines), flush=True)
            report.append("\n" + "\n".join(lines))
    for running in (service, playground_service):
        if running:
            running.send_signal(signal.SIGTERM)
            if running.wait(60) != 0:
                print(f"gifx serve exited {running.returncode} after SIGTERM")
                failed = True
    total = time.monotonic() - started
    print(f"\nbrowser check: {'FAILED' if failed else 'passed'} in {total:.0f} s")
    if args.report:
        with open(args.report, "w") as f:
            f.write("\n".join(report) + f"\n\nWall time {total:.0f} s.\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
