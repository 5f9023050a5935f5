/* free_check_every.c: a free checks every granule of its block past the
 * mark.  A thread writes each of the 128 granules that follow the first
 * 1 KiB of a 2,048-byte block (the mark's extent, RD_FREE_MARK; the rest
 * is checked with loads only: racedet/access.c, range_check), each from a
 * function of its own, and the last byte of a 1,537-byte block; main then
 * frees both blocks, ordered after the writes by nothing (a relaxed flag).
 * The free is a write of every byte, so each write races with it: 129
 * races.  A granule that the check skips loses one.
 *
 * EXPECT: race
 * EXPECT-EVERY: 129 leaf
 * EXPECT-COUNT: 129
 * EXPECT-CURRENT: release_blocks main
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "each129.h"

static char *a, *b;
static atomic_int written;

/* leaf_k writes granule 128 + k of a; leaf_128 the last byte of b */
#define LEAF(k)                                                              \
  __attribute__((noinline)) void leaf_##k(void) {                            \
    *((volatile char *)((k) < 128 ? a + 1024 + 8 * (k) : b + 1536)) = 1;     \
  }
EACH129(LEAF)
static void (*const leaves[])(void) = TABLE129(leaf_);

static void *writer(void *x) {
  for (unsigned k = 0; k < sizeof leaves / sizeof *leaves; k++) leaves[k]();
  atomic_store_explicit(&written, 1, memory_order_relaxed);
  return x;
}
__attribute__((noinline)) void release_blocks(void) {
  free(a);
  free(b);
}

int main(void) {
  a = malloc(2048);
  b = malloc(1537);
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  while (!atomic_load_explicit(&written, memory_order_relaxed)) sched_yield();
  release_blocks();
  pthread_join(t, 0);
  return 0;
}
