#!/usr/bin/env bash
# bench/makespan.sh [BUILD_DIR] [makespan_bench options]: an exploration's makespan against
# its lower bound, with queue dispatch and with the seeds' batches, on K = 2, 3, 4 fixture
# checkouts, locally and on a three-node Slurm of its own (root, slurm-wlm and munge;
# without them the Slurm rows are left out, saying why). Options: --scale S (the measured
# build times are multiplied by S, default 0.1), --seed N, --configs N, --hits N, --no-slurm.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
meson compile -C "$build" maced mace makespan_bench >/dev/null
MACE_SOURCE_ROOT=$PWD MACE_BUILD_ROOT=$(cd "$build" && pwd) "$build/bench/makespan_bench" "$@"
