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
# 5. gifx serve in the image with --memory 512m --cpus 1, read-only root, a port published on 127.0.0.1:
#    its budget read from the cgroup (at most 512 MiB), an Examples GIF converted by curl (POST
#    /v1/convert?format=mp4), the MP4 read back by ffprobe (H.264, the GIF's exact duration), GET /v1/o/KEY
#    with a Range (206), then SIGTERM (podman stop): exit 0.
# Needs root and podman (rootful, packaging/containers.conf); no network at all once the image exists.
set -euo pipefail
CHECK="image-check"
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
. "$here/lib.sh"
preconditions() {
    need_root
    need_packages podman runc ffmpeg curl
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

note "5. gifx serve in the image under --memory 512m --cpus 1, a port published on 127.0.0.1"
serve_port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
serve_name=gifx-image-check-serve-$$
mkdir -p "$work/serve-cache" && chown 10001:10001 "$work/serve-cache"
podman run -d --name "$serve_name" --read-only --memory 512m --memory-swap 512m --cpus 1 \
    -p "127.0.0.1:$serve_port:8080" -v "$work/serve-cache:/cache" --tmpfs /tmp:size=64m "$IMAGE" \
    serve --host 0.0.0.0 --port 8080 --cache-dir /cache >/dev/null \
    || fail "podman run -d ... serve did not start the container"
serve_cleanup() { podman rm -f "$serve_name" >/dev/null 2>&1 || true; }
trap serve_cleanup EXIT
up=""
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$serve_port/healthz" >/dev/null && { up=1; break; }
    [ "$(podman inspect -f '{{.State.Running}}' "$serve_name" 2>/dev/null)" = true ] || break
    sleep 0.2
done
[ -n "$up" ] || { podman logs "$serve_name" 2>&1 | tail -5 | sed 's/^/     | /'; fail "gifx serve in the container did not answer /healthz on 127.0.0.1:$serve_port"; }
budget=$(curl -sf "http://127.0.0.1:$serve_port/metrics" | awk '/^gifx_memory_budget_bytes/ {print $2}')
python3 -c "import sys; b = float(sys.argv[1]); sys.exit(0 if 0 < b <= 512 * 2**20 else 1)" "${budget:-0}" \
    || fail "the service's budget is '${budget}' bytes, expected at most the container's 512 MiB (read from the cgroup)"
serve_gif=$(ls "$repo"/Examples/*.gif | head -1)
serve_name_gif=$(basename "$serve_gif" .gif)
headers=$work/serve-headers.txt
status=$(curl -s -o "$work/serve.mp4" -D "$headers" -w '%{http_code}' --data-binary @"$serve_gif" \
    "http://127.0.0.1:$serve_port/v1/convert?format=mp4")
[ "$status" = 200 ] || fail "POST /v1/convert?format=mp4 answered $status: $(head -c 300 "$work/serve.mp4")"
key=$(tr -d '\r' < "$headers" | awk -F': ' 'tolower($1) == "x-gifx-key" {print $2}')
python3 - "$work/serve.mp4" "$outdir/$serve_name_gif.timeline.json" <<'PY' || fail "the MP4 from the service"
import json, subprocess, sys
probe = json.loads(subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                                   "format=format_name,duration:stream=codec_name,nb_read_frames", "-of", "json",
                                   sys.argv[1]], capture_output=True, text=True, check=True).stdout)
timeline = json.load(open(sys.argv[2]))
duration, want = float(probe["format"]["duration"]), timeline["duration"]["centiseconds"] / 100
codec = probe["streams"][0]["codec_name"]
assert "mp4" in probe["format"]["format_name"] and codec == "h264", probe
assert abs(duration - want) < 0.0005, f"MP4 duration {duration} s, the GIF's {want} s"
print(f"     ok: {codec} MP4, {probe['streams'][0]['nb_read_frames']} frames, {duration:.6f} s = the GIF's {want:.2f} s")
PY
range_status=$(curl -s -o /dev/null -w '%{http_code}' -H 'Range: bytes=0-99' "http://127.0.0.1:$serve_port/v1/o/$key")
[ "$range_status" = 206 ] || fail "GET /v1/o/$key with a Range answered $range_status, expected 206"
peak=$(podman exec "$serve_name" sh -c 'cat /sys/fs/cgroup/memory.peak 2>/dev/null && echo "(memory.peak)" \
    || { cat /sys/fs/cgroup/memory/memory.max_usage_in_bytes && echo "(memory.max_usage_in_bytes)"; }' 2>/dev/null | paste -sd' ' || echo unknown)
podman stop -t 30 "$serve_name" >/dev/null || fail "podman stop (SIGTERM) failed"
code=$(podman inspect -f '{{.State.ExitCode}}' "$serve_name")
[ "$code" = 0 ] || { podman logs "$serve_name" 2>&1 | tail -5 | sed 's/^/     | /'; fail "gifx serve exited $code after SIGTERM"; }
serve_cleanup
left=$(find "$work/serve-cache" -name '.*' -o -path '*/spool/*' | head -3)
[ -z "$left" ] || fail "left in the cache folder after SIGTERM: $left"
note "   budget $budget bytes from the cgroup; $serve_name_gif.gif converted over HTTP; Range 206; peak memory of the container's cgroup ${peak} bytes; SIGTERM: exit 0"

note "PASS in $(elapsed "$start") s: config, --version, read-only root, no network, ${#names[@]} GIFs x 4 outputs read back, the Indexed Job's command over $k8s_completions indexes, gifx serve under --memory 512m --cpus 1"
