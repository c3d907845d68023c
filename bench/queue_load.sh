#!/usr/bin/env bash
# bench/queue_load.sh [BUILD_DIR] [RUNS] [SAMPLES] [LISTERS] [ROUNDS]: what one user's large queue
# costs another. Starts a maced of its own (no checkouts, so every run stays queued; its
# queue limit raised to RUNS), submits RUNS runs of a ~230 KB spec (within every limit:
# the longest objective, 256 long workload names, three long finish masks) as user A,
# then measures the latency of user B's `mace version`, SAMPLES times with maced idle (the
# baseline) and SAMPLES times while LISTERS loops list A's whole queue over and over
# (`mace list --limit 0`), in ROUNDS alternating turns of one run. Prints p50 and p99 of
# each and their ratio.
# Both users are this script's uid: maced's work per call does not depend on who asks.
set -euo pipefail
build=${1:-build}
runs=${2:-1000}
samples=${3:-200}
listers=${4:-2}
rounds=${5:-4}
cd "$(dirname "$0")/.."
meson compile -C "$build" maced mace >/dev/null
mace="$build/client/mace"
dir=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  kill "$maced_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$dir"
}
maced_pid=
trap cleanup EXIT
echo "{\"queue\": {\"max_runs_per_user\": $runs}}" >"$dir/maced.json"
"$build/daemon/maced/maced" --socket "$dir/maced.sock" --state-dir "$dir/state" \
  --config "$dir/maced.json" --workloads "$PWD/workloads" 2>"$dir/maced.log" &
maced_pid=$!
for _ in $(seq 200); do [ -S "$dir/maced.sock" ] && break; sleep 0.05; done

python3 - "$dir/spec.json" <<'PY'
import json, sys
workloads = ["w" * 120 + "%03d.S" % i for i in range(256)]
spec = {
    "core": "pico", "mesh": [256, 256], "backend": "direct",
    "objective": "o" * 16384,
    "workloads": workloads,
    "workload_args": {w: {"finish_mask": "1" * 60000} for w in workloads[:3]},
}
text = json.dumps(spec)
open(sys.argv[1], "w").write(text)
print("spec: %d bytes" % len(text))
PY
"$mace" --socket "$dir/maced.sock" spec check "$dir/spec.json" >/dev/null

start=$EPOCHREALTIME
seq "$runs" | xargs -P 4 -I{} "$mace" --socket "$dir/maced.sock" submit "$dir/spec.json" >/dev/null
queued=$("$mace" --socket "$dir/maced.sock" list --state queued --limit 0 | tail -n +2 | wc -l)
printf 'submitted %d runs in %.1f s; %d queued\n' "$runs" "$(echo "$EPOCHREALTIME - $start" | bc)" "$queued"

# N latencies of `mace version`, in ms, one a line.
latencies() {
  for _ in $(seq "$1"); do
    local t0=$EPOCHREALTIME
    "$mace" --socket "$dir/maced.sock" version >/dev/null
    echo "($EPOCHREALTIME - $t0) * 1000" | bc -l
  done
}
percentile() {  # FILE P: the value at rank ceil(P * lines) of a sorted file
  awk -v p="$2" -v n="$(wc -l <"$1")" \
    'BEGIN { r = int(p * n); if (r < p * n) r++; if (r < 1) r = 1 } NR == r { printf "%.1f", $1; exit }' "$1"
}

# The latencies of N calls while LISTERS copies of a loop run (in the background).
latencies_while() {  # N LOOP...
  local n=$1
  shift
  for _ in $(seq "$listers"); do
    ("$@") &
    pids+=($!)
  done
  sleep 0.5
  latencies "$n"
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait "${pids[@]}" 2>/dev/null || true
  pids=()
  sleep 0.5
}
list_forever() { while :; do "$mace" --socket "$dir/maced.sock" list --limit 0 >/dev/null 2>&1; done; }
# The control: as many loops that only burn CPU and never ask maced anything, so what two
# busy processes cost B on this machine anyway is seen beside what the listing costs.
burn_forever() { while :; do :; done; }

# Idle, loaded and control phases alternate, ROUNDS of each, so that the machine's other
# work, which comes and goes, weighs on all alike.
per_round=$(( (samples + rounds - 1) / rounds ))
: >"$dir/idle"
: >"$dir/loaded"
: >"$dir/burn"
for _ in $(seq "$rounds"); do
  latencies "$per_round" >>"$dir/idle"
  latencies_while "$per_round" list_forever >>"$dir/loaded"
  latencies_while "$per_round" burn_forever >>"$dir/burn"
done
for f in idle loaded burn; do sort -g -o "$dir/$f" "$dir/$f"; done

single_start=$EPOCHREALTIME
"$mace" --socket "$dir/maced.sock" list --limit 0 >/dev/null
single=$(echo "($EPOCHREALTIME - $single_start) * 1000" | bc -l)

idle50=$(percentile "$dir/idle" 0.5); idle99=$(percentile "$dir/idle" 0.99)
load50=$(percentile "$dir/loaded" 0.5); load99=$(percentile "$dir/loaded" 0.99)
burn50=$(percentile "$dir/burn" 0.5); burn99=$(percentile "$dir/burn" 0.99)
echo "mace version latency over $((per_round * rounds)) calls each (ms), $runs queued runs of user A"
echo "  idle:                                   p50 $idle50  p99 $idle99"
echo "  while $listers loops list A's whole queue: p50 $load50  p99 $load99"
echo "  while $listers loops only burn CPU:        p50 $burn50  p99 $burn99"
printf '  ratio loaded/idle: p50 %.2fx  p99 %.2fx\n' "$(echo "$load50 / $idle50" | bc -l)" \
  "$(echo "$load99 / $idle99" | bc -l)"
printf '  ratio control/idle: p50 %.2fx  p99 %.2fx\n' "$(echo "$burn50 / $idle50" | bc -l)" \
  "$(echo "$burn99 / $idle99" | bc -l)"
printf '  (one `mace list --limit 0` of the whole queue took %.0f ms)\n' "$single"
