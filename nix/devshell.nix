{ mkShell, mace, verilator, pkgsCross, python3, dtc, gawk, gnumake, bison, flex, tcsh
, perl, libelf, binutils, git, gdb }:

mkShell {
  inputsFrom = [ mace ];
  packages = [
    verilator
    # RISC-V GCC with the rv64imafdc/lp64d and rv32ima/ilp32 multilibs OpenPiton's diags use.
    pkgsCross.riscv64-embedded.buildPackages.gcc
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
  ];
}
