"""Issue 39, part 2: does `gifx batch` scale with the cores? (`BENCH_KINDS=batch-scaling`, docs/batch-scaling.md)

- Scaling: `gifx batch to-sprite`, `to-mp4` and `convert --formats mp4,png,sheet` over COPIES
  (`BENCH_BATCH_COPIES`, 64) copies of the bench GIF 480x270x200, at `--jobs` 1, 2, 4, 8, 16 (those <= `--max-jobs`, default the cores), best of
  `reps`; wall and CPU time (user + system of the whole process tree) and the speed-up against `--jobs 1`
  and against `--jobs 1 -- --threads 1` (`--jobs 1` gives its one job every core, so its ratio is capped by
  what one conversion gains from threads).
  Goal (issue 39, on 16 cores): to-sprite >= 12x and to-mp4 >= 10x at 16 jobs.
- Workers against one process per input (`GIFX_BATCH_PROCESS_PER_INPUT=1`, the model before workers), at
  the largest job count: over the same 64 copies (where start-up is a few % of a conversion), and over the
  first SMALL (`BENCH_BATCH_SMALL`, 128) small GIFs of the batch bench (`make_gifs.build_batch`, 160x120
  to 240x135, 24 frames) for timeline, to-sprite and to-mp4 (where start-up is most of it).

Benchmarks/batch_scaling.sh measures the scaling table with nothing but bash, coreutils and python3 (for a
many-core machine without the toolchain). Standard library only.
"""

import os
import shutil

import make_gifs
import runner

COPIES = int(os.environ.get("BENCH_BATCH_COPIES", 64))
SMALL = int(os.environ.get("BENCH_BATCH_SMALL", 128))
JOB_COUNTS = [1, 2, 4, 8, 16]
SOURCE = "480x270x200"
COMMANDS = {
    "to-sprite": ["to-sprite"],
    "to-mp4": ["to-mp4"],
    "convert": ["convert", "--formats", "mp4,png,sheet"],
}
PER_INPUT = {"GIFX_BATCH_PROCESS_PER_INPUT": "1"}


def cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _copies(root, source, count):
    folder = os.path.join(root, "batch-scaling", "inputs")
    os.makedirs(folder, exist_ok=True)
    names = {f"c{i:03d}.gif" for i in range(count)}
    for stale in set(os.listdir(folder)) - names:
        os.remove(os.path.join(folder, stale))
    for i in range(count):
        path = os.path.join(folder, f"c{i:03d}.gif")
        if not os.path.exists(path) or os.path.getsize(path) != os.path.getsize(source):
            shutil.copyfile(source, path)
    return folder


def _small(root, count, log):
    """The first `count` GIFs of the batch bench, linked into a folder of their own."""
    source = make_gifs.build_batch(root, log=lambda m: log("  " + m))
    folder = os.path.join(root, "batch-scaling", f"small-{count}")
    os.makedirs(folder, exist_ok=True)
    for name in sorted(n for n in os.listdir(source) if n.endswith(".gif"))[:count]:
        target = os.path.join(folder, name)
        if not os.path.exists(target):
            os.link(os.path.join(source, name), target)
    return folder


def _best(gifx, command, inputs, jobs, reps, timeout, work, env=None, extra=()):
    """Best of `reps` runs (each into an empty out-dir); None with the error when a run fails."""
    best = None
    for _ in range(reps):
        out = os.path.join(work, "out")
        shutil.rmtree(out, ignore_errors=True)
        cmd = [gifx, "batch", command[0], inputs, *command[1:], "--out-dir", out, "--jobs", str(jobs),
               "--progress", "none", *extra]
        result = runner.run(cmd, timeout, env=env)
        if result.status != "ok":
            return None, (result.stderr_tail or result.status).strip().splitlines()[:1] or [result.status]
        if best is None or result.wall_s < best.wall_s:
            best = result
    shutil.rmtree(os.path.join(work, "out"), ignore_errors=True)
    return best, None


def run(gifx, root, gif_paths, max_jobs, reps, timeout, log):
    """The `batch_scaling` section of results.json."""
    if SOURCE not in gif_paths:
        gif_paths = {**gif_paths, **make_gifs.build_all(root, {SOURCE}, log=lambda m: log("  " + m))}
    inputs = _copies(root, gif_paths[SOURCE], COPIES)
    work = os.path.join(root, "out", "batch-scaling")
    os.makedirs(work, exist_ok=True)
    max_jobs = max_jobs or cores()
    counts = [j for j in JOB_COUNTS if j <= max_jobs] or [1]
    rows, failures = [], []
    for label, command in COMMANDS.items():
        base = None
        log(f"batch-scaling: {label} --jobs 1 -- --threads 1")
        single, error = _best(gifx, command, inputs, 1, reps, timeout, work, extra=("--", "--threads", "1"))
        if single is None:
            log(f"  FAILED: {error}")
            failures.append({"command": label, "jobs": 1, "error": error})
            continue
        one_thread = single.wall_s
        for jobs in counts:
            log(f"batch-scaling: {label} --jobs {jobs}")
            best, error = _best(gifx, command, inputs, jobs, reps, timeout, work)
            if best is None:
                log(f"  FAILED: {error}")
                failures.append({"command": label, "jobs": jobs, "error": error})
                break
            base = base or best.wall_s
            rows.append({"command": label, "jobs": jobs, "wall_s": round(best.wall_s, 3),
                         "cpu_s": round(best.cpu_s, 2), "speedup": round(base / best.wall_s, 2),
                         "one_thread_s": round(one_thread, 3), "vs_one_thread": round(one_thread / best.wall_s, 2)})
            log(f"  {label} jobs={jobs} wall={best.wall_s:.2f} speedup={base / best.wall_s:.2f} "
                f"vs1t={one_thread / best.wall_s:.2f}")
    comparison = []
    small = _small(root, SMALL, log)
    top = counts[-1]
    for label, command, folder, files in [
        ("to-sprite", COMMANDS["to-sprite"], inputs, COPIES),
        ("timeline", ["timeline"], small, SMALL),
        ("to-sprite", COMMANDS["to-sprite"], small, SMALL),
        ("to-mp4", COMMANDS["to-mp4"], small, SMALL),
    ]:
        arms = {}
        for arm, env in (("workers", None), ("process per input", PER_INPUT)):
            log(f"batch-scaling: {label} over {os.path.basename(folder)}, {arm}, --jobs {top}")
            best, error = _best(gifx, command, folder, top, reps, timeout, work, env)
            arms[arm] = None if best is None else {"wall_s": round(best.wall_s, 3), "cpu_s": round(best.cpu_s, 2)}
            if best is None:
                failures.append({"command": label, "jobs": top, "arm": arm, "error": error})
        comparison.append({"command": label, "inputs": "copies of " + SOURCE if folder == inputs else "small GIFs",
                           "files": files, "jobs": top, **arms})
    return {"copies": COPIES, "source": SOURCE, "reps": reps, "cores": cores(), "max_jobs": max_jobs,
            "rows": rows, "comparison": comparison, "failures": failures}


def report(section):
    if not section:
        return []
    out = [
        "## Batch scaling (issue 39)", "",
        f"`Benchmarks/batch_scaling_bench.py`: `gifx batch` over {section['copies']} copies of {section['source']}, "
        f"best of {section['reps']}, on {section['cores']} cores; speed-up against `--jobs 1` (whose one job "
        "gets every core as `--threads`, so its ratio is capped by what one conversion gains from threads), and "
        "against `--jobs 1 -- --threads 1` (one conversion at a time on one core: N jobs ideally N×). CPU: user + "
        "system of the batch and all its workers.", "",
        "| command | jobs | wall (s) | CPU (s) | speed-up vs --jobs 1 | vs one thread | vs one thread per job |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in section["rows"]:
        out.append(f"| {r['command']} | {r['jobs']} | {r['wall_s']:.2f} | {r['cpu_s']:.1f} | "
                   f"{r['speedup']:.2f}× | {r['vs_one_thread']:.2f}× | {r['vs_one_thread'] / r['jobs']:.2f} |")
    for f in section["failures"]:
        out.append(f"- {f['command']} at --jobs {f['jobs']}{' (' + f['arm'] + ')' if 'arm' in f else ''} failed: "
                   f"{' '.join(f['error'])}")
    out += ["", "Workers (one process per job, converting input after input) against one process per input "
            "(`GIFX_BATCH_PROCESS_PER_INPUT=1`), at the largest job count:", "",
            "| command | inputs | files | jobs | workers wall (s) | per input wall (s) | workers/per input |",
            "|---|---|---|---|---|---|---|"]
    for c in section["comparison"]:
        w, p = c.get("workers"), c.get("process per input")
        ratio = f"{w['wall_s'] / p['wall_s']:.2f}×" if w and p else "–"
        out.append(f"| {c['command']} | {c['inputs']} | {c['files']} | {c['jobs']} | "
                   f"{w['wall_s'] if w else '–'} | {p['wall_s'] if p else '–'} | {ratio} |")
    out.append("")
    return out


if __name__ == "__main__":
    import argparse
    import json
    import time
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--gifx", required=True)
    parser.add_argument("--root", default=".build-bench")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--max-jobs", type=int, default=0, help="largest --jobs measured (default: the cores)")
    parser.add_argument("--timeout", type=float, default=600)
    args = parser.parse_args()
    started = time.time()

    def log(message):
        print(f"[{time.time() - started:6.0f}s] {message}", flush=True)

    paths = make_gifs.build_all(args.root, {SOURCE}, log=lambda m: log("  " + m))
    result = run(args.gifx, args.root, paths, args.max_jobs, args.reps, args.timeout, log)
    with open(os.path.join(args.root, "batch-scaling.json"), "w") as f:
        json.dump(result, f, indent=1)
    print("\n".join(report(result)))
