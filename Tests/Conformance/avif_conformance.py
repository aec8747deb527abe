#!/usr/bin/env python3
"""AVIF conformance by hand (issue 59; docs/conformance.md, "AVIF in"): every .avif under a folder, read by gifx
against avifdec 0.11 (libavif-bin): the frame count and each frame's duration in the file's timescale (`avifdec
--info`), and the first 3 frames' RGBA pixels (`avifdec --index i -d 8`, compared by Pillow); where avifdec refuses a
file, gifx must refuse it in one line with exit 65. gifx's own refusals (HDR, BT.2020) are listed as such.

The sets are not fetched by CI (GitHub is not reachable there) and never committed: libavif's tests/data and
AOMediaCodec/av1-avif's testFiles, taken from a checkout (`git archive HEAD tests/data | tar -x -C DIR`).

Usage: python3 Tests/Conformance/avif_conformance.py .build/debug/gifx DIR
"""
import glob, json, os, re, subprocess, sys, tempfile
from PIL import Image
gifx, folder = sys.argv[1], sys.argv[2]
ok = bad = 0
for path in sorted(glob.glob(os.path.join(folder, "**", "*.avif"), recursive=True)):
    name = os.path.relpath(path, folder)
    info = subprocess.run(["avifdec", "--info", path], capture_output=True, text=True)
    t = subprocess.run([gifx, "timeline", path, "--json"], capture_output=True, text=True)
    if info.returncode != 0:
        lines = t.stderr.strip().splitlines()
        if t.returncode == 65 and len(lines) == 1:
            print(f"refused-both  {name}: {lines[0][:150]}"); ok += 1
        else:
            print(f"DIVERGE       {name}: avifdec refuses ({info.stdout.strip().splitlines()[-1:]}) gifx rc={t.returncode} {t.stderr.strip()[:200]}"); bad += 1
        continue
    durations = [int(d) for d in re.findall(r"\[duration [0-9.]+ \((\d+) timescales\)\]", info.stdout)]
    if t.returncode != 0:
        lines = t.stderr.strip().splitlines()
        print(f"{'refused-gifx' if t.returncode == 65 and len(lines) == 1 else 'FAIL'}  {name}: {t.stderr.strip()[:200]}")
        if t.returncode == 65 and len(lines) == 1: ok += 1
        else: bad += 1
        continue
    j = json.loads(t.stdout)
    frames = j["frames"]
    problems = []
    still = j["loop"]["count"] is None
    if still:
        # A still image: one frame shown as a still PNG is (avifdec lists it as 1 unit of 1/1 s).
        if len(frames) != 1 or len(durations) > 1:
            problems.append(f"{len(frames)} frames for a still, avifdec {len(durations)}")
    elif [f["rawDelay"] for f in frames] != durations:
        problems.append(f"durations {[f['rawDelay'] for f in frames]} vs {durations}")
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run([gifx, "frames", path, "--out", tmp + "/g", "--quiet"], capture_output=True, text=True)
        if r.returncode != 0:
            problems.append("frames: " + r.stderr.strip()[:150])
        else:
            for i in range(min(3, len(frames))):
                ref = f"{tmp}/r{i}.png"
                d = subprocess.run(["avifdec", "--index", str(i), "-d", "8", path, ref], capture_output=True, text=True)
                if d.returncode != 0:
                    # avifdec seeks (avifDecoderNthImage); gifx decodes in order: no oracle for this frame.
                    print(f"  note {name}: avifdec --index {i} fails; frame {i} not compared"); break
                a = Image.open(f"{tmp}/g/frame-{i:04d}.png").convert("RGBA"); b = Image.open(ref)
                if b.mode == "L" and "Range          : Limited" in info.stdout:
                    # avifdec writes an 8-bit 4:0:0 frame as its raw Y (apps/shared/avifpng.c, monochrome8bit), not
                    # through avifImageYUVToRGB: expand limited range as that function does, then compare.
                    lut = [min(255, max(0, round((y - 16) * 255 / 219))) for y in range(256)]
                    b = b.point(lut)
                    print(f"  note {name}: avifdec's gray PNG is the raw limited-range Y; compared with it expanded")
                b = b.convert("RGBA")
                if a.size != b.size or a.tobytes() != b.tobytes():
                    x, y = a.tobytes(), b.tobytes()
                    k = next((k for k in range(min(len(x), len(y))) if x[k] != y[k]), -1)
                    problems.append(f"frame {i} differs {a.size} {b.size} at byte {k}")
    if problems:
        print(f"MISMATCH      {name}: {'; '.join(problems)}"); bad += 1
    else:
        print(f"equal         {name}: {'still' if still else str(len(frames)) + ' frames'}, timescale {j.get('timescale')}, plays {j['loop']['plays']}"); ok += 1
print(f"{ok} agree, {bad} differ")
