#!/usr/bin/env bash
# Configures (or reconfigures) and compiles the build directory: $MACE_BUILD_DIR, default
# build/. Extra arguments are meson compile targets (none: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MACE_BUILD_DIR:-build}
# meson's own lines only when it fails: it says why on standard output.
setup=(meson setup "$build")
[ -f "$build/build.ninja" ] && setup=(meson setup --reconfigure "$build")
if ! out=$("${setup[@]}" 2>&1); then
  echo "$out" >&2
  echo "build: ${setup[*]} failed" >&2
  exit 1
fi
meson compile -C "$build" "$@"
