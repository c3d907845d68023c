#!/usr/bin/env bash
# Installs the pinned versions of the agent CLIs the tests run for real (Claude Code and
# opencode, from npm) into DEST/node_modules, not globally, and writes STAMP saying what
# happened: "installed <versions>", or "unreachable: <npm's error>" when the npm registry
# cannot be reached, so the tests that need the CLIs skip and say why (and only then).
# Does nothing when DEST already holds these versions. Run by the build (tests/meson.build).
#
#   scripts/install-agent-clis.sh DEST STAMP
set -uo pipefail

# The versions the tests were written against (docs/llm-backends.md). Change them here.
claude_version=2.1.332
opencode_version=1.18.33

dest=$1
stamp=$2
want="installed @anthropic-ai/claude-code@$claude_version opencode-ai@$opencode_version"

have_version() {  # $1: package directory, $2: version
  [[ -f $dest/node_modules/$1/package.json ]] &&
    grep -q "\"version\": \"$2\"" "$dest/node_modules/$1/package.json"
}

if have_version @anthropic-ai/claude-code "$claude_version" && have_version opencode-ai "$opencode_version" &&
  [[ -x $dest/node_modules/.bin/claude && -x $dest/node_modules/.bin/opencode ]]; then
  echo "$want" >"$stamp"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "unreachable: npm is not installed (scripts/install-deps.sh installs Debian's)" >"$stamp"
  exit 0
fi
mkdir -p "$dest"
log=$dest/npm-install.log
started=$(date +%s)
# Each package's postinstall links its platform's native binary (an optional dependency
# of the same version) into place: nothing is downloaded but from the registry.
install() {  # "$@": more npm options
  npm install --prefix "$dest" --no-audit --no-fund --no-save --no-package-lock \
    --loglevel=error "$@" "@anthropic-ai/claude-code@$claude_version" \
    "opencode-ai@$opencode_version" >>"$log" 2>&1
}
works() { "$dest/node_modules/.bin/claude" --version && "$dest/node_modules/.bin/opencode" --version; } >/dev/null 2>&1
# Where a postinstall cannot run (Claude Code's asks for node 22; Debian 12 has 18), put the
# platform binaries in place ourselves, as those scripts do.
link_natives() {
  local arch
  case $(uname -m) in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) return 1 ;; esac
  local m=$dest/node_modules
  cp -f "$m/@anthropic-ai/claude-code-linux-$arch/claude" "$m/@anthropic-ai/claude-code/bin/claude.exe" &&
    cp -f "$m/opencode-linux-$arch/bin/opencode" "$m/opencode-ai/bin/opencode.exe" &&
    chmod +x "$m/@anthropic-ai/claude-code/bin/claude.exe" "$m/opencode-ai/bin/opencode.exe"
}
: >"$log"
if install && works || { install --ignore-scripts && link_natives && works; }; then
  echo "$want" >"$stamp"
  echo "install-agent-clis: $want in $(( $(date +%s) - started )) s" >&2
  exit 0
fi
# Only a registry that cannot be reached lets the tests skip; any other failure is one.
if grep -qiE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network|offline' "$log"; then
  echo "unreachable: $(grep -m1 -iE 'ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ETIMEDOUT|ECONNRESET|network|offline' "$log")" >"$stamp"
  exit 0
fi
echo "install-agent-clis: npm install failed:" >&2
cat "$log" >&2
exit 1
