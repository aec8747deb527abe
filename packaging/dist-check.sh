#!/usr/bin/env bash
# make dist-check: the .deb and the tarball of `make dist` on a machine that has never seen Swift.
#   packaging/dist-check.sh DIST_OUT VERSION COMMIT WORK
# 1. A fresh bookworm minbase chroot (mmdebstrap, this machine's mirrors) with the .deb installed by apt at
#    creation, so its Depends are resolved for real; asserts no Swift and no -dev package is in it.
# 1b. Before /proc is mounted there: --version, a timeline and one MP4 (checked with ffprobe), and a bad command
#    line exits non-zero (the static Swift runtime finds no /proc/self/cmdline: the arguments come from libc).
# 2. Inside it: gifx --version (version, commit, the four libav libraries loaded from the chroot), the man
#    page and completions in place, and every Examples GIF to MP4, WebM, WebP and a sprite sheet.
# 3. Outside: those outputs checked with ffprobe/ffmpeg and Pillow (packaging/check_outputs.py).
# 4. The package purged (its dependencies stay: the runtime libraries only), the tarball unpacked into
#    the same chroot, its SHA256SUMS verified, ldd finds every library, and the same conversions again.
# Needs root and the apt mirror (mmdebstrap downloads about 60 MB); about 4 minutes.
set -euo pipefail
CHECK="dist-check"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$here/lib.sh"
preconditions() {
    need_root
    need_packages mmdebstrap ffmpeg
    python3 -c "import PIL" 2>/dev/null || cannot_run "needs Pillow (python3 -m pip install Pillow) to read the outputs"
    [ -n "$(bookworm_mirrors)" ] || cannot_run "no bookworm suite in this machine's apt sources (mmdebstrap needs a Debian bookworm mirror)"
    # mmdebstrap's apt must fetch and verify the mirror's indexes as this machine's own apt does; when the
    # machine's apt cannot (no network, or its signature check failing: seen 2026-11-25, "gpgv ... required
    # for verification, but neither seems installed" with gpgv installed), the chroot cannot be made, which
    # says nothing about the package.
    local problem
    problem=$(timeout 180 apt-get update -q 2>&1 | grep -E '^(W: Failed to fetch|E: )' | head -1) || true
    [ -z "$problem" ] || cannot_run "this machine's apt cannot fetch or verify the bookworm mirror: ${problem:0:200}"
}
# --can-run: only the preconditions (exit 0, or 77 with the reason), for .ci/run before it builds anything.
if [ "${1:-}" = --can-run ]; then preconditions; exit 0; fi
out=$1 version=$2 commit=$3 work=$4
start=$(date +%s.%N)
preconditions
deb=$(ls "$out"/gifx_"$version"-1_*.deb 2>/dev/null | head -1)
tarball=$(ls "$out"/gifx-"$version"-linux-*.tar.gz 2>/dev/null | head -1)
[ -f "$deb" ] && [ -f "$tarball" ] || fail "no .deb or tarball for $version in $out (make dist)"

root=$work/chroot
mounted=
cleanup() { if [ -n "$mounted" ]; then umount "$root/proc" 2>/dev/null || umount -l "$root/proc" || true; fi; }
trap cleanup EXIT
mkdir -p "$work"

note "1. minbase chroot with $(basename "$deb") installed by apt (Depends resolved from the mirror)"
minbase_chroot "$root" --hook-dir=/usr/share/mmdebstrap/hooks/file-mirror-automount --include="$deb"
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
status=$(in_root dpkg-query -W -f='${Status} ${Version}' gifx) || fail "gifx is not installed in the chroot"
[ "$status" = "install ok installed $version-1" ] || fail "gifx in the chroot: $status"
depends=$(in_root dpkg-query -W -f='${Depends}' gifx)
for pkg in $(echo "$depends" | tr ',' '\n' | awk '{print $1}'); do
    in_root dpkg-query -W -f='${Status}\n' "$pkg" | grep -q "install ok installed" || fail "dependency $pkg not installed"
done
if in_root sh -c 'ls -d /usr/lib/swift /usr/share/swift /opt/swift 2>/dev/null; dpkg-query -W -f="\${Package}\n" | grep -E -- "-dev$|^swift|^libswift"'; then
    fail "the chroot has Swift or -dev packages (listed above): it must be a machine that never saw Swift"
fi
note "   installed gifx $version-1 and its Depends: $depends"
note "   $(in_root dpkg-query -W -f='${Package}\n' | wc -l) packages in the chroot, none of them Swift or -dev"

note "1b. without /proc (the statically linked Swift runtime reads its arguments from /proc/self/cmdline; gifx"
note "    takes them from the C runtime): --version, a timeline and one conversion, the MP4 checked outside"
[ ! -e "$root/proc/self" ] || fail "/proc is mounted in the fresh chroot: the no-/proc check would prove nothing"
noproc=/work/noproc
mkdir -p "$root$noproc" && cp "$repo/Examples/bouncing-ball.gif" "$root$noproc/in.gif"
first=$(in_root /usr/bin/gifx --version | head -1) || fail "without /proc: gifx --version failed"
[ "$first" = "gifx $version (commit $commit)" ] || fail "without /proc: gifx --version printed '$first' (the help? arguments lost)"
in_root /usr/bin/gifx timeline "$noproc/in.gif" --json > "$root$noproc/timeline.json" || fail "without /proc: gifx timeline failed"
in_root /usr/bin/gifx to-mp4 "$noproc/in.gif" -o "$noproc/out.mp4" --quiet || fail "without /proc: gifx to-mp4 failed"
[ -s "$root$noproc/out.mp4" ] || fail "without /proc: to-mp4 exited 0 and wrote no $noproc/out.mp4 (arguments ignored)"
if in_root /usr/bin/gifx to-mp4 > /dev/null 2>&1; then fail "without /proc: to-mp4 with no input exited 0"; fi
python3 - "$root$noproc/timeline.json" "$root$noproc/out.mp4" <<'PY' || fail "without /proc: the MP4 does not show the GIF's schedule"
import json, subprocess, sys
timeline = json.load(open(sys.argv[1]))
seconds = timeline["duration"]["centiseconds"] / 100
probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_frames", "-show_entries",
                        "stream=nb_read_frames:format=duration", "-of", "json", sys.argv[2]],
                       capture_output=True, text=True, check=True)
info = json.loads(probe.stdout)
frames = int(info["streams"][0]["nb_read_frames"]); duration = float(info["format"]["duration"])
assert frames >= 1 and abs(duration - seconds) < 0.05, (frames, duration, seconds)
print(f"     without /proc: timeline {len(timeline['frames'])} frames, {seconds:.2f} s; MP4 {frames} frames, {duration:.3f} s")
PY
mount -t proc proc "$root/proc" && mounted=1

note "2. inside the chroot: gifx --version, man page, completions, conversions"
check_version() { # BINARY-in-chroot
    local text; text=$(in_root "$1" --version) || fail "$1 --version failed"
    echo "$text" | sed 's/^/     | /'
    echo "$text" | head -1 | grep -qxF "gifx $version (commit $commit)" || fail "$1 --version: first line is not 'gifx $version (commit $commit)'"
    for lib in libavutil libswscale libavcodec libavformat; do
        echo "$text" | grep -Eq "^$lib [0-9]+\.[0-9]+\.[0-9]+ \(/(usr/)?lib/[^)]*/$lib\.so\.[0-9]+\)$" \
            || fail "$1 --version: no '$lib MAJOR.MINOR.MICRO (/usr/lib/.../$lib.so.N)' line"
    done
    echo "$text" | grep -q '^FFmpeg ' || fail "$1 --version: no FFmpeg line"
}
check_version /usr/bin/gifx
for f in /usr/share/man/man1/gifx.1.gz /usr/share/man/man1/gifx.to-mp4.1.gz /usr/share/man/man1/gifx.batch.1.gz \
         /usr/share/bash-completion/completions/gifx /usr/share/zsh/vendor-completions/_gifx \
         /usr/share/fish/vendor_completions.d/gifx.fish /usr/share/doc/gifx/copyright; do
    [ -s "$root$f" ] || fail "$f missing from the package"
done
zcat "$root/usr/share/man/man1/gifx.1.gz" | grep -q '^\.Dt GIFX 1' || fail "gifx.1.gz is not an mdoc page for GIFX(1)"
# The licence (docs/packaging.md, "Licences"): DEP-5, gifx's own files under Apache-2.0.
copyright=$root/usr/share/doc/gifx/copyright
head -1 "$copyright" | grep -qxF "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/" \
    || fail "/usr/share/doc/gifx/copyright is not a DEP-5 file"
grep -B1 -A2 -xF "Files: *" "$copyright" | tr '\n' '|' | grep -qxF "|Files: *|Copyright: 2026 the gifx authors|License: Apache-2.0|" \
    || fail "/usr/share/doc/gifx/copyright: no 'Files: *' paragraph (after a blank line) under Apache-2.0"
# lintian's copyright checks on the .deb, where lintian can be had (it is not a precondition of the rest).
if command -v lintian >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends lintian >/dev/null 2>&1; then
    tags=$(lintian --no-tag-display-limit "$deb" 2>&1 | grep -Ei 'copyright|licen[cs]e' || true)
    [ -z "$tags" ] || fail "lintian's copyright checks: $tags"
    note "   lintian: no copyright or licence tag"
else
    note "   lintian: not installable here, its copyright checks skipped"
fi
note "   man pages ($(ls "$root"/usr/share/man/man1/gifx*.1.gz | wc -l)), bash/zsh/fish completions, DEP-5 copyright (Apache-2.0): present"

names=()
convert_all() { # BINARY-in-chroot OUT-in-chroot
    local bin=$1 dir=$2 gif name
    rm -rf "$root$dir" && mkdir -p "$root$dir" "$root/work/in"
    for gif in "$repo"/Examples/*.gif; do
        name=$(basename "$gif" .gif)
        cp "$gif" "$root/work/in/"
        in_root "$bin" timeline "/work/in/$name.gif" --json > "$root$dir/$name.timeline.json" || fail "$bin timeline $name.gif"
        in_root "$bin" to-mp4 "/work/in/$name.gif" -o "$dir/$name.mp4" --quiet || fail "$bin to-mp4 $name.gif"
        in_root "$bin" convert "/work/in/$name.gif" -o "$dir/$name.webm" -o "$dir/$name.webp" --quiet \
            || fail "$bin convert $name.gif -o .webm -o .webp"
        in_root "$bin" to-sprite "/work/in/$name.gif" -o "$dir/$name.png" --json "$dir/$name.json" --quiet \
            || fail "$bin to-sprite $name.gif"
        names+=("$name")
    done
}
names=(); convert_all /usr/bin/gifx /work/out-deb
note "   ${#names[@]} GIFs (${names[*]}) converted to MP4, WebM, WebP, sprite sheet"

note "3. outside the chroot: ffprobe/ffmpeg and Pillow read every output"
python3 "$here/check_outputs.py" "$root/work/out-deb" "${names[@]}" | sed 's|^|     |' || fail "output check (deb)"

note "4. the tarball's binary with the runtime libraries only (gifx purged, its Depends kept)"
in_root dpkg --purge gifx >/dev/null || fail "dpkg --purge gifx"
[ ! -e "$root/usr/bin/gifx" ] || fail "/usr/bin/gifx still there after purge"
tar -C "$root/opt" -xzf "$tarball"
tree=/opt/$(basename "$tarball" .tar.gz)
in_root sh -c "cd $tree && sha256sum --quiet -c SHA256SUMS" || fail "the tarball's SHA256SUMS do not match its files"
for f in bin/gifx README.md LICENSE COPYRIGHT SHA256SUMS share/man/man1/gifx.1 share/bash-completion/completions/gifx \
         share/zsh/site-functions/_gifx share/fish/vendor_completions.d/gifx.fish; do
    [ -s "$root$tree/$f" ] || fail "$f missing from the tarball"
done
cmp -s "$repo/LICENSE" "$root$tree/LICENSE" || fail "the tarball's LICENSE is not the repository's (Apache-2.0)"
grep -q "Apache License, Version 2.0" "$root$tree/COPYRIGHT" || fail "the tarball's COPYRIGHT does not name Apache-2.0"
libs=$(in_root ldd "$tree/bin/gifx") || fail "ldd $tree/bin/gifx"
echo "$libs" | grep -q "not found" && fail "the tarball's binary misses libraries: $(echo "$libs" | grep 'not found')"
echo "$libs" | grep -qi swift && fail "the tarball's binary loads a Swift library: $(echo "$libs" | grep -i swift)"
note "   ldd: $(echo "$libs" | awk '{print $1}' | paste -sd' ')"
check_version "$tree/bin/gifx"
names=(); convert_all "$tree/bin/gifx" /work/out-tarball
python3 "$here/check_outputs.py" "$root/work/out-tarball" "${names[@]}" | sed 's|^|     |' || fail "output check (tarball)"

note "PASS in $(elapsed "$start") s: .deb installed by apt on minbase bookworm ($(echo "$depends" | tr ',' '\n' | wc -l) Depends), --version, man pages, completions; ${#names[@]} GIFs x 4 outputs from the .deb and from the tarball, read back by ffprobe/ffmpeg and Pillow"
