/*
 * memstress: drives the memory hierarchy hard enough that a cache with a broken geometry
 * (wrong set index, lost way, lost write-back, broken coherence) returns wrong data.
 * main returns 0 when every check holds; the bits of a non-zero result say which failed.
 *
 * Freestanding rv32ima (pico): no libc. MACE compiles it with -DMACE_TILES=<x*y> and
 * workloads/pico/start.S calls main(slot) with a distinct slot per hart. pico has no L1;
 * every load, store and instruction fetch goes to the tile's L1.5 (default 8 KiB, 4 ways,
 * 16-byte lines: 128 sets), then to the L2 slices (default 64 KiB, 4 ways, 64-byte lines
 * each: 256 sets), then memory.
 *
 * A (bit 2). Private sweep, per slot, over MS_SWEEP_BYTES = 96 KiB of its own region at
 *    MS_BASE + slot * MS_SLOT_STRIDE: one word per 64-byte line (1536 lines), the word
 *    rotating inside the line. With the default geometry every L2 set of a 1x1 mesh gets
 *    6 lines for its 4 ways and every L1.5 set 12 lines for its 4 ways; on a bigger mesh
 *    the slots together still write 1.5x the whole L2. Each word holds its address xor a
 *    per-slot key: a line from the wrong set or way, a lost write-back (memory reads 0)
 *    or another slot's data all show. Written ascending, read back descending.
 * B (bits 8, 16). Every slot adds (slot + 1) to 16 shared counters, one per 64-byte line,
 *    ADDS_PER_SLOT times with amoadd.w, meets the others at a barrier, then checks every
 *    total.
 * C (bit 32). Before the barrier every slot also stores its own word into lines all slots
 *    share (false sharing); after it, each slot checks every slot's word (coherence).
 * A second barrier (bit 64) keeps any slot from finishing before all have checked.
 * A barrier gives up after SPIN_LIMIT polls (a tile that never started) with a fail; at
 * the default RTL timeout the timeout comes first, so this is a backstop for longer runs.
 *
 * Size and cost: the cycle counts measured on each mesh are in workloads/README.md. pico
 * runs with sims' RTL timeout counting from the start of the run (its idle hardware
 * threads never retire), so the whole program must stay well under -rtl_timeout.
 */

#ifndef MACE_TILES
#define MACE_TILES 1
#endif

typedef unsigned int u32;
typedef unsigned long uptr;

#define MS_BASE 0x41000000u        /* above the program and stacks, see start.S */
#define MS_SLOT_STRIDE 0x40000u    /* 256 KiB of private memory per slot */
#define MS_SHARED 0x40F00000u      /* shared counters and lines */

#ifndef MS_SWEEP_BYTES
#define MS_SWEEP_BYTES (96u * 1024u) /* per slot: 1.5x an L2 slice, 12x the L1.5 */
#endif
#define L2_LINE 64u

#define COUNTERS 16u               /* shared counters, one per 64-byte line */
#define ADDS_PER_SLOT 4u           /* amoadd.w per counter per slot */
#define SPIN_LIMIT 100000u         /* barrier polls before giving up (a tile never came) */

static inline u32 amoadd(volatile u32 *p, u32 v) {
  u32 old;
  __asm__ volatile("amoadd.w %0, %2, (%1)" : "=r"(old) : "r"(p), "r"(v) : "memory");
  return old;
}

/* One word per 64-byte line over `bytes` bytes from `base`, the word's place in the line
   rotating with the line number (line i uses word i mod 16, so the L1.5 sets are all used
   too), each word holding its own address xor `key`. Writes all of them in ascending
   order, then reads them back in descending order: the most recently written lines are
   still in the caches (the hit path), the oldest ones were evicted to memory (write-back
   and refill). Four lines per loop turn keep the instruction count low: pico has no L1,
   so every instruction fetch goes through the L1.5 as well. Returns the OR of all
   differences: 0 when every word came back. */
#define LINE_WORD(a) ((volatile u32 *)((a) + (((a) / L2_LINE) % 16u) * 4u))
static u32 sweep(uptr base, u32 bytes, u32 key) {
  const uptr group = 4u * L2_LINE;
  for (uptr a = base; a < base + bytes; a += group) {
    volatile u32 *p = LINE_WORD(a);
    p[0] = (u32)(uptr)&p[0] ^ key;
    p[17] = (u32)(uptr)&p[17] ^ key;  /* next line, next word */
    p[34] = (u32)(uptr)&p[34] ^ key;
    p[51] = (u32)(uptr)&p[51] ^ key;
  }
  u32 diff = 0;
  for (uptr a = base + bytes - group; a + group > base; a -= group) {
    volatile u32 *p = LINE_WORD(a);
    diff |= p[51] ^ ((u32)(uptr)&p[51] ^ key);
    diff |= p[34] ^ ((u32)(uptr)&p[34] ^ key);
    diff |= p[17] ^ ((u32)(uptr)&p[17] ^ key);
    diff |= p[0] ^ ((u32)(uptr)&p[0] ^ key);
  }
  return diff;
}

/* Shared layout at MS_SHARED: line 0 barrier counters, lines 1..COUNTERS the counters,
   then the false-sharing lines (one word per slot, 16 words per line). */
#define BARRIER1 ((volatile u32 *)(uptr)(MS_SHARED + 0u))
#define BARRIER2 ((volatile u32 *)(uptr)(MS_SHARED + 4u))
#define COUNTER(k) ((volatile u32 *)(uptr)(MS_SHARED + L2_LINE * (1u + (k))))
#define SHARED_WORD(s) ((volatile u32 *)(uptr)(MS_SHARED + L2_LINE * (1u + COUNTERS) + 4u * (s)))

static int barrier(volatile u32 *counter) {
  amoadd(counter, 1u);
  for (u32 spins = 0; spins < SPIN_LIMIT; spins++)
    if (amoadd(counter, 0u) >= (u32)MACE_TILES) return 0;
  return 1;
}

int main(int slot) {
  int failures = 0;
  if (slot < 0 || slot >= MACE_TILES) return 1;

  uptr mine = (uptr)MS_BASE + (uptr)slot * MS_SLOT_STRIDE;

  /* A: the private sweep. The key differs per slot, and no address xor key is 0 (what
     memory holds where nothing was written back). */
  if (sweep(mine, MS_SWEEP_BYTES, 0xC3A50000u ^ ((u32)slot << 8)) != 0) failures |= 2;

  /* B: atomic adds on shared counters; slot s adds (s + 1) each time. */
  for (u32 r = 0; r < ADDS_PER_SLOT; r++)
    for (u32 k = 0; k < COUNTERS; k++) amoadd(COUNTER(k), (u32)slot + 1u);

  /* C: this slot's word in the shared lines. */
  *SHARED_WORD(slot) = 0xA5000000u | (u32)slot;

  if (barrier(BARRIER1) != 0) return failures | 8;

  u32 expected = ADDS_PER_SLOT * ((u32)MACE_TILES * ((u32)MACE_TILES + 1u) / 2u);
  for (u32 k = 0; k < COUNTERS; k++)
    if (amoadd(COUNTER(k), 0u) != expected) failures |= 16;
  for (u32 s = 0; s < (u32)MACE_TILES; s++)
    if (*SHARED_WORD(s) != (0xA5000000u | s)) failures |= 32;

  /* Nobody may leave (and the run may not end) before everyone has checked. */
  if (barrier(BARRIER2) != 0) failures |= 64;
  return failures;
}
