#!/usr/bin/env bash
# make image-check: the image of `make image` run as a user would run it: read-only root filesystem,
# --network none, its own non-root user, Examples mounted read-only.
#   packaging/image-check.sh VERSION WORK
# 1. The image's config: entrypoint gifx, working folder /data, user gifx (uid 10001, not root).
# 2. In a container: gifx --version (the libav it loads), the root filesystem refuses writes, no network
#    interface but lo.
# 3. Every Examples GIF to MP4, WebM, WebP and a sprite sheet (relative paths: /data is the working
#    folder), checked from outside with ffprobe/ffmpeg and Pillow (packaging/check_outputs.py).
# 4. The Kubernetes Indexed Job of docs/scale-out.md: its container command line, exactly as written
#    there, once per index (JOB_COMPLETION_INDEX 0..completions-1, GIFX_SHARD_COUNT from its env), with
#    the manifest's security context (uid 10001, read-only root) and volumes (/tmp an emptyDir), over a
#    generated 40-GIF library: the reports together list each input once, every output exists.
# Needs root and podman (rootful, packaging/containers.conf); no network at all once the image exists.
set -euo pipefail
CHECK="image-check"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$here/lib.sh"
preconditions() {
    need_root
    need_packages podman runc ffmpeg
    python3 -c "import PIL" 2>/dev/null || cannot_run "needs Pillow (python3 -m pip install Pillow) to read the outputs"
    python3 -c "import yaml" 2>/dev/null || python3 -m pip install -q PyYAML >/dev/null 2>&1 \
        || cannot_run "needs PyYAML (python3 -m pip install PyYAML) to read the Kubernetes manifest"
}
if [ "${1:-}" = --can-run ]; then preconditions; exit 0; fi
version=$1 work=$2
start=$(date +%s.%N)
preconditions
. "$here/podman-env.sh"
podman image exists "$IMAGE" || fail "no image $IMAGE (make image)"
rm -rf "$work" && mkdir -p "$work"
run() { podman run --rm --read-only --network none "$@"; }

note "1. image config"
config=$(podman image inspect --format '{{json .Config.Entrypoint}} {{.Config.WorkingDir}} {{.Config.User}}' "$IMAGE")
[ "$config" = '["gifx"] /data gifx' ] || fail "entrypoint, workdir, user: $config (expected [\"gifx\"] /data gifx)"
uid=$(run --entrypoint id "$IMAGE" -u)
[ "$uid" = 10001 ] || fail "the image runs as uid $uid, expected 10001 (gifx)"
licence=$(podman image inspect --format '{{index .Config.Labels "org.opencontainers.image.licenses"}}' "$IMAGE")
[ "$licence" = Apache-2.0 ] || fail "label org.opencontainers.image.licenses is '$licence', expected Apache-2.0"
run --entrypoint sh "$IMAGE" -c 'grep -q "^License: Apache-2.0" /usr/share/doc/gifx/copyright' \
    || fail "the image has no /usr/share/doc/gifx/copyright naming Apache-2.0"
note "   entrypoint [\"gifx\"], working folder /data, user gifx (uid $uid), licence label Apache-2.0 and copyright file"

note "2. gifx --version, read-only root, no network"
text=$(run "$IMAGE" --version) || fail "gifx --version failed in the image"
echo "$text" | sed 's/^/     | /'
echo "$text" | head -1 | grep -q "^gifx $version (commit " || fail "--version: first line is not 'gifx $version (commit ...)'"
for lib in libavutil libswscale libavcodec libavformat; do
    echo "$text" | grep -Eq "^$lib [0-9.]+ \(" || fail "--version: no $lib line"
done
run --entrypoint sh "$IMAGE" -c 'touch /usr/bin/x 2>/dev/null || touch /data/x 2>/dev/null' \
    && fail "the root filesystem accepted a write"
interfaces=$(run --entrypoint sh "$IMAGE" -c 'ls /sys/class/net | tr "\n" " "')
[ "$interfaces" = "lo " ] || fail "network interfaces in --network none: $interfaces"
note "   writes to / and /data refused; network interfaces: $interfaces"

note "3. Examples -> MP4, WebM, WebP, sprite sheet in the container"
outdir=$work/out
mkdir -p "$outdir" && chown 10001:10001 "$outdir"
mounts=(-v "$repo/Examples:/data/in:ro" -v "$outdir:/data/out")
names=()
for gif in "$repo"/Examples/*.gif; do
    name=$(basename "$gif" .gif)
    run "${mounts[@]}" "$IMAGE" timeline "in/$name.gif" --json > "$outdir/$name.timeline.json" || fail "timeline $name.gif"
    run "${mounts[@]}" "$IMAGE" to-mp4 "in/$name.gif" -o "out/$name.mp4" --quiet || fail "to-mp4 $name.gif"
    run "${mounts[@]}" "$IMAGE" convert "in/$name.gif" -o "out/$name.webm" -o "out/$name.webp" --quiet || fail "convert $name.gif"
    run "${mounts[@]}" "$IMAGE" to-sprite "in/$name.gif" -o "out/$name.png" --json "out/$name.json" --quiet || fail "to-sprite $name.gif"
    names+=("$name")
done
python3 "$here/check_outputs.py" "$outdir" "${names[@]}" | sed 's|^|     |' || fail "output check"
owners=$(find "$outdir" -newer "$work" ! -name '*.timeline.json' -type f -printf '%u\n' | sort -u | paste -sd,)
[ "$owners" = 10001 ] || [ "$owners" = gifx ] || fail "outputs owned by $owners, expected the image's user (10001)"

note "4. the Kubernetes Indexed Job's command line (docs/scale-out.md), once per index"
eval "$(python3 - "$repo/docs/scale-out.md" <<'PY'
import re, shlex, sys, yaml
text = open(sys.argv[1]).read()
block = re.search(r"## Kubernetes: Indexed Job.*?```yaml\n(.*?)```", text, re.S).group(1)
job = yaml.safe_load(block)
spec = job["spec"]; pod = spec["template"]["spec"]; c = pod["containers"][0]
env = {e["name"]: e["value"] for e in c.get("env", [])}
sc = c.get("securityContext", {})
print(f"k8s_completions={int(spec['completions'])}")
print(f"k8s_command={shlex.quote(' '.join(c['command']))}")
print(f"k8s_args={shlex.quote(c['args'][0])}")
print(f"k8s_count={shlex.quote(env['GIFX_SHARD_COUNT'])}")
print(f"k8s_image={shlex.quote(c['image'])}")
print(f"k8s_uid={sc.get('runAsUser', '')}")
print(f"k8s_readonly={str(sc.get('readOnlyRootFilesystem', False)).lower()}")
print(f"k8s_mounts={shlex.quote(' '.join(m['mountPath'] + (':ro' if m.get('readOnly') else '') for m in c['volumeMounts']))}")
PY
)" || fail "could not read the Indexed Job manifest in docs/scale-out.md"
[ "$k8s_command" = "sh -c" ] || fail "the manifest's command is '$k8s_command', this check runs 'sh -c ARGS'"
[ "$k8s_count" = "$k8s_completions" ] || fail "GIFX_SHARD_COUNT=$k8s_count but completions=$k8s_completions"
[ "${k8s_image##*/}" = "gifx:$version" ] || fail "the manifest's image is $k8s_image, not gifx:$version"
[ "$k8s_uid" = "$uid" ] && [ "$k8s_readonly" = true ] || fail "the manifest's securityContext (runAsUser $k8s_uid, readOnlyRootFilesystem $k8s_readonly) does not match the image"
[ "$k8s_mounts" = "/library:ro /out /tmp" ] || fail "the manifest mounts $k8s_mounts; this check provides /library:ro, /out and /tmp (emptyDir)"
note "   $k8s_command '$(echo "$k8s_args" | tr -s ' ' | cut -c1-90)...'"
python3 "$here/slurm_corpus.py" "$work/library" "$work/library.json" 40 3 "$k8s_completions" -1 | sed "s/^/$CHECK:    /"
mkdir -p "$work/k8s-out" && chown 10001:10001 "$work/k8s-out"
t0=$(date +%s.%N)
for k in $(seq 0 $((k8s_completions - 1))); do
    status=0
    podman run --rm --read-only --read-only-tmpfs=false --network none --user "$k8s_uid" \
        -e JOB_COMPLETION_INDEX="$k" -e GIFX_SHARD_COUNT="$k8s_count" \
        -v "$work/library:/library:ro" -v "$work/k8s-out:/out" --tmpfs /tmp:size=64m --entrypoint sh "$IMAGE" -c "$k8s_args" || status=$?
    # 1 = some inputs of this index are damaged (the manifest's FailIndex); anything else is a failure.
    expect=$(python3 -c "import json,sys; m=json.load(open(sys.argv[1]))['inputs']; print(1 if any(v['shard']==int(sys.argv[2]) and v['damaged'] for v in m.values()) else 0)" "$work/library.json" "$k")
    [ "$status" = "$expect" ] || fail "index $k exited $status, expected $expect"
done
python3 - "$work/library.json" "$work/k8s-out" "$k8s_completions" <<'PY' || fail "Indexed Job outputs"
import json, os, sys
manifest, out, n = json.load(open(sys.argv[1]))["inputs"], sys.argv[2], int(sys.argv[3])
seen = {}
for k in range(n):
    for line in open(os.path.join(out, "reports", f"to-mp4-{k}.jsonl")):
        rel = os.path.relpath(json.loads(line)["input"], "/library")
        assert manifest[rel]["shard"] == k, f"{rel} in report {k}, its shard is {manifest[rel]['shard']}"
        assert rel not in seen, f"{rel} in reports {seen[rel]} and {k}"
        seen[rel] = k
        status = json.loads(line)["status"]
        assert (status == "failed") == bool(manifest[rel]["damaged"]), f"{rel}: {status}"
assert set(seen) == set(manifest), f"reports miss {sorted(set(manifest) - set(seen))[:3]}"
files = {os.path.relpath(os.path.join(d, f), os.path.join(out, "mp4")) for d, _, fs in os.walk(os.path.join(out, "mp4")) for f in fs}
want = {os.path.splitext(r)[0] + ".mp4" for r, v in manifest.items() if not v["damaged"]}
assert files == want, f"outputs: extra {sorted(files - want)[:3]}, missing {sorted(want - files)[:3]}"
print(f"     ok: {n} indexes, {len(seen)} inputs each in exactly its shard's report, {len(want)} MP4s, "
      f"{len(manifest) - len(want)} damaged reported failed; no other file")
PY
note "   $k8s_completions indexes in $(elapsed "$t0") s"

note "PASS in $(elapsed "$start") s: config, --version, read-only root, no network, ${#names[@]} GIFs x 4 outputs read back, the Indexed Job's command over $k8s_completions indexes"
