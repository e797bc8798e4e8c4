#!/usr/bin/env bash
# Builds Gatehouse's image (deploy/Dockerfile) with podman on a machine with no registry:
# the runtime base is Debian bookworm made by debootstrap and `podman import` (kept between
# runs), and the binary and the web app's static export are ones already built (PREBUILT,
# PREBUILT_WEB), so no compiler or Node runs in the image.
#
#   scripts/podman-image.sh path/to/gatehouse path/to/web/out [image]   # default image: localhost/gatehouse:dev
#
# Installs podman, runc and debootstrap with apt when they are missing (needs root).
set -euo pipefail
cd "$(dirname "$0")/.."
binary="$1"
web="$2"
image="${3:-localhost/gatehouse:dev}"
[ -f "$web/index.html" ] || { echo "no web app build at $web (npm run build in web/)" >&2; exit 1; }
# ca-certificates: the billing-webhook service verifies sellers' https endpoints against the
# system's roots (as the real runtime, distroless cc-debian12, ships them).
base=localhost/gatehouse-base:bookworm-minbase-ca
export CONTAINERS_CONF="$PWD/deploy/podman/containers.conf"

if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v runc >/dev/null; then
  echo "installing podman, runc, debootstrap"
  apt-get update -qq && apt-get install -y -qq podman runc debootstrap >/dev/null
fi

if ! podman image exists "$base"; then
  echo "making the base image $base (debootstrap --variant=minbase --include=ca-certificates bookworm)"
  rootfs="$(mktemp -d)"
  trap 'rm -rf "$rootfs"' EXIT
  mirror="$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n1)"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "${mirror:-http://deb.debian.org/debian}" >/dev/null
  # What a runtime image does not need.
  rm -rf "$rootfs"/usr/share/{doc,man,info,locale} "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/*
  tar -C "$rootfs" -c . | podman import --quiet - "$base" >/dev/null
fi

# The build context is the binary (stripped: the debug build carries its symbols) and the web
# app's export.
context="$(mktemp -d)"
trap 'rm -rf "$context" ${rootfs:+"$rootfs"}' EXIT
strip -o "$context/gatehouse" "$binary"
cp -r "$web" "$context/web"
podman build --quiet -f deploy/Dockerfile -t "$image" \
  --build-arg BUILDER="$base" --build-arg WEB_BUILDER="$base" --build-arg RUNTIME="$base" \
  --build-arg PREBUILT=gatehouse --build-arg PREBUILT_WEB=web \
  "$context" >/dev/null
echo "built $image ($(podman image inspect --format '{{.Size}}' "$image" | numfmt --to=iec) from $base)"
