#!/usr/bin/env bash
# The systemd units pass `systemd-analyze verify` and the Nix files parse. Exit 77 (meson's
# "skipped") when a tool is missing, saying which.
set -euo pipefail
src=${MACE_SOURCE_ROOT:?run through meson test}
what=$1

case $what in
  systemd)
    command -v systemd-analyze >/dev/null || { echo "skipped: systemd-analyze is not installed"; exit 77; }
    dir=$(mktemp -d)
    trap 'rm -rf "$dir"' EXIT
    # The units as this build generated them (systemd/maced.*.in with its paths).
    cp "${MACE_BUILD_ROOT:?}/systemd/maced.service" "$MACE_BUILD_ROOT/systemd/maced.socket" "$dir/"
    # verify checks that ExecStart exists; point it at the maced just built.
    sed -i "s#^ExecStart=[^ ]*/maced #ExecStart=$MACE_BUILD_ROOT/daemon/maced/maced #" "$dir/maced.service"
    out=$(systemd-analyze verify --man=no "$dir/maced.socket" "$dir/maced.service" 2>&1) || { echo "$out"; exit 1; }
    # verify exits 0 on some warnings; treat any line naming our units as a failure.
    if grep -E "maced\.(service|socket)" <<<"$out"; then exit 1; fi
    echo "systemd units verified"
    ;;
  nix)
    command -v nix-instantiate >/dev/null || { echo "skipped: nix-instantiate is not installed (Debian: nix-bin)"; exit 77; }
    for f in "$src/flake.nix" "$src"/nix/*.nix; do
      nix-instantiate --parse "$f" >/dev/null
      echo "parses: ${f#"$src"/}"
    done
    # REQ-TOOL-9, as this version reads it (no Python toolchain: MACE is C++ here): the
    # development shell has Verilator, both RISC-V GCCs and what OpenPiton's scripts use.
    # nixpkgs is not reachable here, so this reads the shell's package list, not a build.
    packages=$(sed -n '/^  packages = \[/,/^  \]/p' "$src/nix/devshell.nix" | sed 's/#.*//')
    for tool in verilator riscv64.gcc riscv32.gcc python3 dtc gawk gnumake bison flex tcsh \
                perl libelf binutils git; do
      grep -Fwq "$tool" <<<"$packages" || { echo "nix/devshell.nix: the shell's packages lack $tool"; exit 1; }
    done
    echo "nix develop lists the OpenPiton toolchain"
    ;;
esac
