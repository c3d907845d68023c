#!/usr/bin/env bash
# Runs every test that needs a real OpenPiton checkout twice in a row on the same two
# checkouts, the second time with whatever the first left in them (models, store entries,
# ccache entries, run directories), and fails if any of those tests fails or is skipped in
# either pass. Run it before resolving anything that touches builds, runs or Slurm
# (docs/development.md#tests-on-a-real-checkout).
#
#   scripts/real_twice.sh CHECKOUT CHECKOUT_2 [BUILD_DIR]   (BUILD_DIR default: build)
#
# The tests are those whose name holds "Real" (the suite's convention for a test that
# needs MACE_TEST_PITON_ROOT), from every suite that has some. Each pass's whole output is
# kept in BUILD_DIR/meson-logs/real-pass-<N>.txt.
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 CHECKOUT CHECKOUT_2 [BUILD_DIR]" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/.." && pwd)
first=$(cd "$1" && pwd)
second=$(cd "$2" && pwd)
build=${3:-build}
[[ $build = /* ]] || build=$root/$build
if [[ $first == "$second" ]]; then
  echo "real_twice.sh: the two checkouts must be two copies, not one path twice" >&2
  exit 2
fi
for c in "$first" "$second"; do
  [[ -x $c/piton/tools/bin/sims ]] || { echo "real_twice.sh: $c is not an OpenPiton checkout (no piton/tools/bin/sims)" >&2; exit 2; }
done

# The meson tests that hold real-checkout tests, in an order where the longest come first.
suites=(real_regression real_run figures_real eval_real generic_run real_cli_run slurm_run
        daemon openpiton tools)

export MACE_TEST_PITON_ROOT=$first MACE_TEST_PITON_ROOT_2=$second
for pass in 1 2; do
  log=$build/meson-logs/real-pass-$pass.txt
  echo "real_twice.sh: pass $pass of 2 on $first and $second"
  start=$(date +%s)
  # One test program at a time: two programs' maced instances must not build in one
  # checkout at once, which is exactly what the pool prevents within one maced.
  status=0
  meson test -C "$build" --no-rebuild --num-processes 1 --timeout-multiplier 10 \
    --test-args='--gtest_filter=*Real*' "${suites[@]}" >"$log.console" 2>&1 || status=$?
  # meson's own log holds each program's whole output.
  cp "$build/meson-logs/testlog.txt" "$log"
  ran=$(grep -c '^\[       OK \]' "$log" || true)
  skipped=$(grep '^\[  SKIPPED \]' "$log" | grep -v ' tests\?, listed below:' || true)
  echo "real_twice.sh: pass $pass: $ran tests passed in $(( $(date +%s) - start )) s"
  if [[ $status -ne 0 ]]; then
    echo "real_twice.sh: pass $pass failed; its output: $log" >&2
    grep -E '^\[  FAILED  \]' "$log" | sort -u >&2 || true
    exit 1
  fi
  if [[ -n $skipped ]]; then
    echo "real_twice.sh: pass $pass skipped real-checkout tests:" >&2
    sort -u <<<"$skipped" >&2
    exit 1
  fi
  if [[ $ran -eq 0 ]]; then
    echo "real_twice.sh: pass $pass ran no test: is $build built?" >&2
    exit 1
  fi
done
echo "real_twice.sh: both passes green, none skipped"
