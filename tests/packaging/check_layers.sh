#!/bin/bash
# The layers of daemon/ and client/, and what each may include (docs/architecture.md). Every #include "x/..."
# in a folder must name a folder its rule allows; <...> headers are the system's. Two rules
# are requirements: os/ uses nothing of ours, and the OpenPiton adapter uses only os/
# (REQ-PLAT-9), also in its meson.build, so it can be lifted out with the base layer.
# Fails naming each offending line.
set -euo pipefail
root=${MACE_SOURCE_ROOT:?MACE_SOURCE_ROOT is not set (run with meson test)}

# folder: the folders its files may include, besides itself.
declare -A allowed=(
  [os]=""
  [core]="os"
  [openpiton]="os"
  [slurm]="os"
  [loop]="os core"
  [eval]="os core"
  [store]="os core"
  [evidence]="os"
  [llm]="os core"
  [mcp]="os core llm"
  [waveform]="os"
  [tools]="os core llm openpiton waveform"
  [executor]="os core loop llm openpiton tools waveform"
  [replay]="os core loop executor openpiton store"
  [service]="os core eval store evidence"
  [run]="os core eval loop llm openpiton slurm tools waveform executor replay store evidence service"
  [rpc]="os core eval store evidence service llm mcp"
  [maced]="os core eval loop llm openpiton slurm tools waveform executor replay store evidence service run rpc"
)

bad=0
# check_includes DIR NAME " allowed folders ": every #include "x/..." in DIR names one of them.
check_includes() {
  local hit included
  while IFS= read -r hit; do
    included=$(sed -E 's/.*#\s*include\s+"([^/"]+)\/.*/\1/' <<<"$hit")
    if [[ "$3" != *" $included "* ]]; then
      echo "$2 may not include $included/: ${hit#"$root"/}" >&2
      bad=1
    fi
  done < <(grep -rnE '^\s*#\s*include\s+"[^/"]+/' "$1" --include=*.h --include=*.cc || true)
}

for dir in "$root"/daemon/*/; do
  layer=$(basename "$dir")
  if [[ ! -v allowed[$layer] ]]; then
    echo "daemon/$layer/ is a folder the layer rules do not know; add it to ${0##*/}" >&2
    bad=1
    continue
  fi
  check_includes "$dir" "daemon/$layer" " $layer ${allowed[$layer]} "
  # A header of ours without a folder would bypass the rule. The schema's own headers
  # (schema/: the generated mace.capnp.h and capnp_text.h) are the wire's, which every
  # layer that speaks it may include.
  if grep -rnE '^\s*#\s*include\s+"[^/"]+"' "$dir" --include=*.h --include=*.cc |
      grep -vE '"(mace\.capnp|capnp_text)\.h"'; then
    echo "daemon/$layer includes a header of ours without its folder" >&2
    bad=1
  fi
done

# client/ (mace) is a client of the schema: of the daemon's folders it may use only the
# base, the domain's words, the adapter's verdict readers and the MCP server; its own
# headers it names without a folder.
check_includes "$root/client" "client" " os core openpiton mcp "

# The adapter's and the base layer's builds link nothing of ours but what their rule allows.
for layer in os openpiton slurm; do
  own="mace_${layer}_dep"
  if grep -nE 'mace_[a-z]+_dep' "$root/daemon/$layer/meson.build" | grep -vE "$own|mace_os_dep"; then
    echo "daemon/$layer/meson.build links a MACE library its rule does not allow" >&2
    bad=1
  fi
done

if [ "$bad" -eq 0 ]; then
  echo "every layer of daemon/ and client/ includes only what its rule allows; os/, openpiton/ and slurm/ link only os/"
fi
exit $bad
