#!/usr/bin/env bash
# The batch peer (issue 9): every *.gif in DIR through the ffmpeg CLI, two at a time with xargs.
# Usage: peer-batch.sh DIR OUTDIR
set -euo pipefail
in="$1" out="$2"
find "$in" -maxdepth 1 -name '*.gif' -print0 | sort -z |
    xargs -0 -P 2 -I{} sh -c 'ffmpeg -nostdin -v error -y -i "$1" -movflags +faststart -pix_fmt yuv420p \
        -vf "scale=trunc(iw/2)*2:trunc(ih/2)*2" "$2/$(basename "$1" .gif).mp4"' _ {} "$out"
