# Sourced by image.sh and image-check.sh: podman with packaging/containers.conf, and its storage under WORK
# (the git-ignored .build-dist/containers), so these checks neither use nor touch the machine's images.
export CONTAINERS_CONF=$here/containers.conf
containers=$(dirname "$work")/containers
mkdir -p "$containers"
export CONTAINERS_STORAGE_CONF=$containers/storage.conf
cat > "$CONTAINERS_STORAGE_CONF" <<CONF
[storage]
driver = "overlay"
graphroot = "$containers/storage"
runroot = "$containers/run"
CONF
IMAGE=localhost/gifx:$version
BASE_IMAGE=localhost/gifx-base:bookworm-slim
