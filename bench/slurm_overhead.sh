#!/usr/bin/env bash
# bench/slurm_overhead.sh [BUILD_DIR] [RUNS] [PITON_ROOT]: what running a checkout's work as
# Slurm jobs costs, against the local executor, side by side in one run.
#
# Starts a single-node Slurm of its own (tests/support/slurm_cluster.sh; needs root, the
# packages slurm-wlm and munge) and two maced, one per executor, each with its own copy of
# the fixture checkout. Each submits RUNS identical pico 1x1 runs (hello and memstress, the
# direct planner), one after the other, and times each from submit to the end of `watch`:
# the fixture's sims returns at once, so the difference is what srun, the job lookup and
# the end-of-job wait add to a run's three steps (one build, two simulations).
#
# With PITON_ROOT (a real checkout patched by scripts/patch_openpiton.sh), it then copies
# that checkout twice (without its models) and times cold pico 1x1 hello runs with each
# executor, the build included. The copies are removed afterwards; PITON_ROOT is only read.
set -euo pipefail
build=${1:-build}
runs=${2:-5}
piton=${3:-}
cd "$(dirname "$0")/.."
source_root=$PWD
meson compile -C "$build" maced mace >/dev/null

dir=$(mktemp -d /tmp/mace-bench-slurm.XXXXXX)
# munged, running as munge, must reach its directory inside ours.
chmod 0755 "$dir"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  tests/support/slurm_cluster.sh stop "$dir/slurm" >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap cleanup EXIT

cluster=$(tests/support/slurm_cluster.sh start "$dir/slurm")
slurm_conf=$(sed -n 's/^SLURM_CONF=//p' <<<"$cluster")
node=$(sed -n 's/^NODE=//p' <<<"$cluster")

# A fixture checkout as the tests make one: a git repository with one commit.
fixture_checkout() {
  cp -r tests/fixtures/openpiton "$1"
  git -C "$1" -c init.defaultBranch=main init -q
  git -C "$1" add -A
  git -C "$1" -c user.name=bench -c user.email=bench@localhost commit -qm fixture
}

# start_maced NAME CHECKOUT EXECUTOR_JSON: a maced in $dir/NAME with one checkout on $node.
start_maced() {
  local name=$1 checkout=$2 executor=$3
  mkdir -p "$dir/$name"
  cat >"$dir/$name/maced.json" <<EOF
{"checkouts": [{"path": "$checkout", "node": "$node"}], "executor": $executor}
EOF
  "$build/daemon/maced/maced" --socket "$dir/$name/maced.sock" --state-dir "$dir/$name/state" \
    --config "$dir/$name/maced.json" --workloads "$source_root/workloads" \
    2>"$dir/$name/maced.log" &
  pids+=($!)
  for _ in $(seq 100); do [ -S "$dir/$name/maced.sock" ] && return 0; sleep 0.05; done
  echo "slurm_overhead: maced $name did not start:" >&2
  cat "$dir/$name/maced.log" >&2
  exit 1
}

slurm_executor() {
  cat <<EOF
{"kind": "slurm", "slurm": {"gres": "openpiton:1",
  "build": {"cpus": 2, "memory_mb": 2000}, "simulate": {"cpus": 1, "memory_mb": 500},
  "environment": {"SLURM_CONF": "$slurm_conf"}}}
EOF
}

# timed_run NAME SPEC: submits, watches to the end, prints the wall seconds; fails unless
# the run passed.
timed_run() {
  local name=$1 spec=$2 started ended id
  started=$(date +%s.%N)
  id=$("$build/client/mace" --socket "$dir/$name/maced.sock" submit "$spec")
  if ! "$build/client/mace" --socket "$dir/$name/maced.sock" watch "$id" >"$dir/$name/watch.out"; then
    echo "slurm_overhead: run $id on $name did not pass:" >&2
    cat "$dir/$name/watch.out" >&2
    "$build/client/mace" --socket "$dir/$name/maced.sock" logs "$id" >&2 || true
    exit 1
  fi
  ended=$(date +%s.%N)
  calc "$ended - $started"
}

# calc EXPRESSION: floating-point arithmetic without bc.
calc() { awk "BEGIN { print $1 }"; }

cat >"$dir/fixture.json" <<'EOF'
{"core": "pico", "mesh": [1, 1], "workloads": ["hello", "memstress"],
 "objective": "bench: one build and two simulations", "backend": "direct",
 "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 600}}
EOF
fixture_checkout "$dir/fixture-local"
fixture_checkout "$dir/fixture-slurm"
start_maced local "$dir/fixture-local" '{"kind": "local"}'
start_maced slurm "$dir/fixture-slurm" "$(slurm_executor)"

echo "fixture checkout, pico 1x1, hello + memstress, $runs runs each (seconds, submit to end):"
local_total=0
slurm_total=0
for i in $(seq "$runs"); do
  l=$(timed_run local "$dir/fixture.json")
  s=$(timed_run slurm "$dir/fixture.json")
  printf '  run %d: local %.3f  slurm %.3f\n' "$i" "$l" "$s"
  local_total=$(calc "$local_total + $l")
  slurm_total=$(calc "$slurm_total + $s")
done
printf 'fixture: local %.3f s per run, slurm %.3f s per run, slurm/local %.2fx, +%.3f s per run\n' \
  "$(calc "$local_total / $runs")" "$(calc "$slurm_total / $runs")" \
  "$(calc "$slurm_total / $local_total")" \
  "$(calc "($slurm_total - $local_total) / $runs")"

[ -n "$piton" ] || exit 0

# The real checkout: two copies without models. Four cold runs in the order local, Slurm,
# Slurm, local, so that load drifting through the bench weighs on both executors alike; each
# run first removes the model the one before it built.
for name in real-local real-slurm; do
  mkdir -p "$dir/$name-checkout"
  tar -C "$piton" --exclude=./build -cf - . | tar -C "$dir/$name-checkout" -xf -
done
cat >"$dir/real.json" <<'EOF'
{"core": "pico", "mesh": [1, 1], "workloads": ["hello"],
 "objective": "bench: a cold pico 1x1 build and hello", "backend": "direct",
 "budget": {"max_iterations": 1, "max_usd": 1.0, "max_wall_s": 3600}}
EOF
start_maced real-local "$dir/real-local-checkout" '{"kind": "local"}'
start_maced real-slurm "$dir/real-slurm-checkout" "$(slurm_executor)"
cold_run() {
  rm -rf "$dir/$1-checkout/build"
  timed_run "$1" "$dir/real.json"
}
l1=$(cold_run real-local)
s1=$(cold_run real-slurm)
s2=$(cold_run real-slurm)
l2=$(cold_run real-local)
printf 'real checkout, cold pico 1x1 build + hello (order local, slurm, slurm, local): local %.1f s and %.1f s, slurm %.1f s and %.1f s, slurm/local %.3fx\n' \
  "$l1" "$l2" "$s1" "$s2" "$(calc "($s1 + $s2) / ($l1 + $l2)")"
