/* free_mark_every.c: every granule of a free's mark is there.  A 1,500-byte
 * block is freed by one thread; main, ordered after the free by nothing (a
 * relaxed flag), then reads each of the 128 granules of its first 1 KiB
 * (the mark's extent, RD_FREE_MARK), each from a function of its own, and
 * the last granule, in part, of a 1,001-byte block freed with it.  Each
 * read is a use after free of its own.  Half of the first block's
 * granules hold another thread's writes, ordered before the free by a
 * join, so that the mark goes both ways: plain stores where the cells are
 * empty or the freeing thread's own (racedet/access.c, mark_freed), and
 * range_flags' way where they are not.  A granule that the mark skipped,
 * or a mark in the wrong cell, loses a report.
 *
 * EXPECT: heap-use-after-free
 * EXPECT-EVERY: 129 leaf
 * EXPECT-COUNT: 129
 * EXPECT-PREVIOUS: release_blocks freer
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "each129.h"

static char *a, *b;
static atomic_int freed;

__attribute__((noinline)) void release_blocks(void) {
  free(a);
  free(b);
}
static void *freer(void *x) {
  release_blocks();
  atomic_store_explicit(&freed, 1, memory_order_relaxed);
  return x;
}
static void *writer(void *x) {
  for (int i = 0; i < 1024; i += 16) a[i] = (char)i; /* every other granule */
  return x;
}

/* leaf_k reads granule k of a; leaf_128 the last byte of b */
#define LEAF(k)                                                              \
  __attribute__((noinline)) int leaf_##k(void) {                             \
    return ((volatile char *)((k) < 128 ? a + 8 * (k) : b + 1000))[0];       \
  }
EACH129(LEAF)
static int (*const leaves[])(void) = TABLE129(leaf_);

int main(void) {
  a = malloc(1500);
  b = malloc(1001);
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  pthread_join(t, 0);
  pthread_create(&t, 0, freer, 0);
  while (!atomic_load_explicit(&freed, memory_order_relaxed)) sched_yield();
  int s = 0;
  for (unsigned k = 0; k < sizeof leaves / sizeof *leaves; k++) s += leaves[k]();
  pthread_join(t, 0);
  return s == 12345; /* (s is read) */
}
