#!/usr/bin/env bash
# Configures (or reconfigures) and compiles the build directory: $MACE_BUILD_DIR, default
# build/. Extra arguments are meson compile targets (none: everything).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${MACE_BUILD_DIR:-build}
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" >/dev/null
else
  meson setup "$build" >/dev/null
fi
meson compile -C "$build" "$@"
