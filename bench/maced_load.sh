#!/usr/bin/env bash
# bench/maced_load.sh [BUILD_DIR] [WATCHERS] [IDLE] [REQUESTS]: starts a maced of its own
# (no checkouts, so the run it submits stays queued and watchable), then measures the
# latency of `status` alone and under many watchers and idle connections, in one run.
set -euo pipefail
build=${1:-build}
watchers=${2:-200}
idle=${3:-50}
requests=${4:-2000}
cd "$(dirname "$0")/.."
meson compile -C "$build" maced mace maced_load_bench >/dev/null
dir=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
echo '{}' >"$dir/maced.json"
"$build/daemon/maced/maced" --socket "$dir/maced.sock" --state-dir "$dir/state" \
  --config "$dir/maced.json" 2>"$dir/maced.log" &
pid=$!
for _ in $(seq 100); do [ -S "$dir/maced.sock" ] && break; sleep 0.05; done
cat >"$dir/spec.json" <<'SPEC'
{"core": "pico", "workloads": ["hello"], "objective": "load", "backend": "direct"}
SPEC
run=$("$build/client/mace" --socket "$dir/maced.sock" submit "$dir/spec.json")
"$build/bench/maced_load_bench" "$dir/maced.sock" "$run" "$watchers" "$idle" "$requests"
