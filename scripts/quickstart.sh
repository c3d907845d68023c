#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing, build, start
# maced in your own state directory (unless one already answers there), and submit a
# run spec. Safe to run again.
#
#   scripts/quickstart.sh [SPEC.json]     # default: docs/examples/pico-1x1-hello.json
#
# MACE_PITON_ROOT a patched OpenPiton checkout for maced to build in (scripts/patch_openpiton.sh);
#                 without one the run is recorded and stays queued
# MACE_STATE_DIR  where maced keeps mace.db and its log (default ~/.local/state/mace)
# MACE_SOCKET     maced's socket (default $MACE_STATE_DIR/maced.sock)
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -n "${MACE_PITON_ROOT:-}" ]; then
  # What OpenPiton's sims, Verilator and the pico workloads need.
  scripts/install-deps.sh verilator gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf \
    device-tree-compiler tcsh bison flex gawk libbit-vector-perl libelf-dev xxd make perl
else
  scripts/install-deps.sh
fi

scripts/build.sh maced mace >/dev/null
build=${MACE_BUILD_DIR:-build}

state=${MACE_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/mace}
export MACE_SOCKET=${MACE_SOCKET:-$state/maced.sock}
mace=("$build/client/mace")
mkdir -p "$state"

config=$state/maced.json
if [ -n "${MACE_PITON_ROOT:-}" ]; then
  root=$(cd "$MACE_PITON_ROOT" && pwd)
  scripts/patch_openpiton.sh "$root"
  printf '{"checkouts": [{"path": "%s"}]}\n' "$root" > "$config"
else
  echo '{}' > "$config"
  echo "MACE_PITON_ROOT is not set: maced gets no OpenPiton checkout and the run will stay queued."
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
