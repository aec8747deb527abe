#!/usr/bin/env bash
# make slurm-check: the Slurm recipe of docs/scale-out.md on a real, one-node Slurm 22.05.
#   packaging/slurm-check.sh DIST_OUT VERSION WORK
# 1. munge, slurmctld and slurmd started here from a generated config (state, spool, logs, munge socket
#    and key under WORK/run; the node's CPUs and memory from `slurmd -C`; ports 16817/16818).
# 2. A corpus of 240 GIFs in nested folders, 12 damaged (empty, not a GIF, header only), made by
#    packaging/slurm_corpus.py, which also computes each input's shard independently of gifx.
# 3. The job script is the ```bash block of "## Slurm: job array" in docs/scale-out.md, byte for byte except
#    /shared -> WORK/run/shared; gifx is the tarball's binary, on PATH (sbatch exports the environment).
#    It is submitted with `sbatch --cpus-per-task=1` (the only override: this node has 2 CPUs, the
#    recipe asks 4 per task). Task 5 is cancelled while it runs (`scancel JOB_5`), then resubmitted
#    with the docs' own resubmission line.
# 4. Checked (packaging/slurm_verify.py): every clean input has exactly one complete MP4 (ffprobe: its
#    duration is the one written into the GIF), each damaged one is reported `failed`/`malformed` and has
#    no output, no temporary file is left, each task's report holds exactly its shard's inputs and the
#    union of the reports is the input list, the cancelled task stopped midway and the resubmission
#    skipped what it had finished, and each task ended COMPLETED or FAILED (exit 1: damaged inputs) as
#    its shard predicts. Then a table: tasks, GIFs, wall.
# The daemons are stopped by their pids at the end, on failure too. Needs root, slurm-wlm and munge (apt).
set -euo pipefail
CHECK="slurm-check"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$here/lib.sh"
preconditions() {
    need_root
    need_packages slurm-wlm munge ffmpeg
    python3 -c "import PIL" 2>/dev/null || cannot_run "needs Pillow (python3 -m pip install Pillow) to write the corpus"
    local port
    for port in 16817 16818; do
        if (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null; then cannot_run "port $port is in use (another slurm-check running?)"; fi
    done
}
if [ "${1:-}" = --can-run ]; then preconditions; exit 0; fi
out=$1 version=$2 work=$3
start=$(date +%s.%N)
preconditions
tarball=$(ls "$out"/gifx-"$version"-linux-*.tar.gz 2>/dev/null | head -1)
[ -f "$tarball" ] || fail "no tarball for $version in $out (make dist)"

run=$work/run
pids=()
stop_daemons() {
    local status=$?
    if [ -n "${SLURM_CONF:-}" ] && [ -n "${job:-}" ]; then scancel "$job" 2>/dev/null || true; fi
    if [ -n "${job2:-}" ]; then scancel "$job2" 2>/dev/null || true; fi
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for _ in $(seq 50); do
        local alive=0; for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && break; sleep 0.2
    done
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && { echo "$CHECK: pid $pid ignored SIGTERM, SIGKILL"; kill -KILL "$pid"; }; done
    [ ${#pids[@]} = 0 ] || echo "$CHECK: stopped munged, slurmctld, slurmd (pids ${pids[*]})"
    if [ $status != 0 ] && [ -d "$run/log" ]; then
        echo "$CHECK: last lines of the daemon logs ($run/log):" >&2
        tail -n 5 "$run"/log/*.log >&2 || true
    fi
}
trap stop_daemons EXIT

# --- 1. munge + Slurm.
rm -rf "$run"
mkdir -p "$run"/{munge/etc,munge/run,munge/lib,munge/log,state,spool,log,submit/logs,shared}
chmod 0700 "$run/munge/etc" && chmod 0755 "$run/munge/run"
dd if=/dev/urandom of="$run/munge/etc/munge.key" bs=1024 count=1 status=none && chmod 0400 "$run/munge/etc/munge.key"
socket=$run/munge/run/munge.socket
munged --foreground --force --key-file="$run/munge/etc/munge.key" --socket="$socket" \
    --pid-file="$run/munge/run/munged.pid" --seed-file="$run/munge/lib/munged.seed" --log-file="$run/munge/log/munged.log" \
    >"$run/log/munged.out" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$socket" ] && break; sleep 0.1; done
[ -S "$socket" ] || fail "munged did not create $socket"
node=$(hostname -s)
hw=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
cat > "$run/slurm.conf" <<CONF
ClusterName=gifxcheck
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$run/state
SlurmdSpoolDir=$run/spool
SlurmctldPidFile=$run/slurmctld.pid
SlurmdPidFile=$run/slurmd.pid
SlurmctldLogFile=$run/log/slurmctld.log
SlurmdLogFile=$run/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,sched_min_interval=100000
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
KillWait=10
NodeName=$node NodeAddr=127.0.0.1 $hw State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$run/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$run/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$node" >"$run/log/slurmd.out" 2>&1 &
pids+=($!)
for _ in $(seq 100); do sinfo -h -N -o '%T' 2>/dev/null | grep -Eq '^idle' && break; sleep 0.2; done
sinfo -h -N -o '%T' | grep -Eq '^idle' || fail "the node did not come up idle: $(sinfo -N 2>&1 | tail -1)"
note "1. one-node Slurm $(sinfo -V | awk '{print $2}') up: $node, $hw (munged, slurmctld, slurmd: pids ${pids[*]})"

# --- 2. The corpus and gifx.
python3 "$here/slurm_corpus.py" "$run/shared/library" "$run/manifest.json" 240 12 16 5 | sed "s/^/$CHECK: 2. /"
tar -C "$run" -xzf "$tarball"
export PATH=$run/$(basename "$tarball" .tar.gz)/bin:$PATH
note "   gifx on PATH: $(command -v gifx) ($(gifx --version | head -1))"

# --- 3. The recipe, verbatim but for /shared.
job_state() { # JOB -> "STATE exit N:S" (scontrol: sacct needs slurmdbd)
    local info; info=$(scontrol -o show job "$1") || fail "scontrol show job $1"
    echo "$(echo "$info" | grep -o 'JobState=[A-Z_]*' | cut -d= -f2) exit $(echo "$info" | grep -o ' ExitCode=[0-9:]*' | cut -d= -f2)"
}
recipe=$(awk '/^## Slurm: job array/{s=1} s && /^```bash$/{n++; if (n==1) {b=1; next}} b && /^```$/{exit} b' "$repo/docs/scale-out.md")
resubmit=$(awk '/^## Slurm: job array/{s=1} /^## GNU parallel/{s=0} s && /^sbatch --array=/' "$repo/docs/scale-out.md" | head -1)
echo "$recipe" | grep -q '^srun gifx batch to-mp4 /shared/library' || fail "docs/scale-out.md: no Slurm recipe (srun gifx batch ...) found"
[ -n "$resubmit" ] || fail "docs/scale-out.md: no resubmission line (sbatch --array=K ...) in the Slurm section"
task=$(echo "$resubmit" | sed -E 's/^sbatch --array=([0-9]+) .*/\1/')
[ "$task" = 5 ] || fail "the docs' resubmission line is for task $task; this check cancels task 5"
echo "$recipe" | sed "s|/shared/|$run/shared/|g" > "$run/submit/gifx-array.sh"
cd "$run/submit"
note "3. sbatch --cpus-per-task=1 gifx-array.sh (docs/scale-out.md's script, /shared -> $run/shared)"
t0=$(date +%s.%N)
job=$(sbatch --parsable --cpus-per-task=1 gifx-array.sh) || fail "sbatch refused the recipe"
job=${job%%;*}
note "   array job $job submitted"
# Cancel task 5 once it runs and has finished a third of its inputs (but not all).
report5=$run/shared/out/reports/to-mp4-5.jsonl
n5=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(sum(1 for v in m['inputs'].values() if v['shard']==5))" "$run/manifest.json")
cancelled=
for _ in $(seq 1200); do
    state=$(squeue -h -j "${job}_5" -o '%T' 2>/dev/null || true)
    lines=$( [ -f "$report5" ] && wc -l < "$report5" || echo 0)
    if [ "$state" = RUNNING ] && [ "$lines" -ge $(( (n5 + 2) / 3 )) ]; then
        [ "$lines" -lt "$n5" ] || fail "task 5 finished its $n5 inputs before it could be cancelled"
        scancel "${job}_5"; cancelled=$lines; break
    fi
    if [ -z "$state" ] && [ "$lines" -ge "$n5" ]; then fail "task 5 ended before it could be cancelled"; fi
    sleep 0.1
done
[ -n "$cancelled" ] || fail "task 5 never ran (squeue: $(squeue -h -j "$job" 2>&1 | head -3))"
note "   scancel ${job}_5 after $cancelled of its $n5 inputs"
for _ in $(seq 6000); do [ -z "$(squeue -h -j "$job" -t PD,R,CG,S 2>/dev/null)" ] && break; sleep 0.2; done
[ -z "$(squeue -h -j "$job" -t PD,R,CG,S)" ] || fail "array job $job still running after 20 minutes"
t1=$(date +%s.%N)
state5=$(job_state "${job}_5"); state5=${state5%% *}
[ "$state5" = CANCELLED ] || fail "task 5 is $state5, not CANCELLED"
lines_after_cancel=$(wc -l < "$report5")
# gifx got SIGTERM from Slurm and stopped cleanly (143), rather than being SIGKILLed after KillWait.
log5=$run/submit/logs/gifx-${job}_5.out
grep -q "task 0: Exited with exit code 143" "$log5" \
    || fail "task 5's gifx did not exit 143 (SIGTERM) when cancelled: $(tr '\n' ' ' < "$log5")"
for k in $(seq 0 15); do echo "task $k $(job_state "${job}_$k")" >> "$run/task-states.txt"; done
note "   array done in $(elapsed "$t0") s; task 5 CANCELLED, its gifx exited 143 on SIGTERM, $lines_after_cancel report lines"
sed 's/^/     | /' "$log5"
note "   resubmitting: $resubmit"
resubmit_args=${resubmit#sbatch }
t2=$(date +%s.%N)
# shellcheck disable=SC2086 # the docs' line, split as the shell would
job2=$(eval "sbatch --parsable --cpus-per-task=1 $resubmit_args") || fail "sbatch refused: $resubmit"
job2=${job2%%;*}
for _ in $(seq 6000); do [ -z "$(squeue -h -j "$job2" -t PD,R,CG,S 2>/dev/null)" ] && break; sleep 0.2; done
t3=$(date +%s.%N)
resubmitted=$(job_state "$job2")
state_resubmit=${resubmitted%% *}
echo "resubmitted task 5 (job $job2) $resubmitted" >> "$run/task-states.txt"

# --- 4. The checks.
note "4. checking outputs, reports, temporary files, task states"
python3 "$here/slurm_verify.py" "$run/manifest.json" "$run/shared/library" "$run/shared/out/mp4" \
    "$run/shared/out/reports" "$run/task-states.txt" "$lines_after_cancel" "$state_resubmit" \
    "$t0" "$t1" "$t2" "$t3" | sed 's/^/    /' || fail "see above"
note "PASS in $(elapsed "$start") s (logs of each task: $run/submit/logs)"
