#!/usr/bin/env bash
# Differential fuzzing of gifx's own LZW decoder against giflib (Fuzz/FuzzDifferential, the package's
# `fuzz-differential` target), built through SwiftPM with libFuzzer + ASan, run for FUZZ_SECONDS (default
# 60), seeded with ../shared/corpus, Examples/ and Tests/CLITests/Regressions/. Its own folder,
# .build-fuzz-differential (corpus, crashes, SwiftPM's files), apart from Fuzz/run.sh's.
#
#   FUZZ_SECONDS=1800 bash Fuzz/differential.sh      # 30 minutes
#   bash Fuzz/differential.sh --build-only
#   bash Fuzz/differential.sh FILE...                 # re-run given inputs
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${FUZZ_OUT:-.build-fuzz-differential}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
SWIFT=${SWIFT:-swift}
mkdir -p "$OUT/corpus" "$OUT/crashes" "$OUT/scratch"
OUT=$(cd "$OUT" && pwd)

# Release with libFuzzer + ASan. The Swift driver keeps only the last `-sanitize=` option, so the Swift code
# gets both in one (last) option; GIFX_LIBFUZZER leaves out the replayer's `main`.
SPM=(-c release --scratch-path "$OUT/swiftpm" --sanitize=fuzzer --sanitize=address
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DGIFX_LIBFUZZER)
started=$(date +%s)
echo "fuzz-differential: building $OUT/fuzz-differential"
"$SWIFT" build "${SPM[@]}" --product fuzz-differential
ln -sf "$("$SWIFT" build "${SPM[@]}" --show-bin-path)/fuzz-differential" "$OUT/fuzz-differential"
echo "fuzz-differential: built in $(( $(date +%s) - started )) s"
[ "${1:-}" = "--build-only" ] && exit 0

export GIFX_FUZZ_SCRATCH="$OUT/scratch" SWIFT_BACKTRACE=enable=no
COMMON=(-rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1)
if [ $# -gt 0 ]; then exec "$OUT/fuzz-differential" "${COMMON[@]}" "$@"; fi

# shellcheck source=Fuzz/seeds.sh
source Fuzz/seeds.sh
SEEDS=()
gif_seed_folders "$OUT"
echo "fuzz-differential: ${SECONDS_TO_RUN}s, seeds: ${SEEDS[*]:-none}"
cd "$OUT"
exec "$OUT/fuzz-differential" "${COMMON[@]}" -max_total_time="$SECONDS_TO_RUN" \
    -artifact_prefix="$OUT/crashes/" "$OUT/corpus" "${SEEDS[@]}"
