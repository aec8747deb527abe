#!/usr/bin/env bash
# Builds the libFuzzer target (Fuzz/FuzzDecoder.swift over Sources/GifxTimeline + Sources/GifxFrames + giflib)
# with `swiftc -sanitize=fuzzer,address` and runs it for FUZZ_SECONDS (default 60), seeded with the
# test corpus (../shared/corpus when present), the pygif/peterdn GIFs, Examples/ and
# Tests/CLITests/Regressions/. New inputs go to .build-fuzz/corpus; crashes to .build-fuzz/crashes.
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
SWIFTC=${SWIFTC:-swiftc}
FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6)
mkdir -p "$OUT/obj" "$OUT/corpus" "$OUT/crashes" "$OUT/scratch"
OUT=$(cd "$OUT" && pwd)

build() {
    # Timeline and Frames are separate modules (Frames says `import Timeline`), built as objects.
    "$SWIFTC" "${FLAGS[@]}" -module-name Timeline -wmo -c Sources/GifxTimeline/*.swift \
        -emit-module -emit-module-path "$OUT/obj/Timeline.swiftmodule" -o "$OUT/obj/Timeline.o"
    "$SWIFTC" "${FLAGS[@]}" -module-name Frames -wmo -c Sources/GifxFrames/*.swift -I "$OUT/obj" -I Sources/CGif \
        -emit-module -emit-module-path "$OUT/obj/Frames.swiftmodule" -o "$OUT/obj/Frames.o"
    "$SWIFTC" "${FLAGS[@]}" -module-name FuzzDecoder Fuzz/FuzzDecoder.swift -I "$OUT/obj" -I Sources/CGif \
        "$OUT/obj/Timeline.o" "$OUT/obj/Frames.o" -lgif -use-ld=lld -o "$OUT/fuzz-decoder"
}

newer() {  # is the binary older than any source?
    [ ! -x "$OUT/fuzz-decoder" ] && return 0
    [ -n "$(find Sources/GifxTimeline Sources/GifxFrames Fuzz -name '*.swift' -newer "$OUT/fuzz-decoder" | head -1)" ]
}

if newer; then echo "fuzz: building $OUT/fuzz-decoder"; build; fi
[ "${1:-}" = "--build-only" ] && exit 0

export GIFX_FUZZ_SCRATCH="$OUT/scratch"
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
echo "fuzz: ${SECONDS_TO_RUN}s, $JOBS job(s), seeds: ${SEEDS[*]:-none}"
PARALLEL=()
# Several jobs write fuzz-N.log into the current folder: run from $OUT so they land there.
[ "$JOBS" -gt 1 ] && PARALLEL=(-jobs="$JOBS" -workers="$JOBS")
cd "$OUT"
# The corpus folder comes first: libFuzzer writes new coverage there and reads the seeds once.
exec "$OUT/fuzz-decoder" "${COMMON[@]}" -max_total_time="$SECONDS_TO_RUN" "${PARALLEL[@]}" \
    -artifact_prefix="$OUT/crashes/" "$OUT/corpus" "${SEEDS[@]}"
