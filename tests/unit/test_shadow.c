/* test_shadow.c: what the shadow cells hold after single accesses.
 *
 * Drives the detector's access entries directly (rd_access, rd_range) on one
 * thread and inspects the cells of the granules touched: an access takes
 * exactly one cell per granule it touches, with exactly its bytes, whatever
 * its alignment (an unaligned 8-byte write is two cells, not the five
 * power-of-two pieces it used to be split into, which crowded out other
 * threads' history), and repeating it in the same epoch adds nothing. */
#include <stdio.h>
#include <string.h>

#include "../../racedet/racedet.h"

#include "check.h"

static _Alignas(64) unsigned char mem[256];

/* the live cells of the granule at p: how many, and the byte mask and
 * flags of the last one */
static int cells(const void *p, unsigned *bytes, uint64_t *w0) {
  sh_granule *g = sh_granule_of((uintptr_t)p);
  int n = 0;
  for (int i = 0; i < SH_CELLS; i++) {
    uint64_t w = atomic_load(&g->c[i].w0);
    if (w) n++, *bytes = SH_MASK(w), *w0 = w;
  }
  return n;
}

static void expect_one(const void *p, unsigned want, uint64_t flags, const char *what) {
  unsigned bytes = 0;
  uint64_t w0 = 0;
  int n = cells(p, &bytes, &w0);
  CHECK(n == 1 && bytes == want && (w0 & (SH_WRITE | SH_ATOMIC | SH_FREED)) == flags,
        "%s: %d cells, bytes %#x (want one cell, bytes %#x), flags %#llx", what, n, bytes, want,
        (unsigned long long)(w0 & (SH_WRITE | SH_ATOMIC | SH_FREED)));
  CHECK(sh_off(w0) == (unsigned)__builtin_ctz(want) &&
            sh_size(w0) == (unsigned)__builtin_popcount(want),
        "%s: offset %u size %u", what, sh_off(w0), sh_size(w0));
}

int main(void) {
  dc_cur(); /* this thread's state: accesses are recorded from now on */
  uintptr_t pc = (uintptr_t)&main;

  /* an unaligned 8-byte write: bytes 1..7 of one granule, byte 0 of the next */
  rd_access((uintptr_t)mem + 1, 8, 1, pc);
  expect_one(mem, 0xfe, SH_WRITE, "unaligned write, first granule");
  expect_one(mem + 8, 0x01, SH_WRITE, "unaligned write, second granule");
  /* again in the same epoch, and a read of some of those bytes: nothing new */
  rd_access((uintptr_t)mem + 1, 8, 1, pc);
  rd_access((uintptr_t)mem + 3, 4, 0, pc);
  expect_one(mem, 0xfe, SH_WRITE, "repeated in the same epoch");

  /* a range: whole granules, then the 5 bytes left */
  rd_range((uintptr_t)mem + 16, 13, 0, pc);
  expect_one(mem + 16, 0xff, 0, "range, whole granule");
  expect_one(mem + 24, 0x1f, 0, "range, 5-byte tail");

  /* a 3-byte piece in the middle of a granule (memcpy of 3 bytes) */
  rd_range((uintptr_t)mem + 34, 3, 1, pc);
  expect_one(mem + 32, 0x1c, SH_WRITE, "3-byte range");

  /* an aligned small access */
  rd_access((uintptr_t)mem + 44, 2, 0, pc);
  expect_one(mem + 40, 0x30, 0, "2-byte read");

  /* a range crossing three granules at odd ends */
  rd_range((uintptr_t)mem + 51, 18, 1, pc);
  expect_one(mem + 48, 0xf8, SH_WRITE, "range head");
  expect_one(mem + 56, 0xff, SH_WRITE, "range middle");
  expect_one(mem + 64, 0x1f, SH_WRITE, "range tail");

  /* a freed block: marked freed with its exact bytes */
  rd_free_range((uintptr_t)mem + 80, 6, pc);
  expect_one(mem + 80, 0x3f, SH_WRITE | SH_FREED, "freed bytes");

  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
