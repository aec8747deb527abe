#!/usr/bin/env python3
"""Conformance of gifx's WebP and APNG input against the public test files (issue 35; `make conformance`).

For every animated WebP and APNG under FOLDER (fetched by Tests/Conformance/fetch.sh, never committed), under
both `--policy flanimated` and `--policy browser`:

- gifx converts it (`to-mp4`): exit 0 and an MP4 that ffprobe reads, or exit 65 with one line on stderr and no
  output where the file is broken on purpose (BROKEN below says which, and why);
- its frames (`gifx frames --out`, PNGs read back by Pillow) match the oracles: libwebp's WebPAnimDecoder
  (Benchmarks/webp_anim_decode.c, built here with cc against the system libwebp) byte for byte for WebP;
  FFmpeg's apng decoder (`ffmpeg -f rawvideo -pix_fmt rgba`) and Pillow for APNG, within the documented
  deviations of each (DEVIATIONS below, explained in docs/conformance.md);
- its schedule (`gifx timeline --json`) matches the delays the oracles read (WebPAnimDecoder's timestamps;
  Pillow's per-frame durations for APNG, cross-checked with ffprobe's packet durations) resolved by the
  players' rules of the issue's table: flanimated (YYImage) clamps below 11 ms to 100 ms and keeps fractions,
  browser (Chromium, Firefox) truncates APNG delays to whole ms and clamps 10 ms and less to 100 ms. The loop
  count matches WebPAnimDecoder's / Pillow's.

Prints a table (--markdown writes it for docs/conformance.md) and ends with "conformance: N passed, F failed".
Exit 1 if any file fails; 0 with "skipped" when FOLDER is missing. Standard library + Pillow, ffmpeg, cc.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS_SOURCE = os.path.join(HERE, "..", "..", "Benchmarks", "webp_anim_decode.c")
POLICIES = ("flanimated", "browser")

# Files broken on purpose, as their authors say (Pillow's test_file_apng.py). gifx must exit 0 keeping the
# frames that precede the damage (a warning naming the byte offset), or 65 with one line when nothing is left.
BROKEN = {
    "chunk_no_fctl.png": "fdAT with no fcTL before it (Pillow raises)",
    "chunk_repeat_fctl.png": "two fcTL for one frame (Pillow raises)",
    "chunk_no_fdat.png": "an fcTL with no image data after it",
    "sequence_start.png": "the first sequence number is not 0 (Pillow raises)",
    "sequence_gap.png": "a sequence number is missing (Pillow raises)",
    "sequence_repeat.png": "a sequence number repeats (Pillow raises)",
    "sequence_repeat_chunk.png": "a chunk repeats with its number (Pillow raises)",
    "sequence_reorder.png": "sequence numbers out of order (Pillow raises)",
    "sequence_reorder_chunk.png": "chunks out of order (Pillow raises)",
    "sequence_fdat_fctl.png": "an fcTL numbered where fdAT should be (Pillow raises)",
    "syntax_num_frames_zero.png": "acTL num_frames 0 and no default image shown (Pillow: no frame)",
    "syntax_num_frames_invalid.png": "acTL num_frames 0 with frames present",
}


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, **kw)


def build_harness(work):
    exe = os.path.join(work, "webp_anim_decode")
    p = run(["cc", "-O2", "-o", exe, HARNESS_SOURCE, "-lwebpdemux", "-lwebp"])
    if p.returncode != 0:
        sys.exit("conformance: cannot build the WebPAnimDecoder harness: " + p.stderr.decode()[-300:])
    return exe


def sniff(path):
    with open(path, "rb") as f:
        head = f.read(12)
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:8] == b"\x89PNG\r\n\x1a\n":
        return "apng"
    return None


def png_chunks(path):
    """(type, data) of every chunk, by the length fields alone (the oracle's own walk, no CRC check)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, chunks = 8, []
    while pos + 8 <= len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        chunks.append((data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return chunks


def gifx_frames(gifx, path, work):
    """gifx's composited canvases (RGBA bytes each) from `gifx frames --out`, with exit code and stderr."""
    from PIL import Image
    out = os.path.join(work, "frames")
    shutil.rmtree(out, ignore_errors=True)
    p = run([gifx, "frames", path, "--out", out])
    canvases = []
    if p.returncode == 0:
        for name in sorted(os.listdir(out)):
            with Image.open(os.path.join(out, name)) as im:
                canvases.append(im.convert("RGBA").tobytes())
    return p.returncode, p.stderr.decode(errors="replace").strip(), canvases


def gifx_schedule(gifx, path, policy):
    p = run([gifx, "timeline", path, "--json", "--policy", policy])
    if p.returncode != 0:
        return p.returncode, p.stderr.decode(errors="replace").strip(), None
    doc = json.loads(p.stdout)
    scale = doc.get("timescale", 100)
    return 0, "", {
        "delays_ms": [f["delay"] * 1000 / scale for f in doc["frames"]],
        "loop": doc["loop"]["count"], "plays": doc["loop"]["plays"],
    }


def gifx_mp4(gifx, path, policy, work):
    out = os.path.join(work, f"{policy}.mp4")
    if os.path.exists(out):
        os.remove(out)
    p = run([gifx, "to-mp4", path, "-o", out, "--policy", policy, "--quiet"])
    err = p.stderr.decode(errors="replace").strip()
    result = {"exit": p.returncode, "stderr": err, "exists": os.path.exists(out)}
    if p.returncode == 0 and result["exists"]:
        q = run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v:0", "-show_entries",
                 "stream=nb_read_packets:format=duration", "-of", "json", out])
        try:
            doc = json.loads(q.stdout)
            result["packets"] = int(doc["streams"][0]["nb_read_packets"])
            result["duration"] = float(doc["format"]["duration"])
        except (ValueError, KeyError, IndexError):
            result["ffprobe"] = q.stderr.decode(errors="replace").strip()[:200]
    return result


def webp_oracle(harness, path, work):
    dump = os.path.join(work, "oracle.rgba")
    p = run([harness, "--dump", dump, path])
    if p.returncode != 0:
        return {"error": p.stderr.decode().strip()}
    info = json.loads(p.stdout)
    size = info["width"] * info["height"] * 4
    with open(dump, "rb") as f:
        raw = f.read()
    canvases = [raw[i:i + size] for i in range(0, len(raw), size)]
    ts = info["timestamps"]
    return {"canvases": canvases, "durations_ms": [b - a for a, b in zip([0] + ts[:-1], ts)],
            "loop": info["loop"], "size": (info["width"], info["height"])}


def ffmpeg_oracle(path, width, height):
    p = run(["ffmpeg", "-nostdin", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgba",
             "-fps_mode", "passthrough", "-"])
    size = width * height * 4
    frames = [p.stdout[i:i + size] for i in range(0, len(p.stdout) - size + 1, size)]
    q = run(["ffprobe", "-v", "error", "-show_entries", "packet=duration_time", "-of", "csv=p=0", path])
    durations = []
    for line in q.stdout.decode().split():
        try:
            durations.append(float(line.strip(",")) * 1000)
        except ValueError:
            pass
    return {"canvases": frames, "durations_ms": durations, "exit": p.returncode,
            "stderr": p.stderr.decode(errors="replace").strip()[:200]}


def pillow_oracle(path):
    from PIL import Image
    try:
        with Image.open(path) as im:
            n = getattr(im, "n_frames", 1)
            default = bool(im.info.get("default_image"))
            animated = bool(getattr(im, "is_animated", False))
            loop = im.info.get("loop")
            canvases, durations = [], []
            for i in range(n):
                im.seek(i)
                canvases.append(im.convert("RGBA").tobytes())
                durations.append(im.info.get("duration"))
    except Exception as e:  # Pillow refuses the file: the reason is the result
        return {"error": f"{type(e).__name__}: {e}"}
    if default and n > 1:  # Pillow shows the hidden default image as frame 0; gifx and FFmpeg do not
        canvases, durations = canvases[1:], durations[1:]
    return {"canvases": canvases, "durations_ms": durations, "loop": loop, "default_image": default,
            "animated": animated}


def expected_delay(raw_ms, policy, fmt):
    """The issue's table: flanimated = YYImage (< 11 ms -> 100, fractions kept); browser = Chromium/Firefox
    (APNG truncated to whole ms; <= 10 ms -> 100)."""
    if policy == "flanimated":
        return 100.0 if raw_ms < 11 - 1e-9 else raw_ms
    ms = math.floor(raw_ms + 1e-9) if fmt == "apng" else raw_ms
    return 100.0 if ms <= 10 else float(ms)


def compare_pixels(ours, theirs, visible_only=False, ffmpeg_black_clear=False):
    """(frames compared, largest channel difference over compared pixels, first differing (frame, pixel))."""
    worst, first = 0, None
    for f, (a, b) in enumerate(zip(ours, theirs)):
        if a == b:
            continue
        if len(a) != len(b):
            return f, 255, (f, -1)
        for i in range(0, len(a), 4):
            pa, pb = a[i:i + 4], b[i:i + 4]
            if pa == pb:
                continue
            if visible_only and pa[3] == 0 and pb[3] == 0:
                continue
            if ffmpeg_black_clear and pa[3] == 0 and pb == b"\x00\x00\x00\xff":
                continue
            d = max(abs(x - y) for x, y in zip(pa, pb))
            if d > worst:
                worst = d
                if first is None:
                    first = (f, i // 4, list(pa), list(pb))
    return min(len(ours), len(theirs)), worst, first


def check_file(rel, path, gifx, harness, work):
    fmt = sniff(path)
    name = os.path.basename(path)
    row = {"file": rel, "format": fmt, "problems": [], "notes": []}
    problems, notes = row["problems"], row["notes"]
    broken = BROKEN.get(name)
    row["broken"] = broken

    code, err, ours = gifx_frames(gifx, path, work)
    row["frames_exit"] = code
    warnings = [line for line in err.splitlines() if "warning" in line]
    if code not in (0, 65):
        problems.append(f"gifx frames exit {code}: {err[:200]}")
    if code == 65 and len(err.splitlines()) != 1:
        problems.append(f"exit 65 with {len(err.splitlines())} lines on stderr")
    row["gifx_frames"] = len(ours)
    if warnings:
        row["warning"] = warnings[0].split(": warning: ", 1)[-1]
    if code == 65:
        row["refusal"] = err.split(": ", 1)[-1]
        if not broken:
            problems.append("refused a file that is not broken on purpose: " + err)

    # Conversion under both policies.
    row["mp4"] = {}
    for policy in POLICIES:
        mp4 = gifx_mp4(gifx, path, policy, work)
        row["mp4"][policy] = mp4["exit"]
        if mp4["exit"] not in (0, 65):
            problems.append(f"to-mp4 --policy {policy}: exit {mp4['exit']}: {mp4['stderr'][:200]}")
        elif mp4["exit"] == 65:
            if len(mp4["stderr"].splitlines()) != 1 or mp4["exists"]:
                problems.append(f"to-mp4 --policy {policy}: exit 65 must be one line and no output")
            if not broken:
                problems.append(f"to-mp4 --policy {policy} refused: {mp4['stderr']}")
        elif mp4.get("packets", 0) < 1:
            problems.append(f"to-mp4 --policy {policy}: ffprobe cannot read the MP4: {mp4.get('ffprobe')}")
        if mp4["exit"] != code:
            problems.append(f"to-mp4 --policy {policy} exit {mp4['exit']} but frames exit {code}")

    schedules = {}
    for policy in POLICIES:
        scode, serr, schedule = gifx_schedule(gifx, path, policy)
        if scode != code:
            problems.append(f"timeline --policy {policy} exit {scode}, frames exit {code}: {serr[:200]}")
        schedules[policy] = schedule
    if code != 0:
        return row

    if fmt == "webp":
        oracle = webp_oracle(harness, path, work)
        if "error" in oracle:
            row["oracle"] = oracle["error"]
            notes.append("WebPAnimDecoder refuses it: " + oracle["error"])
            return row
        row["oracle_frames"] = f"WebPAnimDecoder {len(oracle['canvases'])}"
        if len(oracle["canvases"]) != len(ours):
            problems.append(f"{len(ours)} frames, WebPAnimDecoder {len(oracle['canvases'])}")
        if [c for c in ours] != oracle["canvases"][:len(ours)]:
            _, worst, first = compare_pixels(ours, oracle["canvases"])
            problems.append(f"canvases differ from WebPAnimDecoder (max {worst}, first {first})")
        else:
            row["pixels"] = "byte for byte (WebPAnimDecoder)"
        raw = oracle["durations_ms"]
        loop = oracle["loop"]
        loop_source = "WebPAnimDecoder"
    else:
        with open(path, "rb") as f:
            head = f.read(24)
        width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
        ff = ffmpeg_oracle(path, width, height)
        pil = pillow_oracle(path)
        chunks = png_chunks(path)
        depth, colour = (chunks[0][1][8], chunks[0][1][9]) if chunks and chunks[0][0] == b"IHDR" else (8, 6)
        row["oracle_frames"] = f"FFmpeg {len(ff['canvases'])}, Pillow {len(pil.get('canvases', [])) if 'error' not in pil else 'refuses'}"
        actl = [int.from_bytes(d[:4], "big") for t, d in chunks if t == b"acTL"]
        if len(ff["canvases"]) != len(ours):
            notes.append(f"FFmpeg shows {len(ff['canvases'])} frames")
            # A file broken on purpose: gifx keeps the frames before the damage (compared below); FFmpeg
            # does not check sequence numbers and shows them all.
            if not ff["canvases"] and ff["exit"] != 0:
                # FFmpeg 5.1 refuses an fcTL before the acTL ("Invalid data"); Pillow judges the count.
                notes.append("FFmpeg refuses the file: " + ff["stderr"][-80:])
            elif depth == 16 and len(ff["canvases"]) < len(ours):
                # FFmpeg 5.1 cannot blend rgba64 ("Blending with pixel format rgba64be is not implemented")
                # and drops those frames; Pillow judges the count.
                notes.append("FFmpeg cannot blend 16-bit frames (drops them)")
            elif not broken:
                problems.append(f"{len(ours)} frames, FFmpeg {len(ff['canvases'])}")
        # FFmpeg's known deviations (docs/conformance.md): it composites 16-bit input at 8 bits after
        # rounding (gifx and Chromium keep the high byte: +-1), and clears to opaque black where the
        # file has no alpha channel. Pillow's: OVER as a masked paste, PREVIOUS restoring another canvas.
        # So gifx must match FFmpeg (within those); where it does not, Pillow must match (within 1).
        tolerance = 1 if depth == 16 else 0
        _, worst, first = compare_pixels(ours, ff["canvases"], visible_only=True, ffmpeg_black_clear=True)
        ff_pixels = "refuses" if not ff["canvases"] else "exact" if worst == 0 else f"within {worst}" if worst <= tolerance else f"differs by {worst}"
        if "error" in pil:
            notes.append("Pillow refuses it: " + pil["error"][:120])
            pil_pixels, pworst = "refuses", None
        else:
            if len(pil["canvases"]) != len(ours):
                if len(ours) == len(ff["canvases"]) and actl and len(pil["canvases"]) == actl[0]:
                    # Pillow stops at acTL's num_frames; FFmpeg (and Chromium) show the frames present.
                    notes.append(f"Pillow stops at acTL num_frames {actl[0]}; FFmpeg and gifx show {len(ours)}")
                elif not broken:
                    problems.append(f"{len(ours)} frames, Pillow {len(pil['canvases'])} (without a hidden default image)")
            _, pworst, pfirst = compare_pixels(ours, pil["canvases"], visible_only=True)
            pil_pixels = "exact" if pworst == 0 else f"within {pworst}" if pworst <= 1 else f"differs by {pworst}"
        if worst > tolerance:
            if pworst is None or pworst > 1:
                problems.append(f"pixels differ from FFmpeg by up to {worst} (first: frame, pixel, gifx, ffmpeg {first})")
            else:
                notes.append(f"FFmpeg differs (first: frame, pixel, gifx, ffmpeg {first})")
        elif pworst is not None and pworst > 1:
            notes.append(f"Pillow differs (first: frame, pixel, gifx, Pillow {pfirst})")
        row["pixels"] = f"FFmpeg {ff_pixels}; Pillow {pil_pixels}"
        if "error" not in pil and not pil["animated"]:
            notes.append("a still PNG to Pillow (is_animated False): one frame, its delay is gifx's still delay")
            raw, loop, loop_source = None, None, None
        elif "error" in pil:
            notes.append("no timing oracle (Pillow refuses it)")
            raw, loop, loop_source = None, None, None
        elif len(pil["durations_ms"]) != len(ours):
            notes.append("timing from FFmpeg's packets (Pillow shows another frame count)")
            raw, loop, loop_source = ff["durations_ms"], pil["loop"], "Pillow"
        else:
            raw = pil["durations_ms"]
            loop, loop_source = pil["loop"], "Pillow"
            # Cross-check Pillow's durations against FFmpeg's packets (FFmpeg: num 0 -> 1/15 s).
            fcTL_nums = [int.from_bytes(d[20:22], "big") for t, d in chunks if t == b"fcTL"]
            for i, (a, b) in enumerate(zip(raw, ff["durations_ms"])):
                if i < len(fcTL_nums) and fcTL_nums[-len(raw):][i] == 0 and abs(b - 1000 / 15) < 0.01:
                    continue
                if abs(a - b) > 0.01:
                    notes.append(f"frame {i}: Pillow {a:g} ms, FFmpeg {b:g} ms")
                    break
    row["raw_ms"] = raw
    for policy in POLICIES if raw is not None else ():
        schedule = schedules[policy]
        if schedule is None:
            continue
        want = [expected_delay(r, policy, fmt) for r in raw]
        got = schedule["delays_ms"]
        if len(got) != len(want) or any(abs(a - b) > 1e-6 for a, b in zip(got, want)):
            problems.append(f"--policy {policy}: delays {[round(g, 3) for g in got]} ms, players {want}")
        if loop is not None and schedule["loop"] != loop:
            problems.append(f"--policy {policy}: loop {schedule['loop']}, {loop_source} {loop}")
    row["delays"] = {p: schedules[p]["delays_ms"] for p in POLICIES if schedules[p] and raw is not None}
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", nargs="?", default=".build/conformance")
    ap.add_argument("--gifx", default=".build/debug/gifx")
    ap.add_argument("--markdown", help="write the per-file table here")
    ap.add_argument("--json", help="write every row here")
    args = ap.parse_args()
    if not os.path.isdir(args.folder):
        print(f"conformance: skipped: {args.folder} is missing (make conformance-fetch fetches it)")
        return 0
    try:
        import PIL  # noqa: F401
    except ImportError:
        sys.exit("conformance: Pillow is missing (make deps installs it)")
    files = []
    for root, _, names in os.walk(args.folder):
        if os.sep + "download" in root:
            continue
        for name in sorted(names):
            path = os.path.join(root, name)
            if not name.startswith(".") and sniff(path):
                files.append(path)
    files.sort()
    work = tempfile.mkdtemp(prefix="gifx-conformance-")
    try:
        harness = build_harness(work)
        rows = []
        for path in files:
            rel = os.path.relpath(path, args.folder)
            row = check_file(rel, path, args.gifx, harness, work)
            rows.append(row)
            status = "FAIL" if row["problems"] else "ok"
            print(f"{status:4} {rel}: gifx {row['gifx_frames']} frames (exit {row['frames_exit']})"
                  + (f"; {row['oracle_frames']}" if row.get("oracle_frames") else "")
                  + "".join(f"\n     problem: {p}" for p in row["problems"])
                  + "".join(f"\n     note: {n}" for n in row["notes"]), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    failed = sum(1 for r in rows if r["problems"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        write_markdown(rows, args.markdown)
    print(f"conformance: {len(rows) - failed} passed, {failed} failed")
    return 1 if failed else 0


def write_markdown(rows, path):
    lines = ["| file | gifx frames | to-mp4 exit (flanimated, browser) | oracle frames | pixels | "
             "delays ms (flanimated / browser) | result |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        d = r.get("delays", {})
        fl, br = d.get("flanimated"), d.get("browser")

        def fmt(x):
            if x is None:
                return "–"
            s = ",".join(f"{v:g}" for v in x[:6]) + ("…" if len(x) > 6 else "")
            return s
        delays = "–" if fl is None else (fmt(fl) if fl == br else f"{fmt(fl)} / {fmt(br)}")
        what = r.get("refusal") or r.get("warning") or ""
        result = ("FAIL: " + "; ".join(r["problems"])) if r["problems"] else "ok"
        if r.get("broken"):
            result += f" (broken on purpose: {r['broken']}" + (f"; gifx: {what}" if what else "") + ")"
        elif what:
            result += f" (gifx: {what})"
        if r["notes"]:
            result += "; " + "; ".join(r["notes"])
        lines.append(f"| {r['file'].split('Tests/images/')[-1]} | {r['gifx_frames']} | "
                     f"{r['mp4'].get('flanimated')}, {r['mp4'].get('browser')} | {r.get('oracle_frames', '–')} | "
                     f"{r.get('pixels', '–')} | {delays} | {result.replace('|', '/')} |")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
