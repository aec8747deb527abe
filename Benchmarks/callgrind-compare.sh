#!/usr/bin/env bash
# Instruction totals (valgrind's callgrind: the same count on a busy machine) of one gifx binary on five
# workloads, each on one thread (--threads 1, so the count is deterministic), for comparing two builds:
#
#   bash Benchmarks/callgrind-compare.sh LABEL GIFX_BINARY OUT_DIR     # prints "LABEL WORKLOAD INSTRUCTIONS"
#
# Give it a copy of the binary without debug information (objcopy --strip-debug): valgrind 3.19 cannot read
# the DWARF of a Swift release build. Compare builds linked the same way (make dist's --static-swift-stdlib
# against another static build): a dynamically linked gifx spends ~20-40 M more instructions on symbol lookup.
# The bench GIFs come from Benchmarks/make_gifs.py (built once under .build-bench/gifs).
set -eu
label=$1; bin=$(realpath "$2"); out=$(realpath -m "$3")/$label
cd "$(dirname "$0")/.."
python3 Benchmarks/make_gifs.py .build-bench >/dev/null
g=$PWD/.build-bench/gifs; examples=$PWD/Examples
rm -rf "$out"; mkdir -p "$out"; cd "$out"
w() { name=$1; shift; valgrind --tool=callgrind --callgrind-out-file="$out/$name.cg" "$bin" "$@" >/dev/null 2>"$out/$name.err"; \
      tot=$(grep -m1 '^summary:\|^totals:' "$out/$name.cg" | awk '{print $2}'); echo "$label $name $tot"; }
w mp4 to-mp4 $g/333x187x100.gif -o "$out/a.mp4" --threads 1 --quiet
w sprite to-sprite $g/sprite-256x192x96.gif -o "$out/s.png" --threads 1 --quiet
w webp convert $g/vardelay-480x270x150.gif -o "$out/v.webp" --threads 1 --quiet
w timeline timeline $g/64x64x5000.gif --json
w startup timeline "$examples/bouncing-ball.gif" --json
w webm convert $examples/transparent-spinner.gif -o "$out/t.webm" -o "$out/t.jpg" --threads 1 --quiet
