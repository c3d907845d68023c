#!/usr/bin/env bash
# Each fuzz target (tests/fuzz/targets.h) under libFuzzer, coverage-guided, for SECONDS
# each (default 300), one after another, from the committed corpus (tests/fuzz/corpus/).
# Builds the sanitizer build first (scripts/sanitize.sh --build): the targets run with
# AddressSanitizer and UndefinedBehaviorSanitizer.
#
#   scripts/fuzz.sh [SECONDS [TARGET...]]
#
# New inputs go to build-asan/tests/fuzz/libfuzzer/<target>/; an input that fails is kept
# as build-asan/tests/fuzz/libfuzzer/<target>-crash-<sha1> (or -timeout-, -oom-). Fixed, it
# belongs in tests/fuzz/regressions/<target>/, which CI replays. Exit 1 when any target
# found one.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-300}
shift || true
scripts/sanitize.sh --build >/dev/null
build=${MACE_SANITIZE_BUILD_DIR:-build-asan}
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for exe in "$build"/tests/fuzz/fuzz_*; do
    [ -f "$exe" ] && [ -x "$exe" ] && targets+=("${exe##*/fuzz_}")
  done
fi
symbolizer=/usr/lib/llvm-14/bin/llvm-symbolizer
[ -x "$symbolizer" ] && export ASAN_SYMBOLIZER_PATH=$symbolizer
export MACE_SOURCE_ROOT=$PWD
rc=0
for target in "${targets[@]}"; do
  work=$build/tests/fuzz/libfuzzer/$target
  mkdir -p "$work"
  echo "== $target: $seconds s"
  "$build/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -error_exitcode=1 -timeout_exitcode=1 \
    -artifact_prefix="$work-" -print_final_stats=1 "$work" "tests/fuzz/corpus/$target" \
    2>"$work.log" || { rc=1; echo "   found: $(ls "$work"-* 2>/dev/null | tr '\n' ' ')"; }
  grep -E "^stat::(number_of_executed_units|new_units_added|peak_rss_mb)|cov: " "$work.log" | tail -4 | sed 's/^/   /'
done
exit $rc
