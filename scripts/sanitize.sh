#!/usr/bin/env bash
# The fixture suites again, built with AddressSanitizer and UndefinedBehaviorSanitizer, and
# each fuzz target under libFuzzer for a bounded time (docs/development.md#sanitizers). CI runs it after
# scripts/test.sh. Its own build directory, build-asan/ ($MACE_SANITIZE_BUILD_DIR), built
# with Debian's clang (through ccache when there is one); safe to run again: it reuses the
# directory.
#
#   scripts/sanitize.sh               # every suite but the source checks, and libFuzzer
#   scripts/sanitize.sh daemon rpc    # only these meson tests
#   scripts/sanitize.sh --build       # configure and compile only (scripts/fuzz.sh uses it)
#
# Any sanitizer report fails it, from any process the tests start (maced, mace, mace mcp):
# every report is written under build-asan/sanitizer-reports/ and printed at the end.
# Undefined behaviour aborts (-fno-sanitize-recover=all, the top meson.build), so a report
# is never only a line in a log. Tests that need a real OpenPiton checkout skip here as in
# scripts/test.sh unless MACE_TEST_PITON_ROOT names one.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh build test sanitize

build=${MACE_SANITIZE_BUILD_DIR:-build-asan}
# -O0 and line tables only (-g1): with the sanitizers clang compiles at -O0 in a third of
# -O1's time (8.7 s against 23.4 s of CPU for a large test file), which CI's time needs
# more than the faster test run -O1 would give; the reports still name file and line.
# The libFuzzer instrumentation rides on the same build, so the fuzz targets cost no third
# compile.
if [ ! -f "$build/build.ninja" ]; then
  cxx=clang++
  command -v ccache >/dev/null && cxx="ccache clang++"
  # meson's own lines only when it fails: it says why on standard output.
  if ! out=$(CXX=$cxx meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false \
    -Doptimization=0 -Ddebug=false -Dcpp_args=-g1 -Dlibfuzzer=true 2>&1); then
    echo "$out" >&2
    echo "sanitize: meson setup $build failed" >&2
    exit 1
  fi
fi
meson compile -C "$build"
[ "${1:-}" = --build ] && exit 0

reports=$(realpath "$build")/sanitizer-reports
rm -rf "$reports"
mkdir -p "$reports"
# Reports go to files, one per process, so a finding in a maced a test stopped at its end
# is seen as surely as one in the test itself.
# (One prefix for both: the two runtimes share their log file, whichever sets it last.)
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:log_path=$reports/report"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:log_path=$reports/report"
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer

rc=0
# Everything runs several times slower under ASan: the timeouts with it. Left out here, as
# they find nothing a sanitizer would that the rest does not, and cost minutes of CI: the
# seeded fuzz run (libFuzzer runs the same targets below, under the same sanitizers), and
# two Slurm tests whose length is Slurm's own clock (a job's one-minute time limit, a
# killed slurmd's node timeout), which the normal pass runs.
export GTEST_FILTER="-SlurmRunTest.AJobSlurmEndsForItsTimeLimitIsATimeout:SlurmNodesTest.ANodeWhoseSlurmdIsKilledMidRunHasItsTaskRetriedOnAnother"
meson test -C "$build" --print-errorlogs --no-suite source --no-suite seeded_fuzz --timeout-multiplier 3 "$@" || rc=$?
scripts/test_summary.py "$build/meson-logs/testlog.junit.xml" || true

shopt -s nullglob
found=("$reports"/*)
if [ ${#found[@]} -gt 0 ]; then
  echo "sanitize: ${#found[@]} sanitizer report(s):" >&2
  for report in "${found[@]}"; do
    echo "==== $report" >&2
    head -n 60 "$report" >&2
  done
  rc=1
else
  echo "sanitize: no sanitizer report"
fi
exit $rc
