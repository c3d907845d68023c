{ lib, path, stdenv, mkShell, runCommand, mace, meson, ninja, pkg-config, verilator
, pkgsCross, python3, dtc, gawk, gnumake, bison, flex, tcsh, perl, libelf, binutils, git
, gdb, xxd ? null }:

let
  # rv64imafdc/lp64d: riscv64-none-elf's default (rv64gc), for Ariane's diags.
  riscv64 = pkgsCross.riscv64-embedded.buildPackages;
  # rv32ima/ilp32 (soft float), for PicoRV32's diags: a target of its own, so libgcc and
  # newlib are built for exactly that ABI whatever riscv32-embedded defaults to.
  riscv32 = (import path {
    localSystem = stdenv.buildPlatform.system;
    crossSystem = {
      config = "riscv32-none-elf";
      libc = "newlib";
      gcc = { arch = "rv32ima"; abi = "ilp32"; };
    };
  }).buildPackages;

  # OpenPiton's sims and MACE's adapter call the toolchains by Debian's names
  # (riscv64-unknown-elf-gcc, riscv32-unknown-elf-gcc); nixpkgs names them *-none-elf-*.
  unknownElfNames = runCommand "riscv-unknown-elf-names" { } ''
    mkdir -p $out/bin
    for dir in ${riscv64.gcc}/bin ${riscv64.binutils}/bin ${riscv32.gcc}/bin ${riscv32.binutils}/bin; do
      for tool in "$dir"/riscv*-none-elf-*; do
        name=$(basename "$tool")
        ln -sf "$tool" "$out/bin/''${name/-none-elf-/-unknown-elf-}"
      done
    done
  '';
in
mkShell {
  # The compiler (stdenv's) and every library and build tool of the package: Cap'n Proto,
  # libuv, SQLite, simdjson, libcurl, OpenSSL, libsystemd, GoogleTest, meson, ninja,
  # pkg-config.
  inputsFrom = [ mace ];
  packages = [
    meson
    ninja
    pkg-config
    verilator
    # RISC-V GCC for the rv64imafdc/lp64d and rv32ima/ilp32 code OpenPiton's diags use.
    riscv64.gcc
    riscv32.gcc
    unknownElfNames
    python3
    dtc
    gawk
    gnumake
    bison
    flex
    tcsh
    (perl.withPackages (p: [ p.BitVector ]))
    libelf
    binutils # objdump
    git
    gdb
  ] ++ lib.optional (xxd != null) xxd;
}
