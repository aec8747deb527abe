#!/usr/bin/env bash
# Builds a libFuzzer target of the package through SwiftPM with libFuzzer + ASan, and runs it for FUZZ_SECONDS
# (default 60). FUZZ_TARGET picks it:
#   fuzz-decoder (default; Fuzz/FuzzDecoder/): the GIF reader, decoder and compositor and the schedule, seeded
#     with the test corpus (../shared/corpus when present), the pygif/peterdn GIFs, Examples/,
#     Tests/CLITests/Regressions/ and WebP/APNG versions of Examples/ (taken as they are);
#   fuzz-webp (Fuzz/FuzzWebP/) and fuzz-apng (Fuzz/FuzzAPNG/): the WebP and the APNG reader alone. Their inputs
#     are the chunks after the container's header, which the harness writes valid (WebP's RIFF size; PNG's
#     signature and CRCs), seeded with Examples/ converted by gif2webp and FFmpeg's apng muxer, headers cut
#     off, and a dictionary of the format's chunk names;
#   fuzz-avif (Fuzz/FuzzAVIF/): the AVIF reader alone (libavif, dav1d, gifx's ftyp and edit-list walk), on whole
#     files, seeded with Examples/ converted by gifx's own AVIF writer and a few avifenc sequences (mixed durations, alpha, 10-bit, a still image), and a dictionary of box names.
# New inputs go to .build-fuzz/corpus (fuzz-decoder) or .build-fuzz/corpus-TARGET; crashes to
# .build-fuzz/crashes (named TARGET-...); SwiftPM's own files to .build-fuzz/swiftpm.
#
#   FUZZ_SECONDS=1800 bash Fuzz/run.sh            # run for 30 minutes
#   FUZZ_TARGET=fuzz-apng bash Fuzz/run.sh         # the APNG reader
#   FUZZ_JOBS=1 (default)                          # parallel fuzzing processes (-jobs/-workers)
#   bash Fuzz/run.sh --build-only                  # just build .build-fuzz/TARGET
#   bash Fuzz/run.sh FILE...                       # re-run given inputs (reproduce a crash)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${FUZZ_OUT:-.build-fuzz}
SECONDS_TO_RUN=${FUZZ_SECONDS:-60}
JOBS=${FUZZ_JOBS:-1}
TARGET=${FUZZ_TARGET:-fuzz-decoder}
case "$TARGET" in
    fuzz-decoder) CORPUS=corpus ;;
    fuzz-webp | fuzz-apng | fuzz-avif) CORPUS=corpus-${TARGET#fuzz-} ;;
    *) echo "fuzz: unknown FUZZ_TARGET $TARGET (fuzz-decoder, fuzz-webp, fuzz-apng, fuzz-avif)" >&2; exit 64 ;;
esac
SWIFT=${SWIFT:-swift}
mkdir -p "$OUT/$CORPUS" "$OUT/crashes" "$OUT/scratch"
OUT=$(cd "$OUT" && pwd)

# SwiftPM resolves the modules and their link flags (system libraries, package dependencies), so a new
# import in Frames needs no change here. Release (-O, with -g on Linux), as libFuzzer runs are long.
# `--sanitize` instruments the C targets and links libFuzzer's main and the ASan runtime. The Swift
# driver keeps only the last of several `-sanitize=` options (Swift 6.3: SwiftPM's `-sanitize=fuzzer
# -sanitize=address` compiles Swift with ASan but no coverage, and libFuzzer then finds nothing), so the
# Swift code gets both in one option, which comes last. GIFX_LIBFUZZER leaves out the replayer's `main`.
SPM=(-c release --scratch-path "$OUT/swiftpm" --sanitize=fuzzer --sanitize=address
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DGIFX_LIBFUZZER)

echo "fuzz: building $OUT/$TARGET"
build_started=$SECONDS
"$SWIFT" build "${SPM[@]}" --product "$TARGET"
ln -sf "$("$SWIFT" build "${SPM[@]}" --show-bin-path)/$TARGET" "$OUT/$TARGET"
echo "fuzz: built in $((SECONDS - build_started)) s"
[ "${1:-}" = "--build-only" ] && exit 0

export GIFX_FUZZ_SCRATCH="$OUT/scratch"
# A Swift trap goes to libFuzzer's deadly-signal handler, which saves the input: Swift's own backtracer
# would catch the signal first, and its memory reader trips ASan, so a precondition read as a memory error.
export SWIFT_BACKTRACE=enable=no
# Leak detection stays on; 2 GiB RSS limit; an input taking over 10 s is a hang.
COMMON=(-rss_limit_mb=2048 -timeout=10 -max_len=65536 -print_final_stats=1)

if [ $# -gt 0 ]; then
    exec "$OUT/$TARGET" "${COMMON[@]}" "$@"
fi

# shellcheck source=Fuzz/seeds.sh
source Fuzz/seeds.sh
SEEDS=()
DICTIONARY=()
# WebP and APNG versions of the Examples/ GIFs: libwebp's gif2webp (lossless and lossy) and FFmpeg's apng
# muxer (both from make deps).
animated="$OUT/seeds/animated"
mkdir -p "$animated"
for gif in Examples/*.gif; do
    name=$(basename "$gif" .gif)
    [ -s "$animated/$name.webp" ] && continue
    { gif2webp -quiet "$gif" -o "$animated/$name.webp" && gif2webp -quiet -lossy "$gif" -o "$animated/$name-lossy.webp"; } \
        > /dev/null 2>&1 || true
    ffmpeg -nostdin -v error -y -i "$gif" -f apng -plays 0 "$animated/$name.png" > /dev/null 2>&1 || true
done
find "$animated" -size +64k -delete
if [ "$TARGET" = fuzz-decoder ]; then
    gif_seed_folders "$OUT"
    SEEDS+=("$animated")
elif [ "$TARGET" = fuzz-avif ]; then
    # Whole AVIFs, small (a few KiB each): avifenc sequences from Examples/ frames and gifx's own AVIF writer.
    seed="$OUT/seeds/avif"
    mkdir -p "$seed"
    if [ -z "$(ls -A "$seed")" ]; then bash Fuzz/avif-seeds.sh "$seed" || true; fi
    find "$seed" -size +64k -delete
    SEEDS+=("$seed")
    DICTIONARY=(-dict="$PWD/Fuzz/avif.dict")
else
    # The chunks alone: the harness writes the header (12 bytes of RIFF for WebP, the 8-byte PNG signature).
    if [ "$TARGET" = fuzz-webp ]; then extension=webp; header=12; else extension=png; header=8; fi
    seed="$OUT/seeds/${TARGET#fuzz-}-chunks"
    mkdir -p "$seed"
    for file in "$animated"/*."$extension"; do
        [ -e "$file" ] && tail -c +$((header + 1)) "$file" > "$seed/$(basename "$file")"
    done
    SEEDS+=("$seed")
    DICTIONARY=(-dict="$PWD/Fuzz/${TARGET#fuzz-}.dict")
fi
echo "fuzz: $TARGET, ${SECONDS_TO_RUN}s, $JOBS job(s), seeds: ${SEEDS[*]:-none}"
PARALLEL=()
# Several jobs write fuzz-N.log into the current folder: run from $OUT so they land there.
[ "$JOBS" -gt 1 ] && PARALLEL=(-jobs="$JOBS" -workers="$JOBS")
cd "$OUT"
# The corpus folder comes first: libFuzzer writes new coverage there and reads the seeds once.
exec "$OUT/$TARGET" "${COMMON[@]}" "${DICTIONARY[@]}" -max_total_time="$SECONDS_TO_RUN" "${PARALLEL[@]}" \
    -artifact_prefix="$OUT/crashes/$TARGET-" "$OUT/$CORPUS" "${SEEDS[@]}"
