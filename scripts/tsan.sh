#!/usr/bin/env bash
# maced's threaded parts under ThreadSanitizer (docs/development.md#threadsanitizer): builds
# build-tsan/ with Debian's clang (-Db_sanitize=thread, -O1) and runs the suites whose code
# runs on several threads: the run supervisor's run threads calling into the event loop
# (maced), the executor's task threads (executor), and real maced processes serving clients
# while runs build and simulate (daemon). Not part of CI (a third build would not fit its
# time); run it after changing anything threads touch.
#
#   scripts/tsan.sh                  # maced executor daemon
#   scripts/tsan.sh maced            # only these meson tests
#
# Exit 1 when any test fails or any process reports a race; the reports are kept in
# build-tsan/tsan-reports/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh build test sanitize
build=${MACE_TSAN_BUILD_DIR:-build-tsan}
if [ ! -f "$build/build.ninja" ]; then
  cxx=clang++
  command -v ccache >/dev/null && cxx="ccache clang++"
  CXX=$cxx meson setup "$build" -Db_sanitize=thread -Db_lundef=false -Doptimization=1 \
    -Ddebug=false -Dcpp_args=-g1 >/dev/null
fi
tests=("$@")
[ ${#tests[@]} -gt 0 ] || tests=(maced executor daemon)
ninja -C "$build" daemon/maced/maced client/mace tests/maced/maced_tests \
  tests/executor/executor_tests tests/daemon/daemon_tests
reports=$(realpath "$build")/tsan-reports
rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=0:second_deadlock_stack=1:log_path=$reports/tsan:suppressions=$PWD/tests/tsan.supp"
rc=0
meson test -C "$build" --no-rebuild --print-errorlogs --timeout-multiplier 3 "${tests[@]}" || rc=$?
shopt -s nullglob
found=("$reports"/*)
if [ ${#found[@]} -gt 0 ]; then
  echo "tsan: ${#found[@]} process(es) reported:" >&2
  grep -h "SUMMARY" "${found[@]}" | sort | uniq -c >&2
  rc=1
else
  echo "tsan: no report"
fi
exit $rc
