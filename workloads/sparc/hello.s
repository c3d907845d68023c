/*
 * MACE sparc hello: a small OpenSPARC T1 program that thread 0 of every tile runs and
 * checks on its own. It ends at the good trap on each of them, or at the bad trap.
 *
 * Waking every tile (REQ-VER-7): sims passes -DPITON_NUM_TILES to midas. Asking the boot
 * code for THREAD_COUNT = PITON_NUM_TILES threads THREAD_STRIDE = 2 apart selects thread
 * ids 0, 2, 4, ...: thread 0 of tile 0, 1, 2, ... (a thread id is 2 * tile + hardware
 * thread). For every selected thread other than 0 the boot code then emits a wake-up
 * interrupt event into diag.ev, which the testbench sends when tile 0 gets going. The
 * testbench numbers its finish mask 4 bits a tile, so the matching mask is bit 4N for
 * tile N: 1 on 1x1, 11 on 2x1 (MACE default_finish_mask).
 *
 * Every woken thread arrives at main. The checks:
 *   1. its thread id is one the boot code was asked to wake (even, below 2 * tiles);
 *   2. the sum of sixteen doublewords loaded from memory is 120;
 *   3. (id + 3) squared by mulx equals the same square by repeated addition, and
 *      dividing it by (id + 3) with udivx gives (id + 3) back.
 * No check writes memory, so the threads share nothing and cannot race.
 */

#ifndef PITON_NUM_TILES
#define PITON_NUM_TILES 1
#endif
#define THREAD_COUNT PITON_NUM_TILES
#define THREAD_STRIDE 2

#include "boot.s"

.global main
main:
    ta      T_RD_THID               ! %o1 = this thread id

    /* 1. a thread the boot code woke on purpose */
    and     %o1, 1, %g1
    brnz    %g1, mace_bad
    nop
    cmp     %o1, 2 * PITON_NUM_TILES
    bge     mace_bad
    nop

    /* 2. sum sixteen doublewords */
    setx    mace_values, %g2, %g1
    mov     16, %g2
    clr     %g3
mace_sum_next:
    ldx     [%g1], %g4
    add     %g3, %g4, %g3
    subcc   %g2, 1, %g2
    bne     mace_sum_next
    add     %g1, 8, %g1             ! delay slot: next doubleword
    cmp     %g3, 120
    bne     %xcc, mace_bad
    nop

    /* 3. a square two ways, and back by division */
    add     %o1, 3, %g1             ! n = id + 3
    mulx    %g1, %g1, %g2           ! n * n
    clr     %g3
    mov     %g1, %g4
mace_square_next:
    subcc   %g4, 1, %g4
    bne     mace_square_next
    add     %g3, %g1, %g3           ! delay slot: add n, n times in all
    cmp     %g2, %g3
    bne     %xcc, mace_bad
    nop
    udivx   %g2, %g1, %g4
    cmp     %g4, %g1
    bne     %xcc, mace_bad
    nop

mace_good:
    ta      T_GOOD_TRAP
    nop
mace_bad:
    ta      T_BAD_TRAP
    nop

SECTION .MACE_DATA DATA_VA=0xd0000000

attr_data {
    Name = .MACE_DATA,
    VA = 0xd0000000,
    PA = ra2pa(0xd0000000, 0),
    RA = 0xd0000000,
    part_0_d_ctx_nonzero_ps0_tsb,
    TTE_G=1, TTE_Context=PCONTEXT, TTE_V=1, TTE_Size=0, TTE_NFO=0,
    TTE_IE=0, TTE_Soft2=0, TTE_Diag=0, TTE_Soft=0,
    TTE_L=0, TTE_CP=1, TTE_CV=1, TTE_E=0, TTE_P=0, TTE_W=1
}

.data
.global mace_values
mace_values:
    .xword 0, 1, 2, 3, 4, 5, 6, 7
    .xword 8, 9, 10, 11, 12, 13, 14, 15

.end
