#!/usr/bin/env bash
# The main job, from a fresh Debian 12 machine: install what running MACE needs, build it,
# start maced in your own state directory (unless one already answers there), submit a run
# spec and watch it. Safe to run again: every step already done is skipped.
#
#   scripts/quickstart.sh [SPEC.json]     # default: docs/examples/pico-1x1-hello.json
#   scripts/quickstart.sh --stop          # stop the maced it started
#
# MACE_PITON_ROOT an OpenPiton checkout to build from. It is left as it is: maced gets a
#                 checkout of its own made from it, $MACE_STATE_DIR/openpiton-worktree (a git
#                 worktree at its HEAD commit, or a copy when it is not a git checkout),
#                 patched there with scripts/patch_openpiton.sh. Unset:
#                 $MACE_STATE_DIR/openpiton, cloned at the pinned commit when github.com
#                 answers; without network and without one the run is recorded and stays
#                 queued
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
pidfile=$state/maced.pid
mace=("$build/client/mace")
export MACE_SOCKET=${MACE_SOCKET:-$state/maced.sock}

# The maced this script started, by its pid file, only while that pid is still a maced of
# this state directory (a pid the kernel gave to another program since is left alone).
started_maced_pid() {
  local pid
  pid=$(cat "$pidfile" 2>/dev/null || true)
  [ -n "$pid" ] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q -- "--state-dir $state " && echo "$pid"
}

if [ "${1:-}" = --stop ]; then
  pid=$(started_maced_pid || true)
  if [ -z "$pid" ]; then
    echo "no maced started by scripts/quickstart.sh runs for $state"
    exit 0
  fi
  # SIGTERM: maced stops every build and simulation, records their runs as cancelled by
  # the shutdown, and removes its socket (docs/operating-maced.md).
  echo "stopping maced ($pid, state $state)"
  kill -TERM "$pid"
  for _ in $(seq 1 600); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    echo "maced ($pid) has not stopped after 60 s; see $state/maced.log" >&2
    exit 1
  fi
  rm -f "$pidfile"
  echo "stopped"
  exit 0
fi

# Makes CHECKOUT, maced's own checkout made from the user's OpenPiton checkout USERS: a git
# worktree at its HEAD commit (sharing its objects, and its sparse-checkout patterns when it
# has some), or a copy when USERS is not a git checkout. USERS is never written, but for
# the worktree's entry in its .git, which `git worktree list` shows and `git status` does not.
# Made again when USERS or its HEAD changed since, unless maced is running a run.
make_checkout_of_users() {
  local users=$1 checkout=$2 head= made=
  if git -C "$users" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    head=$(git -C "$users" rev-parse HEAD)
  fi
  local wanted="$users ${head:-copy}"
  made=$(cat "$checkout.source" 2>/dev/null || true)
  if [ -e "$checkout" ] && [ "$made" != "$wanted" ]; then
    if [ -n "$(started_maced_pid || true)" ] && [ -n "$("${mace[@]}" list --state running 2>/dev/null | tail -n +2)" ]; then
      echo "maced's checkout $checkout was made from ${made% *}; it is kept until maced's running runs end"
      return
    fi
    echo "remaking maced's checkout: it was made from ${made:-an unknown checkout}, now $wanted"
    local old_users=${made% *}
    git -C "$old_users" worktree remove --force "$checkout" 2>/dev/null || rm -rf "$checkout"
    git -C "$old_users" worktree prune 2>/dev/null || true
  fi
  if [ ! -e "$checkout" ]; then
    if [ -n "$head" ]; then
      step "making maced a checkout of its own: a git worktree of $users at ${head:0:12}, in $checkout (yours is left as it is)"
      if [ -e "$checkout.partial" ]; then  # an earlier quick start stopped half way
        git -C "$users" worktree remove --force "$checkout.partial" 2>/dev/null || rm -rf "$checkout.partial"
      fi
      git -C "$users" worktree prune
      git -C "$users" -c advice.detachedHead=false worktree add --detach "$checkout.partial" "$head" >"$state/worktree.log" 2>&1 ||
        { cat "$state/worktree.log" >&2; exit 1; }
      # A worktree's path is recorded in USERS' .git: it moves with git, not with mv.
      git -C "$users" worktree move "$checkout.partial" "$checkout"
    else
      step "making maced a checkout of its own: a copy of $users (not a git checkout) in $checkout (yours is left as it is)"
      rm -rf "$checkout.partial"
      cp -a --reflink=auto "$users" "$checkout.partial"
      mv "$checkout.partial" "$checkout"
    fi
    echo "$wanted" >"$checkout.source"
    step_done
  else
    echo "maced's own checkout, made from $users: $checkout"
  fi
  if [ -n "$head" ] && [ -n "$(git -C "$users" status --porcelain --untracked-files=no 2>/dev/null | head -n 1)" ]; then
    echo "    $users has uncommitted changes; maced's checkout is its commit ${head:0:12} without them"
  fi
}

step "Debian packages to build MACE"
scripts/install-deps.sh build
step_done

# The checkout maced builds in: MACE's own clone, or one made from the user's, never the
# user's own tree (the patch and every build write into the checkout maced is given).
checkout=
if [ -n "${MACE_PITON_ROOT:-}" ]; then
  users_root=$(cd "$MACE_PITON_ROOT" && pwd)
  checkout=$state/openpiton-worktree
  make_checkout_of_users "$users_root" "$checkout"
elif [ -d "$state/openpiton/.git" ]; then
  checkout=$state/openpiton
elif timeout 20 git ls-remote "$url" HEAD >/dev/null 2>&1; then
  step "cloning OpenPiton $pinned into $state/openpiton"
  rm -rf "$state/openpiton.partial"
  # Blobs are fetched as the commit is checked out: git shows its progress on a terminal.
  git clone --progress --filter=blob:none --no-checkout "$url" "$state/openpiton.partial"
  git -C "$state/openpiton.partial" -c advice.detachedHead=false checkout --progress "$pinned"
  mv "$state/openpiton.partial" "$state/openpiton"
  checkout=$state/openpiton
  step_done
fi

if [ -n "$checkout" ]; then
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

config=$state/maced.json
if [ -n "$checkout" ]; then
  root=$(cd "$checkout" && pwd)
  step "patching maced's OpenPiton checkout $root for Verilator 5"
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
if "${mace[@]}" version >/dev/null 2>&1 && ! cmp -s "$config" "$state/maced.started.json"; then
  pid=$(started_maced_pid || true)
  if [ -n "$pid" ]; then
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
if [ -n "$checkout" ]; then
  "${mace[@]}" watch "$run" || rc=$?
fi
"${mace[@]}" status "$run"
echo
run_state=$("${mace[@]}" --json status "$run" |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["run"]["state"])')
say_how_to_use_mace "$PWD/$build/client/mace" "$MACE_SOCKET" "$default_state/maced.sock"
link_manual_pages "$PWD/$build/docs/man"
say_what_next "$run" "$run_state"
if pid=$(started_maced_pid); then
  echo "maced keeps running (pid $pid, log $state/maced.log); to stop it: scripts/quickstart.sh --stop"
else
  echo "maced at $MACE_SOCKET was not started by this script: whoever started it stops it"
fi
exit $rc
