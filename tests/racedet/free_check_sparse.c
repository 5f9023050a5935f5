/* free_check_sparse.c: a free's check past the mark finds a lone access.
 * The check (racedet/access.c, range_check) first asks whether a run of
 * granules holds anything at all, and tests the cells only if it does; a
 * block past its first KiB is mostly untouched.  Here each of six 4 KiB
 * blocks has one granule past the mark written by another thread, every
 * other granule past it untouched: the first granule past the mark, the
 * block's last byte, and four between (a run is the granules of one word
 * of plane B's bitmap, 64, wherever the block starts).  Two writer
 * threads, so that the writes
 * land in both plane-A cells of their granules (a thread's first choice
 * is the cell of its slot's parity).  Main then frees the blocks, ordered
 * after the writes by nothing (a relaxed flag): six races, each reported.
 *
 * EXPECT: race
 * EXPECT-COUNT: 6
 * EXPECT-EVERY: 6 lone
 * EXPECT-CURRENT: release_blocks main
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#define BLOCK 4096
static char *blocks[6];
static atomic_int written;

#define LONE(k, off)                                                    \
  __attribute__((noinline)) void lone_##k(void) {                       \
    *((volatile char *)blocks[k] + (off)) = 1;                          \
  }
LONE(0, 1024)
LONE(1, 1528)
LONE(2, 4095)
LONE(3, 1032)
LONE(4, 3000)
LONE(5, 2048)

static void (*const lones[6])(void) = {lone_0, lone_1, lone_2, lone_3, lone_4, lone_5};

/* writer k writes blocks 3k .. 3k + 2 */
static void *writer(void *k) {
  for (int i = 0; i < 3; i++) lones[3 * (intptr_t)k + i]();
  atomic_fetch_add_explicit(&written, 1, memory_order_relaxed);
  return 0;
}

__attribute__((noinline)) void release_blocks(void) {
  for (int k = 0; k < 6; k++) free(blocks[k]);
}

int main(void) {
  for (int k = 0; k < 6; k++) blocks[k] = malloc(BLOCK);
  pthread_t t[2];
  for (intptr_t k = 0; k < 2; k++) pthread_create(&t[k], 0, writer, (void *)k);
  while (atomic_load_explicit(&written, memory_order_relaxed) < 2) sched_yield();
  release_blocks();
  for (int k = 0; k < 2; k++) pthread_join(t[k], 0);
  return 0;
}
