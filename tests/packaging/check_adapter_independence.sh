#!/bin/bash
# REQ-PLAT-9: the OpenPiton adapter (daemon/openpiton/) depends on nothing else of MACE's,
# so it can be lifted out on its own. Every #include in it must name a standard or POSIX
# header (<...>) or another file of the adapter ("openpiton/..."); its meson.build must
# link nothing of ours. Fails naming each offending line.
set -euo pipefail
root=${MACE_SOURCE_ROOT:?MACE_SOURCE_ROOT is not set (run with meson test)}
dir=$root/daemon/openpiton
bad=0
while IFS= read -r line; do
  echo "not the adapter's own or a system header: $line" >&2
  bad=1
done < <(grep -nE '^\s*#\s*include\s+"' "$dir"/*.h "$dir"/*.cc | grep -vE '#\s*include\s+"openpiton/[^"/]+"' || true)
if grep -nE 'mace_[a-z]+_dep' "$dir/meson.build" | grep -v 'mace_openpiton_dep'; then
  echo "daemon/openpiton/meson.build links another MACE library" >&2
  bad=1
fi
count=$(ls "$dir"/*.cc | wc -l)
if [ "$bad" -eq 0 ]; then echo "the adapter's $count source files include only their own and system headers"; fi
exit $bad
