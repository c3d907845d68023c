#!/usr/bin/env bash
# Installs, from Debian 12's own archive, the packages of the groups named (default: build
# and test, what scripts/test.sh needs). Installs nothing when everything is already there,
# so it is safe to run again and again.
#
#   scripts/install-deps.sh [build] [run] [test] [sanitize]
#
#   build  compile maced and mace
#   run    what maced's builds and simulations run: OpenPiton's toolchain (Verilator, the
#          RISC-V GCC, tcsh, perl, ...) and ccache
#   test   what the test suite uses: everything of run (the suites drive real maced runs,
#          and every build asks Verilator its version), and besides a headless browser,
#          Slurm and munge, nix, man, jq, node and npm for the agent CLIs
#   sanitize the sanitizer and libFuzzer build (scripts/sanitize.sh, scripts/fuzz.sh): clang,
#          its runtimes (ASan, UBSan, TSan, libFuzzer) and llvm-symbolizer for the reports
set -euo pipefail

declare -A group=(
  [build]="g++ meson ninja-build pkg-config
    capnproto libcapnp-dev libuv1-dev libsqlite3-dev libsimdjson-dev
    libcurl4-openssl-dev libssl-dev libsystemd-dev libgtest-dev libgmock-dev python3 git
    zlib1g-dev"
  [run]="verilator gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf device-tree-compiler
    tcsh bison flex gawk libbit-vector-perl libelf-dev xxd make perl python3 git ccache"
  # systemd-analyze and nix-instantiate check the units and the flake; man renders the
  # manual pages; chromium checks the HTML reports; slurm-wlm and munge make the Slurm
  # executor's test cluster; ccache is maced's compiler cache; patch checks that the diffs
  # of RTL edits apply with it as with git; xmllint (libxml2-utils) checks JUnit XML against
  # its schema. zlib1g-dev (build): large logs a run keeps are
  # compressed.
  [test]="jq systemd nix-bin man-db chromium slurm-wlm munge ccache patch libxml2-utils"
  [sanitize]="clang libclang-rt-14-dev llvm-14"
)

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build test)
packages=()
for g in "${groups[@]}"; do
  if [ -z "${group[$g]+set}" ]; then
    echo "install-deps: no group \"$g\" (groups: build, run, test, sanitize)" >&2
    exit 2
  fi
  read -r -a members <<<"$(echo ${group[$g]})"
  packages+=("${members[@]}")
  # The tests run maced's builds and simulations (on the fixture checkout, and on a real one
  # when MACE_TEST_PITON_ROOT names it), so they need everything a run needs.
  if [ "$g" = test ]; then
    read -r -a members <<<"$(echo ${group[run]})"
    packages+=("${members[@]}")
  fi
  # The tests install the real agent CLIs with npm (scripts/install-agent-clis.sh). A
  # machine whose node and npm came from elsewhere (NodeSource) keeps them.
  if [ "$g" = test ] && { ! command -v node >/dev/null || ! command -v npm >/dev/null; }; then
    packages+=(nodejs npm)
  fi
done

missing=()
for p in $(printf '%s\n' "${packages[@]}" | sort -u); do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
echo "Installing from Debian (${groups[*]}): ${missing[*]}"
echo "  updating the package lists"
"${sudo[@]}" apt-get update -qq
# apt's own lines, folded to a count: how many packages (with their dependencies) are
# fetched and set up, as it goes.
start=$SECONDS
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" 2>&1 | awk -v tty="$([ -t 1 ] && echo 1)" '
  # On a terminal every step in place; on a pipe (a CI log) every tenth of the way.
  function show(text, n) {
    if (tty) { printf "\r\033[K  %s", text; fflush() }
    else if (total == 0 || n == total || int(n * 10 / total) != int((n - 1) * 10 / total)) { print "  " text; fflush() }
    last = text
  }
  /newly installed/ { total = $3 + 0 }
  /^Get:/ { got++; show(sprintf("downloading %d of %d packages", got, total), got) }
  /^Setting up / { done++; show(sprintf("setting up %d of %d packages (%s)", done, total, $3), done) }
  /^E: / { errors = errors $0 "\n" }
  END { if (tty && last != "") printf "\n"; printf "%s", errors }
' || true
still=()
for p in "${missing[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || still+=("$p")
done
if [ ${#still[@]} -gt 0 ]; then
  echo "install-deps: apt-get could not install: ${still[*]}" >&2
  exit 1
fi
echo "  installed in $((SECONDS - start)) s"
