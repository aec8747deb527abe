#!/usr/bin/env bash
# Writes small AVIF seeds for fuzz-avif into $1: avifenc sequences (mixed durations, alpha, 10-bit, 4:4:4, a
# still image) from frames of Examples/ scaled down, and gifx's own AVIF writer's output (its edit list) when a gifx
# binary is built. Needs ffmpeg and avifenc (make deps).
set -euo pipefail
out=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for gif in Examples/*.gif; do
    n=$((n + 1)); [ $n -gt 3 ] && break
    name=$(basename "$gif" .gif)
    ffmpeg -nostdin -v error -i "$gif" -vf "scale=24:-2" -frames:v 4 "$work/$name-%d.png"
    frames=("$work/$name"-*.png)
    avifenc -s 10 -j 1 --timescale 1000 --duration 40 "${frames[0]}" --duration 70 "${frames[@]:1:1}" \
        --duration 1000 "${frames[@]:2}" -o "$out/$name-mixed.avif" > /dev/null
    avifenc -s 10 -j 1 -d 10 -y 444 --fps 25 "${frames[@]}" -o "$out/$name-10bit.avif" > /dev/null
    avifenc -s 10 -j 1 "${frames[0]}" -o "$out/$name-still.avif" > /dev/null
    if [ -x .build/debug/gifx ]; then
        .build/debug/gifx convert "$gif" -o "$out/$name-gifx.avif" > /dev/null 2>&1 || true
    fi
done
