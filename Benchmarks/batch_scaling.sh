#!/usr/bin/env bash
# Batch scaling (issue 39, part 2): `gifx batch` over COPIES copies of one GIF at several --jobs, best of
# REPS, and the speed-up of each against the first job count given (normally 1).
#
# Usage: Benchmarks/batch_scaling.sh GIFX INPUT_GIF OUTDIR JOBS...
#   e.g. Benchmarks/batch_scaling.sh .build-release/release/gifx 480x270x200.gif /tmp/scaling 1 2 4 8 16
# Environment: COPIES (64), REPS (3), COMMANDS ("to-sprite to-mp4 convert"), CONVERT_FORMATS (mp4,png,sheet),
#   EXTRA (more batch options, e.g. "--timeout 60").
# Needs bash, coreutils and python3 only (no ffmpeg, no Swift toolchain). A command that fails (to-mp4 where
# libav* is absent, say) is reported on one FAILED line with its first error, and the script goes on.
# First, per command, `--jobs 1 -- --threads 1` (one conversion at a time on one thread): `--jobs 1` alone gives
# its one job every core, so its speed-up is capped by what one conversion gains from threads; vs1t is the
# speed-up against one thread, i.e. how near N jobs come to N times one core (ONE_THREAD=0 skips it).
# Prints one line per run, e.g. `to-sprite jobs=16 wall=2.08 speedup=6.4 vs1t=11.9 cpu=28.1`, and writes them as
# JSON lines to OUTDIR/batch-scaling.jsonl. cpu is the children's user+system seconds of the best run.
set -uo pipefail

if [ "$#" -lt 4 ]; then
    echo "usage: $0 GIFX INPUT_GIF OUTDIR JOBS..." >&2
    exit 64
fi
gifx=$(readlink -f "$1") input=$(readlink -f "$2") outdir=$3
shift 3
jobs_list=("$@")
copies=${COPIES:-64} reps=${REPS:-3}
commands=${COMMANDS:-"to-sprite to-mp4 convert"}
formats=${CONVERT_FORMATS:-mp4,png,sheet}

[ -x "$gifx" ] || { echo "batch_scaling: $gifx is not an executable" >&2; exit 66; }
[ -f "$input" ] || { echo "batch_scaling: $input is not a file" >&2; exit 66; }
mkdir -p "$outdir/inputs" || exit 73
outdir=$(readlink -f "$outdir")
for ((i = 0; i < copies; i++)); do
    name=$(printf '%s/inputs/c%03d.gif' "$outdir" "$i")
    [ -f "$name" ] || cp "$input" "$name"
done
results="$outdir/batch-scaling.jsonl"
: >"$results"
echo "machine: $(nproc) cores; $("$gifx" --version 2>&1 | head -1); $copies copies of $(basename "$input"), best of $reps"

# One timed run: wall seconds and the children's CPU seconds, measured by python3 around the batch.
timed() {
    python3 - "$@" <<'PY'
import resource, subprocess, sys, time
before = resource.getrusage(resource.RUSAGE_CHILDREN)
start = time.perf_counter()
with open(sys.argv[1], "wb") as err:
    code = subprocess.run(sys.argv[2:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err).returncode
wall = time.perf_counter() - start
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
print(f"{code} {wall:.3f} {cpu:.2f}")
PY
}

status=0
for command in $commands; do
    base_wall="" one_thread=""
    runs=("${jobs_list[@]}")
    [ "${ONE_THREAD:-1}" = 1 ] && runs=(1t1 "${runs[@]}")
    for run in "${runs[@]}"; do
        jobs=${run%t1}
        best="" best_cpu="" failed=""
        for ((rep = 0; rep < reps; rep++)); do
            out="$outdir/out-$command"
            rm -rf "$out"
            args=(batch "$command" "$outdir/inputs" --out-dir "$out" --jobs "$jobs" --progress none)
            [ "$command" = convert ] && args+=(--formats "$formats")
            # shellcheck disable=SC2206
            [ -n "${EXTRA:-}" ] && args+=($EXTRA)
            [ "$run" = 1t1 ] && args+=(-- --threads 1)
            read -r code wall cpu < <(timed "$outdir/stderr.txt" "$gifx" "${args[@]}")
            if [ "$code" != 0 ]; then
                failed="exit $code: $(grep -m1 -v '^$' "$outdir/stderr.txt" || echo 'no message')"
                break
            fi
            if [ -z "$best" ] || python3 -c "import sys; sys.exit(not float('$wall') < float('$best'))"; then
                best=$wall best_cpu=$cpu
            fi
        done
        if [ -n "$failed" ]; then
            echo "$command jobs=$jobs FAILED ($failed)"
            printf '{"command":"%s","jobs":%s,"failed":%s}\n' "$command" "$jobs" \
                "$(python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$failed")" >>"$results"
            status=1
            break  # the other job counts of this command would fail the same way
        fi
        if [ "$run" = 1t1 ]; then
            one_thread=$best
            echo "$command jobs=1 threads=1 wall=$best cpu=$best_cpu"
            printf '{"command":"%s","jobs":1,"threads":1,"wall_s":%s,"cpu_s":%s,"copies":%s}\n' \
                "$command" "$best" "$best_cpu" "$copies" >>"$results"
            continue
        fi
        [ -z "$base_wall" ] && base_wall=$best
        speedup=$(python3 -c "print(f'{$base_wall / $best:.1f}')")
        vs1t=$([ -n "$one_thread" ] && python3 -c "print(f'{$one_thread / $best:.1f}')" || echo null)
        echo "$command jobs=$jobs wall=$best speedup=$speedup vs1t=$vs1t cpu=$best_cpu"
        printf '{"command":"%s","jobs":%s,"wall_s":%s,"cpu_s":%s,"speedup":%s,"vs_one_thread":%s,"copies":%s}\n' \
            "$command" "$jobs" "$best" "$best_cpu" "$speedup" "$vs1t" "$copies" >>"$results"
    done
done
rm -rf "$outdir"/out-*
exit $status
