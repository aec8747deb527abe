#!/usr/bin/env bash
# Builds the libFuzzer target (the package's `fuzz-decoder` target, Fuzz/FuzzDecoder/, over GifxFrames,
# GifxTimeline and whatever they import) through SwiftPM with libFuzzer + ASan, and runs it for FUZZ_SECONDS
# (default 60), seeded with the test corpus (../shared/corpus when present), the pygif/peterdn GIFs,
# Examples/ and Tests/CLITests/Regressions/. New inputs go to .build-fuzz/corpus; crashes to
# .build-fuzz/crashes; SwiftPM's own files to .build-fuzz/swiftpm.
#
#   FUZZ_SECONDS=1800 bash Fuzz/run.sh            # run for 30 minutes
#   FUZZ_JOBS=1 (default)                          # parallel fuzzing processes (-jobs/-workers)
#   bash Fuzz/run.sh --build-only                  # just build .build-fuzz/fuzz-decoder
#   bash Fuzz/run.sh FILE...                       # re-run given inputs (reproduce a crash)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${FUZZ_OUT:-.build-fuzz}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
SWIFT=${SWIFT:-swift}
mkdir -p "$OUT/corpus" "$OUT/crashes" "$OUT/scratch"
OUT=$(cd "$OUT" && pwd)

# SwiftPM resolves the modules and their link flags (system libraries, package dependencies), so a new
# import in Frames needs no change here. Release (-O, with -g on Linux), as libFuzzer runs are long.
# `--sanitize` instruments the C targets and links libFuzzer's main and the ASan runtime. The Swift
# driver keeps only the last of several `-sanitize=` options (Swift 6.3: SwiftPM's `-sanitize=fuzzer
# -sanitize=address` compiles Swift with ASan but no coverage, and libFuzzer then finds nothing), so the
# Swift code gets both in one option, which comes last. GIFX_LIBFUZZER leaves out the replayer's `main`.
SPM=(-c release --scratch-path "$OUT/swiftpm" --sanitize=fuzzer --sanitize=address
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DGIFX_LIBFUZZER)

echo "fuzz: building $OUT/fuzz-decoder"
build_started=$SECONDS
"$SWIFT" build "${SPM[@]}" --product fuzz-decoder
ln -sf "$("$SWIFT" build "${SPM[@]}" --show-bin-path)/fuzz-decoder" "$OUT/fuzz-decoder"
echo "fuzz: built in $((SECONDS - build_started)) s"
[ "${1:-}" = "--build-only" ] && exit 0

export GIFX_FUZZ_SCRATCH="$OUT/scratch"
# A Swift trap goes to libFuzzer's deadly-signal handler, which saves the input: Swift's own backtracer
# would catch the signal first, and its memory reader trips ASan, so a precondition read as a memory error.
export SWIFT_BACKTRACE=enable=no
# Leak detection stays on; 2 GiB RSS limit; an input taking over 10 s is a hang.
COMMON=(-rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1)

if [ $# -gt 0 ]; then
    exec "$OUT/fuzz-decoder" "${COMMON[@]}" "$@"
fi

SEEDS=()
for dir in ../shared/corpus/fuzz ../shared/corpus/pygif ../shared/corpus/peterdn Examples Tests/CLITests/Regressions; do
    [ -d "$dir" ] || continue
    seed="$OUT/seeds/$(echo "$dir" | tr -d '.' | tr '/' '_' | sed 's/^_*//')"
    mkdir -p "$seed"
    find "$dir" -name '*.gif' -size -64k -exec cp -f {} "$seed/" \;
    SEEDS+=("$seed")
done
# WebP and APNG seeds (issue 35: the same target fuzzes their readers): the Examples/ GIFs converted by
# libwebp's gif2webp and FFmpeg's apng muxer (both from make deps), lossless and lossy.
seed="$OUT/seeds/animated"
mkdir -p "$seed"
for gif in Examples/*.gif; do
    name=$(basename "$gif" .gif)
    { gif2webp -quiet "$gif" -o "$seed/$name.webp" && gif2webp -quiet -lossy "$gif" -o "$seed/$name-lossy.webp"; } \
        > /dev/null 2>&1 || true
    ffmpeg -nostdin -v error -y -i "$gif" -f apng -plays 0 "$seed/$name.png" > /dev/null 2>&1 || true
done
find "$seed" -size +64k -delete
SEEDS+=("$seed")
echo "fuzz: ${SECONDS_TO_RUN}s, $JOBS job(s), seeds: ${SEEDS[*]:-none}"
PARALLEL=()
# Several jobs write fuzz-N.log into the current folder: run from $OUT so they land there.
[ "$JOBS" -gt 1 ] && PARALLEL=(-jobs="$JOBS" -workers="$JOBS")
cd "$OUT"
# The corpus folder comes first: libFuzzer writes new coverage there and reads the seeds once.
exec "$OUT/fuzz-decoder" "${COMMON[@]}" -max_total_time="$SECONDS_TO_RUN" "${PARALLEL[@]}" \
    -artifact_prefix="$OUT/crashes/" "$OUT/corpus" "${SEEDS[@]}"
