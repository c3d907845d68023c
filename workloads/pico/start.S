/*
 * MACE pico start-up code.
 *
 * MACE compiles a workload's C file to assembly and writes a wrapper <name>.S that
 * defines MACE_TILES, then #includes this file and the compiled assembly. sims' rv32_as
 * assembles and links the wrapper at 0x40000000 and turns the labels `pass` and `fail`
 * into the good and bad trap.
 *
 * Every tile starts at 0x40000000 (tile 0 from the boot packet, the others from the
 * wake-up interrupts MACE's wake.ev sends), so everything here runs once per tile:
 *   1. take a slot: an atomic fetch-and-add on mace_slot_counter gives each hart a
 *      distinct number 0, 1, ... in arrival order (not the tile's position in the mesh);
 *   2. refuse a slot >= MACE_TILES (more harts than the program was built for);
 *   3. set up a private stack for the slot;
 *   4. call int main(int slot); 0 is a pass, anything else a fail.
 *
 * Memory map (the testbench's memory reads 0 where nothing was written):
 *   0x40000000 ...            this code, then the program's text and data (< 1 MiB)
 *   0x40100000 - 0x40800000   stacks, MACE_STACK_SIZE each, growing down from
 *                             MACE_STACK_TOP: room for 448 slots
 *   0x41000000 ...            free for workloads (memstress uses it; see there)
 */

#ifndef MACE_TILES
#define MACE_TILES 1
#endif

#define MACE_STACK_TOP  0x40800000
#define MACE_STACK_SIZE 0x4000

    .section .text.init, "ax", @progbits
    .globl  _start
_start:
    /* The first instruction at 0x40000000 is also what wakes the other tiles (the
       wake.ev trigger); nothing here depends on it being special. */
    la      t0, mace_slot_counter
    li      t1, 1
    amoadd.w s0, t1, (t0)           /* s0 = this hart's slot */

    li      t2, MACE_TILES
    bgeu    s0, t2, fail            /* more harts running than MACE_TILES */
    li      t2, 448
    bgeu    s0, t2, fail            /* no stack space left for this slot */

    li      sp, MACE_STACK_TOP
    li      t2, MACE_STACK_SIZE
    mul     t3, s0, t2
    sub     sp, sp, t3

    mv      a0, s0                  /* main(slot) */
    call    main
    bnez    a0, fail

    .globl  pass
pass:
    j       pass                    /* good trap: the testbench watches this PC */

    .globl  fail
fail:
    j       fail                    /* bad trap */

/* GCC may emit calls to these even for freestanding code (structure copies, loops it
   recognises). Weak, so a workload may bring its own. Byte loops: small, not fast. */
    .text
    .weak   memset
memset:                             /* a0 = dst, a1 = byte, a2 = n; returns dst */
    mv      t0, a0
1:  beqz    a2, 2f
    sb      a1, 0(t0)
    addi    t0, t0, 1
    addi    a2, a2, -1
    j       1b
2:  ret

    .weak   memcpy
memcpy:                             /* a0 = dst, a1 = src, a2 = n; returns dst */
    mv      t0, a0
1:  beqz    a2, 2f
    lbu     t1, 0(a1)
    sb      t1, 0(t0)
    addi    t0, t0, 1
    addi    a1, a1, 1
    addi    a2, a2, -1
    j       1b
2:  ret

    .weak   memmove
memmove:                            /* overlapping copy: backwards when dst > src */
    bleu    a0, a1, memcpy
    add     t0, a0, a2
    add     a1, a1, a2
1:  beqz    a2, 2f
    addi    t0, t0, -1
    addi    a1, a1, -1
    lbu     t1, 0(a1)
    sb      t1, 0(t0)
    addi    a2, a2, -1
    j       1b
2:  ret

    .weak   memcmp
memcmp:                             /* a0, a1 = buffers, a2 = n */
1:  beqz    a2, 2f
    lbu     t0, 0(a0)
    lbu     t1, 0(a1)
    bne     t0, t1, 3f
    addi    a0, a0, 1
    addi    a1, a1, 1
    addi    a2, a2, -1
    j       1b
2:  li      a0, 0
    ret
3:  sub     a0, t0, t1
    ret

    .data
    .balign 64
mace_slot_counter:                  /* alone in its cache line */
    .word   0
    .balign 64
