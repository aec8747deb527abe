#!/usr/bin/env bash
# Benchmark harness entry point (`make bench`). Not part of `make test` or CI.
#   GIFX=path/to/gifx     gifx binary (default .build/release/gifx, built if missing)
#   BENCH_REPS=3          repetitions per tool (BENCH_REPS_4K=2 for the 3840x2160 GIF)
#   BENCH_TIMEOUT=300     seconds allowed for one run
#   BENCH_ONLY=a,b        only these benchmark GIFs; BENCH_KINDS=timeline,to-mp4,to-sprite,sprite-pack,decode,batch,micro,timing,repeats,convert,frame-count,memory
#                         (serve: gifx serve against thumbor, run only when named; pip installs thumbor into .build-bench/serve/venv)
#   BENCH_NOTE="..."      a remark printed at the top of docs/benchmarks.md
# Extra arguments go to Benchmarks/bench.py (see --help).
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
command -v ffmpeg >/dev/null || missing+=(ffmpeg)
command -v montage >/dev/null || missing+=(imagemagick)
command -v optipng >/dev/null || missing+=(optipng)
command -v gifsicle >/dev/null || missing+=(gifsicle)   # thumbor's GIF engine (the serve kind)
command -v python3 >/dev/null || missing+=(python3)
[ -x /usr/bin/time ] || missing+=(time)
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
    else
        echo "bench: missing ${missing[*]}: install them (Debian: apt-get install ${missing[*]})" >&2
        exit 1
    fi
fi

GIFX="${GIFX:-.build/release/gifx}"
if [ ! -x "$GIFX" ] && [ "$GIFX" = ".build/release/gifx" ]; then
    swift build -c release --product gifx || echo "bench: release build failed: measuring the peers only" >&2
fi
export GIFX PYTHONDONTWRITEBYTECODE=1
exec python3 Benchmarks/bench.py --gifx "$GIFX" "$@"
