#!/usr/bin/env bash
# Builds Gatehouse's image (deploy/Dockerfile) with podman on a machine with no registry:
# the runtime base is Debian bookworm made by debootstrap and `podman import` (kept between
# runs), and the binary is one already built (PREBUILT), so no compiler runs in the image.
#
#   scripts/podman-image.sh path/to/gatehouse [image]     # default image: localhost/gatehouse:dev
#
# Installs podman, runc and debootstrap with apt when they are missing (needs root).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$1"
image="${2:-localhost/gatehouse:dev}"
base=localhost/gatehouse-base:bookworm-minbase
export CONTAINERS_CONF="$PWD/deploy/podman/containers.conf"

if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v runc >/dev/null; then
  echo "installing podman, runc, debootstrap"
  apt-get update -qq && apt-get install -y -qq podman runc debootstrap >/dev/null
fi

if ! podman image exists "$base"; then
  echo "making the base image $base (debootstrap --variant=minbase bookworm)"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' EXIT
  mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
  debootstrap --variant=minbase bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >/dev/null
  # What a runtime image does not need.
  rm -rf "$rootfs"/usr/share/{doc,man,info,locale} "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import --quiet - "$base" >/dev/null
fi

# The build context is the binary alone (stripped: the debug build carries its symbols).
context="$(mktemp -d)"
trap 'rm -rf "$context" ${rootfs:+"$rootfs"}' EXIT
strip -o "$context/gatehouse" "$binary"
podman build --quiet -f deploy/Dockerfile -t "$image" \
  --build-arg BUILDER="$base" --build-arg RUNTIME="$base" --build-arg PREBUILT=gatehouse \
  "$context" >/dev/null
echo "built $image ($(podman image inspect --format '{{.Size}}' "$image" | numfmt --to=iec) from $base)"
