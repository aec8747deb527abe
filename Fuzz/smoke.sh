#!/usr/bin/env bash
# `make fuzz-smoke`: builds each fuzz target of FUZZ_TARGETS (default: fuzz-decoder, fuzz-webp, fuzz-apng, fuzz-avif) and
# fuzzes it for FUZZ_SECONDS (default 60) with Fuzz/run.sh, its output kept in .build-fuzz/smoke-TARGET.log,
# then prints one closing line per target. Fails on a crash (a Swift trap, a precondition of the target, a
# signal), an AddressSanitizer or LeakSanitizer report, a hang (one input over run.sh's 10 s, or the whole run
# far over its time) or running out of memory (run.sh's 2 GiB); the finding's report is printed before the
# closing line, and its input is saved in .build-fuzz/crashes/.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${FUZZ_OUT:-.build-fuzz}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
mkdir -p "$OUT"
smoke() {
    local target=$1 LOG="$OUT/smoke-$1.log" started elapsed status built times runs coverage kind first artifact

    # One run.sh (build, then fuzz): a second `swift build` would cost a planning pass, or more. A run that
    # goes on long after its time is stuck outside libFuzzer's per-input timeout: stopped.
    started=$(date +%s)
    status=0
    FUZZ_TARGET=$target FUZZ_SECONDS=$SECONDS_TO_RUN FUZZ_JOBS=1 timeout -k 10 $((SECONDS_TO_RUN + 1200)) \
        bash Fuzz/run.sh > "$LOG" 2>&1 || status=$?
    elapsed=$(( $(date +%s) - started ))
    built=$(sed -n 's/^fuzz: built in \([0-9]*\) s$/\1/p' "$LOG")
    if [ -z "$built" ]; then
        tail -n 30 "$LOG" >&2
        echo "fuzz-smoke: $target: FAILED: the fuzz target did not build (exit $status after $elapsed s; log $LOG)"
        return 1
    fi
    times="build $built s, fuzzing $((elapsed - built)) s"

    final_stat() { sed -n "s/^stat::$1: *//p" "$LOG" | tail -n 1; }
    if [ "$status" -eq 0 ]; then
        runs=$(final_stat number_of_executed_units)
        coverage=$(sed -n 's/.*DONE *cov: \([0-9]*\) .*corp: \([0-9]*\)\/.*/\1 edges, corpus \2 inputs/p' "$LOG" | tail -n 1)
        echo "fuzz-smoke: $target: ok: ${runs:-?} inputs in ${SECONDS_TO_RUN} s, ${coverage:-coverage unknown}," \
            "no crash, leak or hang ($times; log $LOG)"
        return 0
    fi

    # Which kind of finding: the first report line libFuzzer or a sanitizer wrote.
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then kind="hang (the run did not end; stopped)"
    elif grep -q "ERROR: libFuzzer: timeout" "$LOG"; then kind="hang (an input took over 10 s)"
    elif grep -q "ERROR: LeakSanitizer" "$LOG"; then kind="leak"
    elif grep -q "ERROR: libFuzzer: out-of-memory\|ERROR: libFuzzer: malloc" "$LOG"; then kind="out of memory"
    elif grep -q "ERROR: AddressSanitizer" "$LOG"; then kind="memory error (AddressSanitizer)"
    else kind="crash"
    fi
    # The report: from the first error line (a Swift trap's message comes just before it) to the saved input.
    first=$(grep -n -m 1 "Fatal error\|ERROR: \|==ERROR" "$LOG" | cut -d: -f1)
    sed -n "${first:-1},\$p" "$LOG" | grep -v "^#[0-9]" | head -n 60 >&2
    artifact=$(sed -n "s/.*Test unit written to \(.*\)$/\1/p" "$LOG" | tail -n 1)
    echo "fuzz-smoke: $target: FAILED: $kind (exit $status, $times; input ${artifact:-not saved};" \
        "reproduce: FUZZ_TARGET=$target bash Fuzz/run.sh ${artifact:-FILE}; log $LOG)"
    return 1
}

failed=0
for target in ${FUZZ_TARGETS:-fuzz-decoder fuzz-webp fuzz-apng fuzz-avif}; do
    smoke "$target" || failed=1
done
exit $failed
