#!/usr/bin/env bash
# The whole test suite from a fresh Debian 12 machine: install what is missing, build,
# run `meson test`. Safe to run again: it reuses the build directory.
#
#   scripts/test.sh                 # everything
#   scripts/test.sh core store      # only these meson test suites
#
# Tests that need a real OpenPiton checkout run when MACE_TEST_PITON_ROOT names one and
# say they are skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh build test

scripts/build.sh
build=${MACE_BUILD_DIR:-build}
rc=0
meson test -C "$build" --print-errorlogs "$@" || rc=$?
scripts/test_summary.py "$build/meson-logs/testlog.junit.xml" || true
exit $rc
