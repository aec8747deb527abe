#!/usr/bin/env python3
"""The checks of `make slurm-check` after the array and the resubmitted task (see slurm-check.sh).
    slurm_verify.py MANIFEST LIBRARY OUT_MP4 REPORTS TASK_STATES LINES_AFTER_CANCEL RESUBMIT_STATE T0 T1 T2 T3
Prints what it checked and the timing table; exits 1 at the first failure."""
import json, os, subprocess, sys

(manifest_path, library, out_mp4, reports_dir, states_path, lines_after_cancel, resubmit_state,
 t0, t1, t2, t3) = sys.argv[1:12]
lines_after_cancel = int(lines_after_cancel)
t0, t1, t2, t3 = (float(t) for t in (t0, t1, t2, t3))
manifest = json.load(open(manifest_path))
shards, slow, inputs = manifest["shards"], manifest["slow"], manifest["inputs"]


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def ok(message):
    print(f"ok: {message}")


full = {os.path.join(library, rel): rel for rel in inputs}
clean = {rel for rel, v in inputs.items() if not v["damaged"]}
damaged = {rel for rel, v in inputs.items() if v["damaged"]}

# The library is untouched: exactly the files written, nothing added beside them.
found = {os.path.relpath(os.path.join(d, f), library) for d, _, fs in os.walk(library) for f in fs}
if found != set(inputs):
    fail(f"the library changed: extra {sorted(found - set(inputs))[:5]}, missing {sorted(set(inputs) - found)[:5]}")

# Reports: one per task; each holds exactly its shard's inputs; together exactly the input list.
last = {}
seen_in = {}
per_task_lines = {}
for k in range(shards):
    path = os.path.join(reports_dir, f"to-mp4-{k}.jsonl")
    if not os.path.exists(path):
        fail(f"no report for task {k} ({path})")
    lines = [json.loads(line) for line in open(path) if line.strip()]
    per_task_lines[k] = lines
    names = set()
    for line in lines:
        rel = full.get(line["input"])
        if rel is None:
            fail(f"{path}: {line['input']} is not an input")
        names.add(rel)
        last[rel] = line
    expected = {rel for rel, v in inputs.items() if v["shard"] == k}
    if names != expected:
        fail(f"task {k}'s report has {len(names)} inputs, its shard {len(expected)}: "
             f"extra {sorted(names - expected)[:3]}, missing {sorted(expected - names)[:3]}")
    for rel in names:
        if rel in seen_in:
            fail(f"{rel} is in the reports of tasks {seen_in[rel]} and {k}")
        seen_in[rel] = k
if set(last) != set(inputs):
    fail(f"the union of the reports is not the input list: missing {sorted(set(inputs) - set(last))[:5]}")
ok(f"{shards} reports, each exactly its shard's inputs (FNV-1a-64 mod {shards}, computed independently); "
   f"their union is the {len(inputs)} inputs, none in two reports")

# Damaged: failed, class malformed, no output. Clean: ok or skipped.
for rel in sorted(damaged):
    line = last[rel]
    if line["status"] != "failed" or line.get("exitClass") != "malformed" or line.get("exitCode") != 65:
        fail(f"damaged {rel} ({inputs[rel]['damaged']}): reported {line['status']}/{line.get('exitClass')}/{line.get('exitCode')}")
for rel in sorted(clean):
    if last[rel]["status"] not in ("ok", "skipped"):
        fail(f"clean {rel}: reported {last[rel]['status']}: {last[rel].get('error')}")
kinds = sorted({inputs[rel]["damaged"] for rel in damaged})
ok(f"{len(damaged)} damaged inputs ({', '.join(kinds)}) reported status failed, exitClass malformed, exitCode 65")

# Outputs: exactly one MP4 per clean input and nothing else (no temporary file, no output for a damaged one),
# each complete: ffprobe reads an H.264 stream lasting what the GIF's delays add up to.
files = {os.path.relpath(os.path.join(d, f), out_mp4) for d, _, fs in os.walk(out_mp4) for f in fs}
expected = {os.path.splitext(rel)[0] + ".mp4" for rel in clean}
temporary = sorted(f for f in files if ".gifx-" in os.path.basename(f) or os.path.basename(f).startswith("."))
if temporary:
    fail(f"temporary files left: {temporary[:5]}")
if files != expected:
    fail(f"outputs: extra {sorted(files - expected)[:5]}, missing {sorted(expected - files)[:5]}")
worst = 0.0
for rel in sorted(clean):
    path = os.path.join(out_mp4, os.path.splitext(rel)[0] + ".mp4")
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=codec_name:format=duration", "-of", "json", path], capture_output=True, text=True)
    if probe.returncode != 0:
        fail(f"{path}: ffprobe: {probe.stderr.strip()}")
    info = json.loads(probe.stdout)
    seconds = inputs[rel]["centiseconds"] / 100
    duration = float(info["format"]["duration"])
    if [s["codec_name"] for s in info["streams"]] != ["h264"] or abs(duration - seconds) > 0.011:
        fail(f"{path}: {info}, the GIF lasts {seconds:.2f} s")
    worst = max(worst, abs(duration - seconds))
ok(f"{len(clean)} clean inputs: exactly one MP4 each, H.264, duration = the GIF's within {worst * 1000:.1f} ms "
   f"(ffprobe); no other file under the output folder, no temporary file")

# The cancelled task stopped midway; its resubmission finished it, skipping what was done.
lines5 = per_task_lines[slow]
n5 = sum(1 for v in inputs.values() if v["shard"] == slow)
before, after = lines5[:lines_after_cancel], lines5[lines_after_cancel:]
if not 0 < len(before) < n5:
    fail(f"task {slow} had {len(before)} of {n5} report lines when cancelled: not midway")
done_before = {full[l["input"]] for l in before if l["status"] == "ok"}
after_status = {full[l["input"]]: l["status"] for l in after}
if set(after_status) != {rel for rel, v in inputs.items() if v["shard"] == slow}:
    fail(f"the resubmitted task {slow} did not report every input of its shard once")
not_skipped = sorted(rel for rel in done_before if after_status[rel] != "skipped")
if not_skipped:
    fail(f"the resubmission converted again what the cancelled task had finished: {not_skipped[:3]}")
converted_after = sum(1 for s in after_status.values() if s == "ok")
ok(f"task {slow} cancelled after {len(before)} of its {n5} inputs ({len(done_before)} ok); the resubmission "
   f"skipped those {len(done_before)} and converted the other {converted_after}")

# Task states: COMPLETED when the shard is clean, FAILED with exit 1 when it holds damaged inputs.
states = {}
for line in open(states_path):
    words = line.split()
    if words[0] == "task":
        states[int(words[1])] = (words[2], words[4])
for k in range(shards):
    if k == slow:
        want = ("CANCELLED",)
    elif any(v["shard"] == k and v["damaged"] for v in inputs.values()):
        want = ("FAILED", "1:0")
    else:
        want = ("COMPLETED", "0:0")
    if states.get(k, ("?", "?"))[:len(want)] != want:
        fail(f"task {k}: {states.get(k)}, expected {want}")
if resubmit_state != "COMPLETED":
    fail(f"the resubmitted task {slow} ended {resubmit_state}")
failed_tasks = sorted(k for k, s in states.items() if s[0] == "FAILED")
ok(f"task states as the shards predict: {len(failed_tasks)} FAILED with exit 1 (tasks {failed_tasks}: damaged inputs), "
   f"task {slow} CANCELLED, the rest COMPLETED; the resubmitted task COMPLETED")

first_run = sum(len(per_task_lines[k]) for k in range(shards) if k != slow) + len(before)
print()
print("| run | tasks | GIFs | wall (s) |")
print("|---|---:|---:|---:|")
print(f"| `sbatch` array 0-15%8 (task {slow} cancelled midway) | {shards} | {first_run} reported "
      f"({first_run - len(before)} + {len(before)} before the cancel) | {t1 - t0:.1f} |")
print(f"| resubmitted task {slow} | 1 | {n5} ({len(done_before)} skipped, {converted_after} converted) | {t3 - t2:.1f} |")
print(f"| total | {shards + 1} | {len(inputs)} ({len(clean)} MP4s, {len(damaged)} malformed) | {t1 - t0 + t3 - t2:.1f} |")
