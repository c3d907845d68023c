#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing, build, start
# maced in your own state directory (unless one already answers there), and submit a
# run spec. Safe to run again.
#
#   scripts/quickstart.sh [SPEC.json]     # default: docs/examples/pico-1x1-hello.json
#
# MACE_PITON_ROOT an OpenPiton checkout for maced to build in (patched here with
#                 scripts/patch_openpiton.sh). Unset: $MACE_STATE_DIR/openpiton, cloned at
#                 the pinned commit when github.com answers; without network and without
#                 one the run is recorded and stays queued
# MACE_PITON_COMMIT the commit to clone (default the one MACE was verified on)
# MACE_STATE_DIR  where maced keeps mace.db and its log (default ~/.local/state/mace)
# MACE_SOCKET     maced's socket (default $MACE_STATE_DIR/maced.sock)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
state=${MACE_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/mace}
mkdir -p "$state"
pinned=${MACE_PITON_COMMIT:-41a14a05}
url=https://github.com/PrincetonUniversity/openpiton
if [ -z "${MACE_PITON_ROOT:-}" ]; then
  if [ -d "$state/openpiton/.git" ]; then
    MACE_PITON_ROOT=$state/openpiton
  elif timeout 20 git ls-remote "$url" HEAD >/dev/null 2>&1; then
    echo "cloning OpenPiton $pinned into $state/openpiton (blobs fetched as checked out)"
    rm -rf "$state/openpiton.partial"
    git clone --quiet --filter=blob:none --no-checkout "$url" "$state/openpiton.partial"
    git -C "$state/openpiton.partial" checkout --quiet "$pinned"
    mv "$state/openpiton.partial" "$state/openpiton"
    MACE_PITON_ROOT=$state/openpiton
  fi
fi

if [ -n "${MACE_PITON_ROOT:-}" ]; then
  # What OpenPiton's sims, Verilator and the pico workloads need.
  scripts/install-deps.sh verilator gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf \
    device-tree-compiler tcsh bison flex gawk libbit-vector-perl libelf-dev xxd make perl
fi

scripts/build.sh maced mace >/dev/null
build=${MACE_BUILD_DIR:-build}

export MACE_SOCKET=${MACE_SOCKET:-$state/maced.sock}
mace=("$build/client/mace")

config=$state/maced.json
if [ -n "${MACE_PITON_ROOT:-}" ]; then
  root=$(cd "$MACE_PITON_ROOT" && pwd)
  scripts/patch_openpiton.sh "$root"
  printf '{"checkouts": [{"path": "%s"}]}\n' "$root" > "$config"
else
  echo '{}' > "$config"
  echo "No OpenPiton checkout: MACE_PITON_ROOT is not set and $url could not be reached;"
  echo "maced gets no checkout and the run will stay queued."
fi

if "${mace[@]}" version >/dev/null 2>&1; then
  echo "maced already running on $MACE_SOCKET (its configuration is the one it started with)"
else
  echo "starting maced: socket $MACE_SOCKET, state $state, log $state/maced.log"
  MACE_WORKLOADS_DIR=$PWD/workloads nohup "$build/daemon/maced/maced" --socket "$MACE_SOCKET" \
    --state-dir "$state" --config "$config" >>"$state/maced.log" 2>&1 </dev/null &
  for _ in $(seq 1 100); do
    "${mace[@]}" version >/dev/null 2>&1 && break
    sleep 0.1
  done
  "${mace[@]}" version >/dev/null || { echo "maced did not start; see $state/maced.log" >&2; exit 3; }
fi

spec=${1:-docs/examples/pico-1x1-hello.json}
run=$("${mace[@]}" submit "$spec")
echo "submitted $spec as run $run"
if [ -n "${MACE_PITON_ROOT:-}" ]; then
  rc=0
  "${mace[@]}" watch "$run" || rc=$?
  "${mace[@]}" status "$run"
  [ $rc -eq 0 ] || exit $rc
else
  "${mace[@]}" status "$run"
fi
echo
m="${mace[*]} --socket $MACE_SOCKET"
echo "Try:  $m list"
echo "      $m watch $run"
echo "      $m cancel $run"
