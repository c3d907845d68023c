#!/usr/bin/env bash
# A task's gate workloads side by side (docs/operating-maced.md#workloads-side-by-side) on
# the fixture checkout, by how many CPUs maced may use: K workloads (default 8), each
# spending BUSY seconds of CPU (default 1; the fixture's `run_busy`), run by maced pinned
# with taskset to 1, 2 and 4 CPUs, two ways in each:
#
#   one at a time   "parallel_workloads": 1, the baseline of that CPU count;
#   side by side    maced's default: as many at once as the task's share of those CPUs.
#
# Printed: each CPU count's wall seconds of both runs (submission to end, the model reused)
# and the ratio side by side / one at a time. CPU counts above this machine's are said to
# be unmeasured, not guessed. Both runs' verdicts must be the same, or the bench fails.
#
#   bench/parallel_workloads_fixture.sh [BUILD_DIR]   (default: build)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
[[ $build = /* ]] || build=$root/$build
k=${K:-8}
busy=${BUSY:-1}
machine_cpus=$(nproc)

work=$(mktemp -d "${TMPDIR:-/tmp}/mace-parallel-fixture.XXXXXX")
maced_pid=
stop_maced() {
  if [[ -n $maced_pid ]]; then
    kill "$maced_pid" 2>/dev/null || true
    wait "$maced_pid" 2>/dev/null || true
    maced_pid=
  fi
}
cleanup() {
  stop_maced
  rm -rf "$work"
}
trap cleanup EXIT

checkout=$work/checkout
cp -r "$root/tests/fixtures/openpiton" "$checkout"
"$root/scripts/patch_openpiton.sh" --only testbench "$checkout" >/dev/null
git -C "$checkout" -c init.defaultBranch=main init -q
git -C "$checkout" add -A
git -C "$checkout" -c user.name=bench -c user.email=bench@localhost commit -qm fixture
diags=()
for i in $(seq "$k"); do
  cp "$checkout/piton/verif/diag/assembly/riscv/pico/add.S" "$checkout/piton/verif/diag/assembly/riscv/pico/w$i.S"
  diags+=("w$i.S")
done
mkdir -p "$checkout/.fake_sims"
echo "run_busy=$busy" >"$checkout/.fake_sims/control"
printf '{"checkouts": [{"path": "%s"}]}\n' "$checkout" >"$work/maced.json"
list=$(printf '"%s", ' "${diags[@]}")

mace() { "$build/client/mace" --socket "$work/maced.sock" "$@"; }

# start_maced CPUS: a maced that may run on the first CPUS CPUs only.
start_maced() {
  rm -rf "$work/state" "$work/maced.sock"
  taskset -c "0-$(( $1 - 1 ))" "$build/daemon/maced/maced" --state-dir "$work/state" \
    --socket "$work/maced.sock" --config "$work/maced.json" --workloads "$root/workloads" \
    >"$work/maced.log" 2>&1 &
  maced_pid=$!
  for _ in $(seq 100); do [[ -S $work/maced.sock ]] && break; sleep 0.1; done
}

# run PARALLEL: one run of the K workloads; prints its wall seconds, leaves its verdicts.
run() {
  local extra=""
  [[ $1 != default ]] && extra=", \"parallel_workloads\": $1"
  printf '{"core": "pico", "mesh": [1, 1], "backend": "direct", "objective": "K fixture diags",
           "workloads": [%s], "waveform": false%s}\n' "${list%, }" "$extra" >"$work/spec.json"
  local id
  id=$(mace submit "$work/spec.json" | head -1)
  mace watch "$id" >/dev/null || { echo "parallel_workloads_fixture.sh: run $id did not pass" >&2; mace status "$id" >&2; exit 1; }
  mace --json status "$id" >"$work/status.json"
  python3 - "$work/status.json" "$work/verdicts.$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
with open(sys.argv[2], "w") as out:
    for t in d["tasks"]:
        for r in t["results"]:
            out.write("%s %s %s\n" % (r["workload"], r["verdict"], r.get("cycles")))
r = d["run"]
print("%.2f" % ((r["finished_at_ms"] - r["started_at_ms"]) / 1000.0))
EOF
}

echo "$k fixture workloads of $busy s of CPU each; this machine has $machine_cpus CPUs"
for cpus in 1 2 4; do
  if (( cpus > machine_cpus )); then
    printf '%d CPUs: not measured (this machine has %d)\n' "$cpus" "$machine_cpus"
    continue
  fi
  start_maced "$cpus"
  run 1 >/dev/null  # builds the model; both runs below reuse it
  one=$(run 1)
  side=$(run default)
  stop_maced
  if ! diff -q "$work/verdicts.1" "$work/verdicts.default" >/dev/null; then
    echo "parallel_workloads_fixture.sh: on $cpus CPUs the verdicts differ:" >&2
    diff -u "$work/verdicts.1" "$work/verdicts.default" >&2 || true
    exit 1
  fi
  printf '%d CPUs: one at a time %6.2f s   side by side %6.2f s (%.2f x)\n' \
    "$cpus" "$one" "$side" "$(echo "$side / $one" | bc -l)"
done
