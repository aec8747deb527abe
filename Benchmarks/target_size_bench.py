"""--target-size (issue 26) on the bench GIFs and Examples, against the ffmpeg CLI's own two-pass recipe run
the same way in the same run.

For each GIF: one plain `gifx to-mp4` (its bytes B and wall time: "one encode"), then `--target-size` at
caps of 0.5 B and 0.25 B (below what CRF 23 gives: the second-pass path) and 4 B (above: the best-quality
path), and the ffmpeg CLI's two-pass at the same cap (bitrate = cap × 8 / duration, `-pass 1` to /dev/null
then `-pass 2`, x264 medium, the GIF's own timing through `-vsync vfr`), the recipe ffmpeg's wiki gives for
a size. Reported: bytes / cap, whether it fits, and whether it is within [90 %, 100 %] or at the best
quality; encodes; wall / one encode. ImageMagick writes no video: no arm.

Usage: python3 Benchmarks/target_size_bench.py GIFX GIF... [--doc FILE]
"""

import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import machine  # noqa: E402
import runner  # noqa: E402

SHARES = [0.5, 0.25, 4.0]


def gifx_run(gifx, gif, out, extra):
    with tempfile.TemporaryFile("w+") as stats:
        result = runner.run([gifx, "to-mp4", gif, "-o", out, "--overwrite", "--quiet", "--stats", *extra], 600,
                            stdout=stats)
        stats.seek(0)
        text = stats.read()
    return result, (json.loads(text) if result.status == "ok" and text.strip() else None)


def ffmpeg_two_pass(gif, out, cap, seconds, folder):
    kbps = max(1, int(cap * 8 / seconds / 1000))
    log = os.path.join(folder, "ffmpeg2pass")
    common = ["ffmpeg", "-v", "error", "-y", "-i", gif, "-vsync", "vfr", "-c:v", "libx264", "-preset", "medium",
              "-b:v", f"{kbps}k", "-pix_fmt", "yuv420p", "-vf", "pad=ceil(iw/2)*2:ceil(ih/2)*2",
              "-passlogfile", log]
    first = runner.run(common + ["-pass", "1", "-f", "null", "/dev/null"], 600)
    second = runner.run(common + ["-pass", "2", out], 600)
    return first.wall_s + second.wall_s, (os.path.getsize(out) if second.status == "ok" else None)


def main(argv):
    doc = None
    if "--doc" in argv:
        i = argv.index("--doc")
        doc = argv[i + 1]
        argv = argv[:i] + argv[i + 2:]
    gifx, gifs = argv[0], argv[1:]
    rows = []
    misses = 0
    with tempfile.TemporaryDirectory() as folder:
        for gif in gifs:
            name = os.path.basename(gif)
            out = os.path.join(folder, "out.mp4")
            plain, stats = gifx_run(gifx, gif, out, [])
            if stats is None:
                print(f"{name}: plain run failed: {plain.stderr_tail}", file=sys.stderr)
                continue
            one_bytes, one_wall = os.path.getsize(out), plain.wall_s
            seconds = stats["durationSeconds"]
            for share in SHARES:
                cap = int(one_bytes * share)
                result, capped = gifx_run(gifx, gif, out, ["--target-size", str(cap)])
                if capped is None:
                    rows.append((name, share, cap, None, None, None, result.wall_s / one_wall, None, None,
                                 result.stderr_tail.strip()))
                    misses += 1
                    continue
                report = capped["targetSize"]
                got = os.path.getsize(out)
                ok = got <= cap and (got >= 0.9 * cap or report["bestQualityFitsBelow"])
                misses += 0 if ok else 1
                ff_wall, ff_bytes = ffmpeg_two_pass(gif, os.path.join(folder, "ff.mp4"), cap, seconds, folder)
                rows.append((name, share, cap, got, report["encodes"], report["bestQualityFitsBelow"],
                             result.wall_s / one_wall, ff_bytes, ff_wall / one_wall, "ok" if ok else "MISS"))
                print(f"{name} x{share}: {got}/{cap} ({got / cap:.3f}) encodes {report['encodes']} "
                      f"wall {result.wall_s / one_wall:.2f}x one encode; ffmpeg 2-pass {ff_bytes}/{cap} "
                      f"wall {ff_wall / one_wall:.2f}x", file=sys.stderr)
    lines = ["| GIF | cap (× CRF-23 size) | cap bytes | gifx bytes (share) | encodes | best quality below | "
             "gifx wall / one encode | ffmpeg 2-pass bytes (share) | ffmpeg wall / one gifx encode | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for name, share, cap, got, encodes, best, wall, ff_bytes, ff_wall, verdict in rows:
        got_text = f"{got} ({got / cap:.3f})" if got else "refused"
        ff_text = f"{ff_bytes} ({ff_bytes / cap:.3f})" if ff_bytes else "-"
        lines.append(f"| {name} | {share} | {cap} | {got_text} | {encodes or '-'} | {best if best is not None else '-'} "
                     f"| {wall:.2f} | {ff_text} | {ff_wall:.2f} | {verdict} |" if ff_wall else
                     f"| {name} | {share} | {cap} | {got_text} | - | - | {wall:.2f} | - | - | {verdict} |")
    table = "\n".join(lines)
    print(table)
    if doc:
        with open(doc, "w") as handle:
            handle.write("# --target-size, 2026-11-25\n\n")
            handle.write("`python3 Benchmarks/target_size_bench.py .build/release/gifx ...` "
                         "(docs/delivery.md explains the search).\n\n")
            handle.write(f"Machine: {json.dumps(machine.describe(gifx))}\n\n")
            handle.write(table + "\n")
    return 1 if misses else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
