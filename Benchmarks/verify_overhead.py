#!/usr/bin/env python3
"""What --verify costs: each conversion with and without --verify, alternately, on one GIF.

Usage: python3 Benchmarks/verify_overhead.py GIFX GIF [REPS]   (REPS default 7)
Prints a markdown table: median and range of wall and CPU (user + system) seconds and the peak RSS, for
to-mp4, to-sprite and convert (-o mp4 -o webp -o jpg --sheet), each run right after its --verify twin, and
the stand-alone `gifx verify` of the four outputs. GNU time (/usr/bin/time) measures; standard library only.
"""

import os
import statistics
import subprocess
import sys
import tempfile


def measure(command):
    """Wall s, CPU s, peak RSS KiB of one run (GNU time's -f on stderr's last line)."""
    run = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + command,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{run.stderr}")
    wall, user, system, rss = run.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss)


def main():
    gifx, gif = sys.argv[1], sys.argv[2]
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 7
    out = tempfile.mkdtemp(prefix="gifx-verify-bench-")
    p = lambda name: os.path.join(out, name)
    kinds = {
        "to-mp4": [gifx, "to-mp4", gif, "-o", p("a.mp4"), "--overwrite", "--quiet"],
        "to-sprite": [gifx, "to-sprite", gif, "-o", p("s.png"), "--overwrite", "--quiet"],
        "convert mp4+webp+jpg+sheet": [gifx, "convert", gif, "-o", p("c.mp4"), "-o", p("c.webp"), "-o", p("c.jpg"),
                                       "--sheet", p("cs.png"), "--overwrite", "--quiet"],
    }
    results = {}
    for _ in range(reps):
        for name, command in kinds.items():
            results.setdefault((name, False), []).append(measure(command))
            results.setdefault((name, True), []).append(measure(command + ["--verify"]))
        results.setdefault(("gifx verify (the four outputs)", None), []).append(
            measure([gifx, "verify", gif, p("c.mp4"), p("c.webp"), p("c.jpg"), p("cs.json"), "--quiet"]))

    def cell(values):
        return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"

    print(f"{gif}, {reps} alternating repetitions, load average at the end {os.getloadavg()[0]:.1f}\n")
    print("| run | wall s, median (range) | CPU s | peak RSS MiB | --verify wall / without | CPU / without |")
    print("|---|---|---|---|---|---|")
    for (name, verify), runs in results.items():
        walls, cpus, rss = [r[0] for r in runs], [r[1] for r in runs], max(r[2] for r in runs)
        ratio = ""
        if verify:
            base = results[(name, False)]
            ratio = (f"| {statistics.median(walls) / statistics.median([r[0] for r in base]):.2f}x "
                     f"| {statistics.median(cpus) / statistics.median([r[1] for r in base]):.2f}x")
        else:
            ratio = "| | "
        label = name + (" --verify" if verify else "")
        print(f"| {label} | {cell(walls)} | {cell(cpus)} | {rss / 1024:.0f} {ratio}|")


if __name__ == "__main__":
    main()
