#!/usr/bin/env bash
# Installs, from Debian 12's own archive, what building and testing MACE needs. Installs
# nothing when everything is already there, so it is safe to run again and again.
set -euo pipefail

packages=(
  g++ meson ninja-build pkg-config
  capnproto libcapnp-dev libuv1-dev libsqlite3-dev libsimdjson-dev
  libcurl4-openssl-dev libssl-dev libsystemd-dev libgtest-dev libgmock-dev
  zlib1g-dev  # large logs a run keeps are compressed
  python3 git jq
  systemd nix-bin  # systemd-analyze and nix-instantiate check the units and the flake
  man-db  # man renders the manual pages and systemd-analyze verify looks them up
  chromium  # the run report and `mace eval report` are checked in a real headless browser
  slurm-wlm munge  # a real single-node Slurm for the Slurm executor's tests
  ccache  # the Verilator models' C++ compiles through it (maced's compiler_cache)
)
# Extra groups: "$@" may name more packages (the quick start adds the OpenPiton toolchain).
packages+=("$@")
# The tests install the real agent CLIs with npm (scripts/install-agent-clis.sh). A machine
# whose node and npm came from elsewhere (NodeSource) keeps them; otherwise Debian's.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "Installing from Debian: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 2; }
  sudo=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
