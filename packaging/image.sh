#!/usr/bin/env bash
# make image: the runtime image of the Containerfile, way B (the host's `make dist` .deb, no Swift image).
#   packaging/image.sh DIST_OUT VERSION WORK
# 1. A bookworm "slim" base: mmdebstrap minbase from this machine's mirrors, without man pages, docs (but
#    copyright), locales, as debian:bookworm-slim does, imported with `podman import` (no registry needed).
#    Kept in WORK/bookworm-slim.tar and reused; delete it to start afresh.
# 2. podman build --target runtime --build-arg DEBS=prebuilt: apt installs the .deb and its Depends into it.
# Needs root, podman (apt), and the apt mirror (the build runs apt-get with the host's network).
set -euo pipefail
CHECK="image"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$here/lib.sh"
preconditions() {
    need_root
    need_packages podman buildah runc mmdebstrap
    [ -n "$(bookworm_mirrors)" ] || cannot_run "no bookworm suite in this machine's apt sources (the base is made with mmdebstrap)"
}
if [ "${1:-}" = --can-run ]; then preconditions; exit 0; fi
out=$1 version=$2 work=$3
start=$(date +%s.%N)
preconditions
. "$here/podman-env.sh"
deb=$(ls "$out"/gifx_"$version"-1_*.deb 2>/dev/null | head -1)
[ -f "$deb" ] || fail "no .deb for $version in $out (make dist)"
mkdir -p "$work"

base=$work/bookworm-slim.tar
if [ ! -s "$base" ]; then
    note "1. bookworm slim base with mmdebstrap"
    minbase_chroot "$base" --format=tar \
        --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
        --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
        --dpkgopt='path-include=/usr/share/doc/*/copyright' \
        --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin'
else
    note "1. bookworm slim base: reusing $base ($(date -r "$base" +%F))"
fi
podman import --quiet --change 'CMD ["bash"]' "$base" "$BASE_IMAGE" >/dev/null || fail "podman import $base"
note "   $BASE_IMAGE: $(podman image inspect --format '{{.Size}}' "$BASE_IMAGE" | numfmt --to=iec) "

note "2. podman build --target runtime (the .deb from make dist) -> $IMAGE"
podman build --quiet --network host --target runtime --build-arg DEBS=prebuilt --build-arg BASE="$BASE_IMAGE" \
    -t "$IMAGE" -f "$repo/Containerfile" "$repo" >/dev/null || fail "podman build failed (run it without --quiet to see why)"
note "   $IMAGE: $(podman image inspect --format '{{.Size}}' "$IMAGE" | numfmt --to=iec), built in $(elapsed "$start") s"
