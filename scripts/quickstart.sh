#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what running MACE needs, build it,
# start maced in your own state directory (unless one already answers there), submit a run
# spec and watch it. Safe to run again: every step already done is skipped.
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
source scripts/progress.sh

default_state=${XDG_STATE_HOME:-$HOME/.local/state}/mace
state=${MACE_STATE_DIR:-$default_state}
mkdir -p "$state"
pinned=${MACE_PITON_COMMIT:-41a14a05}
url=https://github.com/PrincetonUniversity/openpiton
build=${MACE_BUILD_DIR:-build}

step "Debian packages to build MACE"
scripts/install-deps.sh build
step_done

if [ -z "${MACE_PITON_ROOT:-}" ]; then
  if [ -d "$state/openpiton/.git" ]; then
    MACE_PITON_ROOT=$state/openpiton
  elif timeout 20 git ls-remote "$url" HEAD >/dev/null 2>&1; then
    step "cloning OpenPiton $pinned into $state/openpiton"
    rm -rf "$state/openpiton.partial"
    # Blobs are fetched as the commit is checked out: git shows its progress on a terminal.
    git clone --progress --filter=blob:none --no-checkout "$url" "$state/openpiton.partial"
    git -C "$state/openpiton.partial" -c advice.detachedHead=false checkout --progress "$pinned"
    mv "$state/openpiton.partial" "$state/openpiton"
    MACE_PITON_ROOT=$state/openpiton
    step_done
  fi
fi

if [ -n "${MACE_PITON_ROOT:-}" ]; then
  step "Debian packages OpenPiton's builds and simulations run (Verilator, RISC-V GCC, ...)"
  scripts/install-deps.sh run
  step_done
fi

step "building maced and mace in $build/"
build_log=$state/build.log
if ! scripts/build.sh maced mace 2>&1 | count_build_steps "$build_log"; then
  echo "the build failed; the end of its log ($build_log):" >&2
  tail -n 30 "$build_log" >&2
  exit 1
fi
step_done
mace=("$build/client/mace")
export MACE_SOCKET=${MACE_SOCKET:-$state/maced.sock}

config=$state/maced.json
if [ -n "${MACE_PITON_ROOT:-}" ]; then
  root=$(cd "$MACE_PITON_ROOT" && pwd)
  step "patching the OpenPiton checkout $root for Verilator 5"
  # Each line it changes is kept in a file, not shown: the step's name and time say enough.
  if ! scripts/patch_openpiton.sh "$root" >"$state/patch.log" 2>&1; then
    cat "$state/patch.log" >&2
    exit 1
  fi
  echo "    what it changed: $state/patch.log"
  step_done
  printf '{"checkouts": [{"path": "%s"}]}\n' "$root" > "$config"
else
  echo '{}' > "$config"
  echo "No OpenPiton checkout: MACE_PITON_ROOT is not set and $url could not be reached;"
  echo "maced gets no checkout and the run will stay queued."
fi

# A maced this script started earlier with another configuration (no checkout then, one
# now) is restarted, unless a run of it is under way.
pidfile=$state/maced.pid
if "${mace[@]}" version >/dev/null 2>&1 && ! cmp -s "$config" "$state/maced.started.json"; then
  pid=$(cat "$pidfile" 2>/dev/null || true)
  if [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--state-dir $state "; then
    if [ -z "$("${mace[@]}" list --state running | tail -n +2)" ]; then
      echo "restarting maced ($pid) with its new configuration"
      kill -TERM "$pid"
      for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    else
      echo "maced keeps its old configuration until its running runs end"
    fi
  fi
fi
if "${mace[@]}" version >/dev/null 2>&1; then
  echo "maced already running on $MACE_SOCKET"
else
  echo "starting maced: socket $MACE_SOCKET, state $state, log $state/maced.log"
  # maced outlives this script: it keeps none of the descriptors this script was given (a
  # lock held around the quick start, a pipe a caller waits on to close).
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if [ "$fd" -gt 2 ]; then eval "exec $fd>&-"; fi
    done
    MACE_WORKLOADS_DIR=$PWD/workloads exec nohup "$build/daemon/maced/maced" \
      --socket "$MACE_SOCKET" --state-dir "$state" --config "$config" >>"$state/maced.log" 2>&1 </dev/null
  ) &
  echo $! >"$pidfile"
  cp "$config" "$state/maced.started.json"
  for _ in $(seq 1 100); do
    "${mace[@]}" version >/dev/null 2>&1 && break
    sleep 0.1
  done
  "${mace[@]}" version >/dev/null || { echo "maced did not start; see $state/maced.log" >&2; exit 3; }
fi

spec=${1:-docs/examples/pico-1x1-hello.json}
run=$("${mace[@]}" submit "$spec")
echo "submitted $spec as run $run"
rc=0
if [ -n "${MACE_PITON_ROOT:-}" ]; then
  "${mace[@]}" watch "$run" || rc=$?
fi
"${mace[@]}" status "$run"
echo
run_state=$("${mace[@]}" --json status "$run" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["run"]["state"])')
say_how_to_use_mace "$PWD/$build/client/mace" "$MACE_SOCKET" "$default_state/maced.sock"
say_what_next "$run" "$run_state"
exit $rc
