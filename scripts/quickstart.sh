#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what is missing, build, start
# maced in your own state directory (unless one already answers there), and submit a
# run spec. Safe to run again.
#
#   scripts/quickstart.sh [SPEC.json]     # default: docs/examples/pico-1x1-hello.json
#
# MACE_STATE_DIR  where maced keeps mace.db and its log (default ~/.local/state/mace)
# MACE_SOCKET     maced's socket (default $MACE_STATE_DIR/maced.sock)
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

scripts/build.sh maced mace >/dev/null
build=${MACE_BUILD_DIR:-build}

state=${MACE_STATE_DIR:-${XDG_STATE_HOME:-$HOME/.local/state}/mace}
export MACE_SOCKET=${MACE_SOCKET:-$state/maced.sock}
mace=("$build/client/mace")
mkdir -p "$state"

if "${mace[@]}" version >/dev/null 2>&1; then
  echo "maced already running on $MACE_SOCKET"
else
  echo "starting maced: socket $MACE_SOCKET, state $state, log $state/maced.log"
  nohup "$build/daemon/maced/maced" --socket "$MACE_SOCKET" --state-dir "$state" \
    >>"$state/maced.log" 2>&1 </dev/null &
  for _ in $(seq 1 100); do
    "${mace[@]}" version >/dev/null 2>&1 && break
    sleep 0.1
  done
  "${mace[@]}" version >/dev/null || { echo "maced did not start; see $state/maced.log" >&2; exit 3; }
fi

spec=${1:-docs/examples/pico-1x1-hello.json}
run=$("${mace[@]}" submit "$spec")
echo "submitted $spec as run $run"
"${mace[@]}" status "$run"
echo
echo "The run loop is not built yet: the run stays queued (see README, \"What works today\")."
m="${mace[*]} --socket $MACE_SOCKET"
echo "Try:  $m list"
echo "      $m watch $run"
echo "      $m cancel $run"
