/*
 * hello: MACE's smallest gate workload. Every tile runs it on its own and checks its
 * own results; main returns 0 when every check holds.
 *
 * Freestanding rv32ima (pico): no libc. MACE compiles it with -DMACE_TILES=<x*y> and
 * workloads/pico/start.S calls main(slot) with a distinct slot per hart.
 *
 * What it exercises: ALU, shifts, branches, the M extension (mul, div, rem), byte loads
 * from read-only data, word stores and loads on the hart's stack.
 */

#ifndef MACE_TILES
#define MACE_TILES 1
#endif

typedef unsigned int u32;

/* The standard CRC-32 (reflected, polynomial 0xEDB88320) check value of "123456789". */
static const char kCheckText[] = "123456789";
#define CRC32_CHECK 0xCBF43926u

static u32 crc32(const char *p, u32 n) {
  u32 crc = 0xFFFFFFFFu;
  for (u32 i = 0; i < n; i++) {
    crc ^= (u32)(unsigned char)p[i];
    for (int bit = 0; bit < 8; bit++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

static u32 gcd(u32 a, u32 b) {
  while (b != 0) {
    u32 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

int main(int slot) {
  int failures = 0;

  if (slot < 0 || slot >= MACE_TILES) failures |= 1;

  /* Fibonacci numbers kept on the stack: stores and loads through the L1.5. */
  volatile u32 fib[24];
  fib[0] = 0;
  fib[1] = 1;
  for (int i = 2; i < 24; i++) fib[i] = fib[i - 1] + fib[i - 2];
  if (fib[20] != 6765u || fib[23] != 28657u) failures |= 2;

  /* Multiply, divide, remainder. */
  u32 squares = 0;
  for (u32 i = 1; i <= 20; i++) squares += i * i;
  if (squares != 2870u) failures |= 4;
  if (squares / 7u != 410u || squares % 11u != 10u) failures |= 8;
  if (gcd(fib[20], fib[18] * 5u) != 5u) failures |= 16; /* gcd(6765, 12920) */

  /* Bit manipulation over bytes of read-only data. */
  if (crc32(kCheckText, sizeof kCheckText - 1) != CRC32_CHECK) failures |= 32;

  /* Something that depends on the slot, so two harts never share a result by accident. */
  volatile u32 mine = 1000u + (u32)slot * 3u;
  if ((mine - 1000u) / 3u != (u32)slot) failures |= 64;

  return failures;
}
