#!/usr/bin/env python3
"""The conformance matrix (issue 57): every input format x schedule x loop count x output kind x delivery path,
generated from the registries (`gifx formats --json`: `inputs` and `outputs`), so a new input format or output
kind joins by itself (and fails until this script can write its fixtures or read its declarations).

    python3 Tests/ConformanceMatrix/conformance_matrix.py --gifx .build/debug/gifx            # make conformance-matrix
    python3 Tests/ConformanceMatrix/conformance_matrix.py --gifx .build/debug/gifx --sample   # make test's sample

Each cell converts one fixture to one kind by one delivery path (a file, a pipe `-o kind:-`, `gifx batch`,
`gifx serve` with a POST and with `stream=1`, GifxKit through Examples/library-usage's gifxkit-convert) and
checks, against `gifx timeline --json` of the same input under the same policy:
- `gifx verify` passes (every frame at its time, every pixel within its bound, the loop count where the kind
  has one);
- what the file declares, read by an independent reader: ISO BMFF boxes (mvhd, tkhd, mdhd, mehd, elst, stts)
  by containers.py's walker, ffprobe's format and stream durations, webpmux -info, APNG's acTL and fcTL by
  containers.py's chunk walker, the sheet's JSON, the timeline JSON's bytes; docs/conformance.md ("The
  conformance matrix") has the table per kind;
- the frame count and the loop count where the kind has them;
- the service's X-Gifx-Timeline and batch's report line.
A cell that does not apply is N/A, with its reason. Prints one table (rows: input, schedule, policy, loops,
kind; columns: delivery paths), the failures with their reasons, and a last line; exits 1 when a cell failed.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import containers  # noqa: E402
import fixtures  # noqa: E402

DELIVERIES = ["file", "pipe", "batch", "serve", "stream", "gifxkit"]
POLICIES = {"mixed": ["flanimated", "browser"]}  # every other schedule: flanimated
GIFXKIT = "Examples/library-usage/.build/debug/gifxkit-convert"
TIMEOUT = 120


def run(command, **kwargs):
    return subprocess.run(command, capture_output=True, timeout=kwargs.pop("timeout", TIMEOUT), **kwargs)


# --- The expectation: timeline --json ---------------------------------------------------------------------

class Expected:
    """One play, plays, frames and tick of `gifx timeline --json` (exact fractions of a second)."""

    def __init__(self, data, raw):
        self.json, self.raw = data, raw
        scale = data.get("timescale", 100)
        units = data["duration"]["units"] if "units" in data["duration"] else data["duration"]["centiseconds"]
        tick = data["tick"]["units"] if "units" in data["tick"] else data["tick"]["centiseconds"]
        self.play = Fraction(units, scale)
        self.tick = Fraction(tick, scale)
        self.frames = len(data["frames"])
        self.plays = data["loop"]["plays"]  # None: forever
        self.loop_count = data["loop"]["count"]
        self.delays = [Fraction(f["delay"], scale) for f in data["frames"]]


def nearest(value, scale):
    """`value` seconds in units of 1/scale, rounded to nearest (ties up)."""
    scaled = value * scale
    return int(scaled + Fraction(1, 2)) if scaled >= 0 else -int(-scaled + Fraction(1, 2))


# --- Checks per kind: what the file declares ----------------------------------------------------------------

def ffprobe(path):
    done = run(["ffprobe", "-v", "error", "-show_entries", "format=duration:stream=duration,nb_frames", "-of", "json", path])
    if done.returncode != 0:
        return None, f"ffprobe failed: {done.stderr.decode(errors='replace').strip()[:200]}"
    return json.loads(done.stdout), None


def close(seconds_text, expected, scale):
    """ffprobe's decimal seconds against `expected`, within half a unit of the container's timescale (and
    ffprobe's 6 decimals)."""
    return abs(Fraction(seconds_text) - expected) <= Fraction(1, 2 * scale) + Fraction(1, 1_000_000)


def check_video(path, kind, expected, fragmented_ok):
    """MP4 and WebM have no loop count: every box declares one play (docs/cli.md: --loops writes k plays)."""
    problems = []
    play = expected.play
    if kind == "mp4":
        try:
            boxes = containers.bmff(path)
        except (ValueError, OSError, IndexError) as error:
            return [f"box walker: {error}"]
        _, scale, duration = boxes["mvhd"]
        if duration != nearest(play, scale):
            problems.append(f"mvhd {duration}/{scale} s, one play is {nearest(play, scale)}/{scale}")
        if boxes["tkhd"][1] != nearest(play, scale):
            problems.append(f"tkhd {boxes['tkhd'][1]}/{scale} s, one play is {nearest(play, scale)}/{scale}")
        mscale, mduration = boxes["mdhd"]
        if mduration != nearest(play, mscale):
            problems.append(f"mdhd {mduration}/{mscale} s, one play is {nearest(play, mscale)}/{mscale}")
        if boxes["mehd"] is not None and boxes["mehd"] != nearest(play, scale):
            problems.append(f"mehd {boxes['mehd']}/{scale} s, one play is {nearest(play, scale)}/{scale}")
        elst = boxes["elst"]
        if elst is None:
            problems.append("no elst")
        else:
            entries = elst[2]
            fragmented = boxes["fragments"] > 0
            # A fragmented file's moov is written before any sample: libavformat's edit then says 0, "the whole
            # media"; a whole file's says one play. The edit starts the presentation at the first sample's
            # composition time: 0 without reordering, x264's reorder delay with B-frames (its ctts offset).
            wanted = {0, nearest(play, scale)} if fragmented and fragmented_ok else {nearest(play, scale)}
            start = boxes["first_composition_offset"]
            if len(entries) != 1 or entries[0][0] not in wanted or entries[0][1] != start:
                problems.append(f"elst {entries}, one play is [({nearest(play, scale)}, {start})]")
        probe, error = ffprobe(path)
        if error:
            return problems + [error]
        if not close(probe["format"]["duration"], play, scale):
            problems.append(f"ffprobe format duration {probe['format']['duration']} s, one play is {float(play):.6f} s")
        stream = probe["streams"][0].get("duration")
        if stream is not None and not close(stream, play, mscale):
            problems.append(f"ffprobe stream duration {stream} s, one play is {float(play):.6f} s")
    else:  # webm: the Matroska Duration (TimestampScale 1 ms)
        probe, error = ffprobe(path)
        if error:
            return [error]
        duration = probe["format"].get("duration")
        if duration is None or not close(duration, play, 1000):
            problems.append(f"Matroska Duration (ffprobe) {duration} s, one play is {float(play):.6f} s")
        stream = probe["streams"][0].get("duration")
        if stream is not None and not close(stream, play, 1000):
            problems.append(f"ffprobe stream duration {stream} s, one play is {float(play):.6f} s")
    return problems


def check_avif(path, expected):
    """AVIF: one elst entry of one play; flags 0 once, 1 otherwise; tkhd = mvhd = plays x one play, all ones
    (version 1) forever; the mvhd timescale is mdhd's; one sample per frame of the schedule."""
    try:
        boxes = containers.bmff(path)
    except (ValueError, OSError, IndexError) as error:
        return [f"box walker: {error}"]
    problems = []
    version, scale, mvhd = boxes["mvhd"]
    mscale, _ = boxes["mdhd"]
    if scale != mscale:
        problems.append(f"mvhd timescale {scale}, mdhd's {mscale}")
    one = nearest(expected.play, scale)
    elst = boxes["elst"]
    if elst is None:
        return problems + ["no edts/elst: every browser reads that as forever"]
    _, flags, entries = elst
    if entries != [(one, 0)]:
        problems.append(f"elst {entries}, one play is [({one}, 0)]")
    wanted_flags = 0 if expected.plays == 1 else 1
    if flags != wanted_flags:
        problems.append(f"elst flags {flags}, {wanted_flags} for {expected.plays or 'forever'} plays")
    for box, (box_version, value) in (("mvhd", (version, mvhd)), ("tkhd", boxes["tkhd"])):
        if expected.plays is None:
            if (box_version, value) != (1, containers.ALL_ONES_64):
                problems.append(f"{box} v{box_version} {value}: forever is version 1, all ones")
        elif value != expected.plays * one:
            problems.append(f"{box} {value}/{scale}, {expected.plays} plays of {one}/{scale}")
    if boxes["samples"] != expected.frames:
        problems.append(f"{boxes['samples']} samples, the schedule has {expected.frames} frames")
    if expected.plays is not None:
        probe, error = ffprobe(path)
        if error:
            problems.append(error)
        elif not close(probe["format"]["duration"], expected.plays * expected.play, scale):
            problems.append(f"ffprobe format duration {probe['format']['duration']} s, "
                            f"{expected.plays} plays are {float(expected.plays * expected.play):.6f} s")
    return problems


def check_webp(path, expected):
    try:
        info = containers.webp(path)
    except (ValueError, subprocess.TimeoutExpired) as error:
        return [str(error)]
    problems = []
    if info["frames"] != expected.frames:
        problems.append(f"{info['frames']} frames, the schedule has {expected.frames}")
    if not info["animated"]:  # one frame is written as a still WebP: it declares no time and no loop count
        return problems + ([] if expected.frames == 1 else ["a still WebP for an animation"])
    wanted = 0 if expected.plays is None else expected.plays
    if info["loop"] != wanted:
        problems.append(f"loop count {info['loop']}, the schedule's plays are {expected.plays or 'forever'}")
    total = sum(info["durations"])
    if total != nearest(expected.play, 1000):
        problems.append(f"frame durations sum to {total} ms, one play is {nearest(expected.play, 1000)} ms")
    return problems


def check_apng(path, expected):
    try:
        info = containers.apng(path)
    except (ValueError, OSError, struct_error()) as error:
        return [f"chunk walker: {error}"]
    problems = []
    if not info["crc_ok"]:
        problems.append("a chunk's CRC does not match")
    if info["frames"] != expected.frames:
        problems.append(f"acTL num_frames {info['frames']}, the schedule has {expected.frames}")
    wanted = 0 if expected.plays is None else expected.plays
    if info["plays"] != wanted:
        problems.append(f"acTL num_plays {info['plays']}, the schedule's plays are {expected.plays or 'forever'}")
    total = sum(Fraction(n, d) for n, d in info["delays"])
    if total != expected.play:
        problems.append(f"fcTL delays sum to {total} s, one play is {expected.play} s (exact)")
    return problems


def struct_error():
    import struct
    return struct.error


def check_sheet(json_path, expected):
    try:
        sheet = json.load(open(json_path))
    except (OSError, ValueError) as error:
        return [f"sheet JSON: {error}"]
    problems = []
    frames = sheet.get("frames", [])
    if len(frames) != expected.frames:
        problems.append(f"{len(frames)} frames in the JSON, the schedule has {expected.frames}")
    if sheet.get("plays") != expected.plays:
        problems.append(f"plays {sheet.get('plays')}, the schedule's are {expected.plays}")
    if sheet.get("loopCount") != expected.loop_count:
        problems.append(f"loopCount {sheet.get('loopCount')}, the schedule's is {expected.loop_count}")
    if abs(Fraction(str(sheet.get("duration", -1))) - expected.play) > Fraction(1, 1_000_000):
        problems.append(f"duration {sheet.get('duration')} s, one play is {float(expected.play)} s")
    return problems


def check_declared(kind, path, expected, delivery):
    """What `path` (a kind's output) declares, against the schedule."""
    if kind in ("mp4", "webm"):
        return check_video(path, kind, expected, fragmented_ok=delivery in ("pipe", "stream"))
    if kind == "avif":
        return check_avif(path, expected)
    if kind == "webp":
        return check_webp(path, expected)
    if kind == "apng":
        return check_apng(path, expected)
    if kind == "sheet":
        return check_sheet(path, expected)
    if kind == "timeline":
        data = open(path, "rb").read()
        return [] if data == expected.raw else ["the timeline JSON differs from timeline --json's bytes"]
    if kind in ("png", "jpg"):
        return []  # a still image declares no time; verify finds the frame it shows
    return [f"the matrix has no declared-duration reader for the kind {kind}: add one to check_declared"]


def verify(gifx, source, outputs, policy):
    """`gifx verify --json` of every output at once: {path: [failures]}."""
    if not outputs:
        return {}
    done = run([gifx, "verify", source, *outputs, "--json", "--policy", policy], timeout=TIMEOUT * 2)
    try:
        report = json.loads(done.stdout)
    except ValueError:
        message = done.stderr.decode(errors="replace").strip().splitlines()
        return {path: [f"verify exited {done.returncode}: {message[-1] if message else ''}"] for path in outputs}
    found = {entry["path"]: entry for entry in report["outputs"]}
    result = {}
    for path in outputs:
        entry = found.get(path)
        if entry is None:
            result[path] = ["verify did not report it"]
        else:
            result[path] = [] if entry["passed"] else [f"verify: {f}" for f in entry["failures"]] or ["verify failed"]
    return result


# --- The cells ------------------------------------------------------------------------------------------------

class Cell:
    def __init__(self, fixture, kind, delivery):
        self.fixture, self.kind, self.delivery = fixture, kind, delivery
        self.status, self.reasons, self.path = None, [], None

    @property
    def key(self):
        return (self.fixture.key, self.kind, self.delivery)


class Fixture:
    def __init__(self, fmt, schedule, policy, loops):
        self.format, self.schedule, self.policy, self.loops = fmt, schedule, policy, loops
        self.path = None
        self.expected = None

    @property
    def key(self):
        return (self.format, self.schedule, self.policy, self.loops)

    @property
    def name(self):
        return f"{self.format}-{self.schedule}-{self.policy}-{self.loops}"


# What a kind refuses by design, in one line (exit 64, HTTP 400): a cell of it is N/A, with the refusal as reason.
REFUSED = {
    ("avif", "one"): "an AVIF of one frame is refused (FFmpeg 5.1 writes a still AVIF without the track its own "
                     "reader needs): ask for webp, png or jpg",
}


def not_applicable(fixture, kind, delivery):
    """The reason a cell does not apply, or None."""
    name = kind["name"]
    if (name, fixture.schedule) in REFUSED:
        return REFUSED[(name, fixture.schedule)]
    if delivery == "pipe" and not kind["prefixNames"]:
        return f"{name}: no -o name, and it is several files (PNG pages and JSON): no single stream to pipe"
    if delivery in ("serve", "stream") and not kind["served"]:
        return f"{name}: not a format the service answers with (gifx formats: served false)"
    if delivery == "stream" and not kind["streams"]:
        return f"{name}: does not stream (stream=1 is 400 bad_query for it)"
    if delivery in ("serve", "stream") and fixture.policy != "flanimated":
        return "the service has no policy setting: it follows flanimated"
    return None


class Matrix:
    def __init__(self, gifx, work, registry, sample):
        self.gifx, self.work, self.registry = gifx, work, registry
        self.kinds = registry["outputs"]
        self.inputs = [i["name"] for i in registry["inputs"]]
        self.sample = sample
        self.cells, self.fixtures = [], []
        self.server = None
        self.port = None
        self.lock = threading.Lock()

    # The fixtures: every input format the registry reads, every schedule it can hold, every loop count.
    def make_fixtures(self):
        problems = []
        for fmt in self.inputs:
            if fmt not in fixtures.WRITERS:
                problems.append(f"input {fmt}: the matrix has no fixture writer for it: add one to fixtures.py")
                continue
            for schedule, by_format in fixtures.SCHEDULES.items():
                if fmt not in by_format:
                    continue
                for policy in POLICIES.get(schedule, ["flanimated"]):
                    for loops in fixtures.LOOPS:
                        fixture = Fixture(fmt, schedule, policy, loops)
                        if self.sample and fixture.key not in SAMPLE_FIXTURES:
                            continue
                        folder = os.path.join(self.work, "in")
                        os.makedirs(folder, exist_ok=True)
                        fixture.path = os.path.join(folder, fixture.name + fixtures.EXTENSIONS[fmt])
                        fixtures.WRITERS[fmt](fixture.path, by_format[fmt], fixtures.LOOPS[loops][fmt])
                        self.fixtures.append(fixture)
        return problems

    def expect(self, fixture):
        done = run([self.gifx, "timeline", fixture.path, "--json", "--policy", fixture.policy])
        if done.returncode != 0:
            raise RuntimeError(f"timeline of {fixture.name}: {done.stderr.decode(errors='replace').strip()}")
        expected = Expected(json.loads(done.stdout), done.stdout)
        # The reader, against what the writer wrote: each frame's raw delay, in seconds.
        written = fixtures.SCHEDULES[fixture.schedule][fixture.format]
        scale = expected.json.get("timescale", 100)
        raw = []
        for frame in expected.json["frames"]:
            if frame["rawDelay"] is None:
                raw.append(None)
            else:
                raw.append(Fraction(frame["rawDelay"], frame.get("rawDelayDenominator") or scale))
        wanted = [fixtures.raw_seconds(fixture.format, d) for d in written]
        if raw != wanted:
            raise RuntimeError(f"timeline of {fixture.name} reads raw delays {raw}, the file has {wanted}")
        fixture.expected = expected

    # Delivery paths: each returns {kind name: (output path or None, [problems])}.
    def deliver_file(self, fixture, kinds, folder):
        out = {}
        for kind in kinds:
            path = os.path.join(folder, f"{kind['name']}." + kind["storedExtension"])
            if kind["prefixNames"]:
                args = ["-o", f"{kind['prefixNames'][0]}:{path}"]
            else:  # a kind with no -o name is asked for by its own option (sheet: --sheet PNG, JSON beside)
                args = [f"--{kind['name']}", path]
            done = run([self.gifx, "convert", fixture.path, *args, "--policy", fixture.policy, "--quiet"])
            out[kind["name"]] = self.finish(done, path, kind)
        return out

    def deliver_pipe(self, fixture, kinds, folder):
        out = {}
        for kind in kinds:
            path = os.path.join(folder, f"pipe-{kind['name']}." + kind["storedExtension"])
            with open(path, "wb") as sink:
                done = subprocess.run([self.gifx, "convert", fixture.path, "-o", f"{kind['prefixNames'][0]}:-",
                                       "--policy", fixture.policy, "--quiet"],
                                      stdout=sink, stderr=subprocess.PIPE, timeout=TIMEOUT)
            out[kind["name"]] = self.finish(done, path, kind)
        return out

    def deliver_gifxkit(self, fixture, kinds, folder):
        jobs, paths = [], []
        for kind in kinds:
            path = os.path.join(folder, f"kit-{kind['name']}." + kind["storedExtension"])
            jobs.append(f"{fixture.policy}\t{fixture.path}\t{kind['name']}\t{path}")
            paths.append(path)
        done = run([GIFXKIT], input=("\n".join(jobs) + "\n").encode())
        answers = done.stdout.decode().splitlines()
        out = {}
        for i, kind in enumerate(kinds):
            answer = answers[i] if i < len(answers) else f"no answer (gifxkit-convert exited {done.returncode})"
            if answer != "ok":
                out[kind["name"]] = (None, [f"GifxKit: {answer}"])
            else:
                out[kind["name"]] = self.located(paths[i], kind)
        return out

    def deliver_serve(self, fixture, kinds, folder, stream):
        out = {}
        body = open(fixture.path, "rb").read()
        for kind in kinds:
            query = f"format={kind['name']}" + ("&stream=1" if stream else "")
            request = urllib.request.Request(f"http://127.0.0.1:{self.port}/v1/convert?{query}", data=body, method="POST")
            path = os.path.join(folder, ("stream-" if stream else "serve-") + f"{kind['name']}." + kind["storedExtension"])
            try:
                with urllib.request.urlopen(request, timeout=TIMEOUT) as reply:
                    open(path, "wb").write(reply.read())
                    header = reply.headers.get("X-Gifx-Timeline")
                    location = reply.headers.get("Location")
                if kind["name"] == "sheet":  # the answer is the page; its JSON is at Location + /json
                    if location is None:
                        out[kind["name"]] = (None, ["a sheet's answer has no Location"])
                        continue
                    with urllib.request.urlopen(f"http://127.0.0.1:{self.port}{location}/json", timeout=TIMEOUT) as reply:
                        sheet = json.loads(reply.read())
                    for image in sheet.get("images", []):  # the pages beside it, by the names it gives them
                        if image.get("name") and image["name"] != os.path.basename(path):
                            shutil.copy(path, os.path.join(folder, os.path.basename(image["name"])))
                    path = path[:-4] + ".json"
                    json.dump(sheet, open(path, "w"))
            except urllib.error.HTTPError as error:
                out[kind["name"]] = (None, [f"HTTP {error.code}: {error.read()[:200].decode(errors='replace')}"])
                continue
            except OSError as error:
                out[kind["name"]] = (None, [f"request failed: {error}"])
                continue
            out[kind["name"]] = (path, self.check_header(header, fixture.expected))
        return out

    @staticmethod
    def check_header(header, expected):
        if header is None:
            return ["no X-Gifx-Timeline header"]
        fields = dict(part.strip().split("=", 1) for part in header.split(","))
        problems = []
        if int(fields.get("frames", -1)) != expected.frames:
            problems.append(f"X-Gifx-Timeline frames={fields.get('frames')}, the schedule has {expected.frames}")
        for name, value in (("duration", expected.play), ("tick", expected.tick)):
            if abs(Fraction(fields.get(name, "-1")) - value) > Fraction(1, 2_000_000):
                problems.append(f"X-Gifx-Timeline {name}={fields.get(name)}, timeline --json says {float(value):.6f}")
        return problems

    def finish(self, done, path, kind):
        if done.returncode != 0:
            message = done.stderr.decode(errors="replace").strip().splitlines()
            return (None, [f"exit {done.returncode}: {message[-1] if message else ''}"])
        return self.located(path, kind)

    @staticmethod
    def located(path, kind):
        if kind["name"] == "sheet":
            json_path = path[:-4] + ".json" if path.endswith(".png") else path + ".json"
            if not os.path.exists(json_path):
                return (None, [f"no sheet JSON at {json_path}"])
            return (json_path, [])
        if not os.path.exists(path) or os.path.getsize(path) == 0:
            return (None, ["no output written"])
        return (path, [])

    # Batch: one run per policy over every fixture, every kind at once (--formats from the registry).
    def deliver_batch(self, policy, schedules, label):
        """One batch over the fixtures of `policy` and `schedules`, with every kind that applies to them."""
        fixtures_here = [f for f in self.fixtures if f.policy == policy and f.schedule in schedules]
        if not fixtures_here:
            return {}
        kinds = [k for k in self.kinds if not_applicable(fixtures_here[0], k, "batch") is None]
        folder = os.path.join(self.work, f"batch-{policy}-{label}")
        source = os.path.join(folder, "in")
        os.makedirs(source, exist_ok=True)
        for fixture in fixtures_here:
            shutil.copy(fixture.path, source)
        names = ",".join(kind["name"] for kind in kinds)
        report = os.path.join(folder, "report.jsonl")
        done = run([self.gifx, "batch", "convert", source, "--out-dir", os.path.join(folder, "out"), "--formats", names,
                    "--report", report, "--jobs", "2", "--", "--policy", policy], timeout=TIMEOUT * 10)
        lines = {}
        if os.path.exists(report):
            for line in open(report):
                entry = json.loads(line)
                lines[os.path.basename(entry["input"])] = entry
        results = {}
        for fixture in fixtures_here:
            entry = lines.get(os.path.basename(fixture.path))
            stem = os.path.splitext(os.path.basename(fixture.path))[0]
            for kind in kinds:
                key = (fixture.key, kind["name"])
                if entry is None:
                    results[key] = (None, [f"no report line (batch exited {done.returncode})"])
                    continue
                problems = []
                if entry["status"] != "ok":
                    problems.append(f"batch {entry['status']}: {entry.get('error')}")
                if entry.get("frames") != fixture.expected.frames:
                    problems.append(f"report frames {entry.get('frames')}, the schedule has {fixture.expected.frames}")
                duration = entry.get("duration")
                if duration is None or abs(Fraction(str(duration)) - fixture.expected.play) > Fraction(1, 1_000_000):
                    problems.append(f"report duration {duration} s, one play is {float(fixture.expected.play)} s")
                ending = "sheet.json" if kind["name"] == "sheet" else kind["storedExtension"]
                path = os.path.join(folder, "out", f"{stem}.{ending}")
                listed = {os.path.basename(p) for p in entry.get("outputs", [])}
                if os.path.basename(path) not in listed or not os.path.exists(path):
                    results[key] = (None, problems + [f"no {ending} among the batch's outputs"])
                else:
                    results[key] = (path, problems)
        return results

    # The service: one for the whole run.
    def start_server(self):
        log = open(os.path.join(self.work, "serve.log"), "w")
        self.server = subprocess.Popen(
            [self.gifx, "serve", "--host", "127.0.0.1", "--port", "0", "--cache-dir", os.path.join(self.work, "cache"),
             "--memory-budget", "512M", "--threads", "2", "--jobs", "2", "--conversion-timeout", "120"],
            stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
        line = self.server.stdout.readline()
        match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
        if not match:
            raise RuntimeError(f"gifx serve did not start: {line!r}")
        self.port = int(match.group(1))
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/healthz", timeout=2):
                    return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError("gifx serve does not answer /healthz")

    def stop_server(self):
        if self.server and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.server.kill()

    # One group: a fixture by one delivery path, every kind that applies.
    def run_group(self, fixture, delivery, batch_results):
        cells = [Cell(fixture, kind, delivery) for kind in self.kinds]
        live = []
        for cell in cells:
            reason = not_applicable(fixture, cell.kind, delivery)
            if self.sample and (fixture.key, cell.kind["name"], delivery) not in self.sample_cells:
                reason = reason or "not in the sample"
                cell.status = "skip"
            if reason:
                cell.status = cell.status or "n/a"
                cell.reasons = [reason]
            else:
                live.append(cell)
        if live:
            folder = os.path.join(self.work, "out", fixture.name, delivery)
            os.makedirs(folder, exist_ok=True)
            kinds = [cell.kind for cell in live]
            if delivery == "file":
                made = self.deliver_file(fixture, kinds, folder)
            elif delivery == "pipe":
                made = self.deliver_pipe(fixture, kinds, folder)
            elif delivery == "gifxkit":
                made = self.deliver_gifxkit(fixture, kinds, folder)
            elif delivery in ("serve", "stream"):
                made = self.deliver_serve(fixture, kinds, folder, stream=delivery == "stream")
            else:
                made = {k["name"]: batch_results[(fixture.key, k["name"])] for k in kinds}
            to_verify = []
            for cell in live:
                cell.path, cell.reasons = made[cell.kind["name"]]
                cell.reasons = list(cell.reasons)
                if cell.path:
                    cell.reasons += check_declared(cell.kind["name"], cell.path, fixture.expected, delivery)
                    if cell.kind["name"] != "timeline" and not (cell.kind["name"] == "sheet" and not cell.path.endswith(".json")):
                        to_verify.append(cell.path)
            verdicts = verify(self.gifx, fixture.path, to_verify, fixture.policy)
            for cell in live:
                cell.reasons += verdicts.get(cell.path, [])
                cell.status = "FAIL" if cell.reasons else "ok"
        return cells

    def run(self, jobs):
        problems = self.make_fixtures()
        for fixture in self.fixtures:
            self.expect(fixture)
        self.sample_cells = sample_cells(self) if self.sample else set()
        self.start_server()
        try:
            batch = {}
            # One batch per policy and per set of kinds that apply (a kind refused for a schedule would fail every
            # output of the input: batch commits an input's outputs together).
            refusing = {schedule for _, schedule in REFUSED}
            others = set(fixtures.SCHEDULES) - refusing
            for policy in sorted({f.policy for f in self.fixtures}):
                if not self.sample or any(d == "batch" and fk[2] == policy for fk, _, d in self.sample_cells):
                    batch.update(self.deliver_batch(policy, others, "all"))
                    for schedule in sorted(refusing):
                        batch.update(self.deliver_batch(policy, {schedule}, schedule))
            with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
                futures = [pool.submit(self.run_group, f, d, batch) for f in self.fixtures for d in DELIVERIES]
                for future in futures:
                    self.cells.extend(future.result())
        finally:
            self.stop_server()
        return problems


# --- The sample `make test` runs: one fixture per input format, so every kind x delivery has a cell, plus the
# cells of issue 57's bugs (streamed MP4/WebM from WebP and APNG; AVIF plays once, 3 times, forever).
SAMPLE_FIXTURES = {
    ("gif", "mixed", "browser", "3"),
    ("gif", "mixed", "flanimated", "forever"),
    ("webp", "mixed", "flanimated", "3"),
    ("apng", "fractional", "flanimated", "once"),
    ("apng", "pause", "flanimated", "forever"),
    ("avif", "fractional", "flanimated", "3"),
}


def sample_cells(matrix):
    cells = set()
    by_format = {}
    for fixture in matrix.fixtures:
        by_format.setdefault(fixture.format, []).append(fixture)
    rotation = [f for f in matrix.fixtures if f.policy == "flanimated"]
    for j, delivery in enumerate(DELIVERIES):
        for i, kind in enumerate(matrix.kinds):
            # every kind by every path, the fixture rotating over the input formats
            for step in range(len(rotation)):
                fixture = rotation[(i + j + step) % len(rotation)]
                if not_applicable(fixture, kind, delivery) is None:
                    cells.add((fixture.key, kind["name"], delivery))
                    break
    for fixture in matrix.fixtures:
        for kind in matrix.kinds:
            bug = (kind["name"] in ("mp4", "webm") and fixture.format in ("webp", "apng") and True) or kind["name"] == "avif"
            for delivery in (["pipe", "stream", "file"] if kind["name"] in ("mp4", "webm") else ["file"]):
                if bug and not_applicable(fixture, kind, delivery) is None:
                    cells.add((fixture.key, kind["name"], delivery))
        if fixture.policy == "browser":  # the browser policy, by the paths that take one
            for kind in matrix.kinds:
                if not_applicable(fixture, kind, "file") is None:
                    cells.add((fixture.key, kind["name"], "file"))
    return cells


# --- The table ----------------------------------------------------------------------------------------------

def print_table(matrix, out):
    rows = {}
    for cell in matrix.cells:
        rows.setdefault((cell.fixture.key, cell.kind["name"]), {})[cell.delivery] = cell
    header = f"{'input':6} {'schedule':10} {'policy':10} {'loops':7} {'kind':9} " + " ".join(f"{d:8}" for d in DELIVERIES)
    print(header, file=out)
    print("-" * len(header), file=out)
    for (key, kind), by_delivery in rows.items():
        if matrix.sample and all(c.status == "skip" for c in by_delivery.values()):
            continue
        fmt, schedule, policy, loops = key
        marks = []
        for delivery in DELIVERIES:
            cell = by_delivery.get(delivery)
            marks.append(f"{(cell.status if cell.status != 'skip' else '.') if cell else '?':8}")
        print(f"{fmt:6} {schedule:10} {policy:10} {loops:7} {kind:9} " + " ".join(marks), file=out)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gifx", default=".build/debug/gifx")
    parser.add_argument("--sample", action="store_true", help="make test's sample (every kind x delivery, the bug cells)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--json", help="write every cell's result here")
    parser.add_argument("--keep", help="keep the outputs in this folder")
    args = parser.parse_args()
    started = time.monotonic()
    for tool in ("ffprobe", "webpmux", "avifenc"):
        if shutil.which(tool) is None:
            print(f"conformance matrix: skipped: {tool} is missing (make deps installs it)")
            return 0
    try:
        import PIL  # noqa: F401
    except ImportError:
        print("conformance matrix: skipped: Pillow is missing (make deps installs it); it writes the WebP frames")
        return 0
    if not os.access(GIFXKIT, os.X_OK):
        print(f"conformance matrix: {GIFXKIT} is missing: run make library-usage first", file=sys.stderr)
        return 1
    registry = json.loads(run([args.gifx, "formats", "--json"]).stdout)
    work = args.keep or tempfile.mkdtemp(prefix="gifx-matrix-")
    os.makedirs(work, exist_ok=True)
    matrix = Matrix(os.path.abspath(args.gifx), os.path.abspath(work), registry, args.sample)
    try:
        problems = matrix.run(args.jobs)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print_table(matrix, sys.stdout)
    reasons = {}
    for cell in matrix.cells:
        if cell.status == "n/a":
            reasons[cell.reasons[0]] = reasons.get(cell.reasons[0], 0) + 1
    print("\nN/A cells, by reason:")
    for reason, count in sorted(reasons.items(), key=lambda item: -item[1]):
        print(f"  {count:4}  {reason}")
    for (schedule, fmt), why in fixtures.WHY_NOT.items():
        if fmt in matrix.inputs:
            print(f"  rows  {fmt} x {schedule}: {why}")
    failed = [c for c in matrix.cells if c.status == "FAIL"]
    if failed:
        print("\nFailures:")
        for cell in failed:
            print(f"  {cell.fixture.name} {cell.kind['name']} by {cell.delivery}: {'; '.join(cell.reasons)}")
    for problem in problems:
        print(f"FAIL: {problem}")
    if args.json:
        json.dump([{"input": c.fixture.format, "schedule": c.fixture.schedule, "policy": c.fixture.policy,
                    "loops": c.fixture.loops, "kind": c.kind["name"], "delivery": c.delivery, "status": c.status,
                    "reasons": c.reasons} for c in matrix.cells], open(args.json, "w"), indent=1)
    counts = {s: sum(1 for c in matrix.cells if c.status == s) for s in ("ok", "FAIL", "n/a")}
    print(f"\nconformance matrix{' (sample)' if args.sample else ''}: {counts['ok']} passed, {counts['FAIL']} failed, "
          f"{counts['n/a']} not applicable, {len(matrix.fixtures)} fixtures, {len(matrix.kinds)} kinds, "
          f"{len(DELIVERIES)} delivery paths, in {time.monotonic() - started:.0f} s")
    return 1 if failed or problems else 0


if __name__ == "__main__":
    sys.exit(main())
