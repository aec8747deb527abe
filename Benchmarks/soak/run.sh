#!/usr/bin/env bash
# Soak test of `gifx batch to-mp4` (issue 17, "Done when"): 10,000 generated GIFs (about 1 % damaged,
# 3 hang-prone with 200,000 frames, 3 memory-hungry 12000x12000 canvases), run with
# --jobs 2 --timeout 20 --max-memory 512M, killed with SIGKILL at KILLS random moments and rerun each time
# until a run exits by itself; then verify.py checks every output with ffprobe and every report line.
# Odd-numbered kills hit the batch alone (its children then get SIGTERM from the kernel and clean up);
# even-numbered kills hit the batch and its conversions at once (as an OOM killer or a pod eviction
# would), leaving hidden temporaries that the next run must remove.
# Not part of `make test`. Figures go to docs/reliability.md by hand.
#   GIFX=path        binary (default .build/release/gifx, else .build/debug/gifx); copied first, so a
#                    rebuild during the soak does not change what runs
#   SOAK_DIR=dir     work folder (default /tmp/gifx-soak; emptied first)
#   SOAK_COUNT=10000 SOAK_KILLS=10 SOAK_SEED=17
#   SOAK_KILL_MIN=5 SOAK_KILL_MAX=45   seconds into a run before its SIGKILL (uniform, seeded)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
GIFX=${GIFX:-$([ -x .build/release/gifx ] && echo .build/release/gifx || echo .build/debug/gifx)}
SOAK_DIR=${SOAK_DIR:-/tmp/gifx-soak}
COUNT=${SOAK_COUNT:-10000}
KILLS=${SOAK_KILLS:-10}
SEED=${SOAK_SEED:-17}
KMIN=${SOAK_KILL_MIN:-5}
KMAX=${SOAK_KILL_MAX:-45}

rm -rf "$SOAK_DIR"
mkdir -p "$SOAK_DIR"
cp "$GIFX" "$SOAK_DIR/gifx"
echo "soak: generating $COUNT GIFs in $SOAK_DIR/in"
python3 Benchmarks/soak/soak_gifs.py "$SOAK_DIR/in" "$COUNT" "$SEED"
mv "$SOAK_DIR/in/manifest.json" "$SOAK_DIR/manifest.json"

RANDOM=$SEED
runs=0 kills=0
log="$SOAK_DIR/runs.log"
: > "$log"
started=$(date +%s.%N)
while true; do
    runs=$((runs + 1))
    # Its own process group (setsid), so a kill can take its conversions with it.
    setsid "$SOAK_DIR/gifx" batch to-mp4 "$SOAK_DIR/in" --out-dir "$SOAK_DIR/out" --report "$SOAK_DIR/report.jsonl" \
        --jobs 2 --timeout 20 --max-memory 512M 2>>"$SOAK_DIR/stderr.log" &
    pid=$!
    if [ "$kills" -lt "$KILLS" ]; then
        delay=$((KMIN + RANDOM % (KMAX - KMIN + 1)))
        # Sleep in small steps so a run that ends early is not waited for.
        waited=0
        while [ "$waited" -lt $((delay * 10)) ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; waited=$((waited + 1)); done
        if [ $((kills % 2)) -eq 1 ]; then target="-$pid"; what="batch and conversions"; else target="$pid"; what="batch"; fi
        if kill -KILL -- "$target" 2>/dev/null; then
            wait "$pid" 2>/dev/null || true
            kills=$((kills + 1))
            lines=$(wc -l < "$SOAK_DIR/report.jsonl" 2>/dev/null || echo 0)
            # A killed batch's children get SIGTERM from the kernel (PR_SET_PDEATHSIG): none may survive it.
            sleep 1
            # The batch's workers (`/proc/self/exe --batch-worker to-mp4 OUT-DIR`), or conversions of an older gifx.
            orphans=$( (pgrep -f -- "--batch-worker to-mp4 $SOAK_DIR/out"; pgrep -f -- "to-mp4 $SOAK_DIR/in/") | wc -l || true)
            hidden=$(find "$SOAK_DIR/out" -name '.*' -type f 2>/dev/null | wc -l)
            echo "run $runs: SIGKILL to the $what after ${delay} s; report lines so far $lines; orphans 1 s later: $orphans; hidden files now: $hidden" | tee -a "$log"
            continue
        fi
    fi
    status=0
    wait "$pid" || status=$?
    echo "run $runs: exited $status" | tee -a "$log"
    break
done
ended=$(date +%s.%N)
total=$(python3 -c "print(round($ended - $started, 1))")
echo "soak: $runs runs ($kills killed), ${total} s" | tee -a "$log"
python3 Benchmarks/soak/verify.py "$SOAK_DIR" --runs "$runs" --kills "$kills" --seconds "$total" | tee "$SOAK_DIR/verify.txt"
