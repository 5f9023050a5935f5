/* free_tail_plane_b.c: the check of a freed block past its marks
 * (racedet/access.c, range_check) looks at plane B too.  In a granule 2 KiB
 * into a 4 KiB block, the freeing thread reads byte 4 and writes byte 6:
 * plane A's two cells, its own.  Another thread then writes byte 0, which
 * goes to plane B (the two cells are concurrent with it: made after it
 * started, and seen by it only through relaxed flags, which order nothing
 * for the detector); and the first thread frees the block with nothing
 * ordering the free after that write.  The free is a write of the whole
 * block, so it races with the write.  range_check passes over a granule
 * whose plane-A cells are the thread's own only when plane B is unused:
 * without that test the race is lost.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: release_block main
 * EXPECT-PREVIOUS: other_write other_thread
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 4096
#define AT 2048 /* past the freed marks (RD_FREE_MARK, 1 KiB) */

static char *block;
static atomic_int turn;

__attribute__((noinline)) static int own_accesses(void) {
  int v = block[AT + 4];
  block[AT + 6] = 1;
  return v;
}
__attribute__((noinline)) static void other_write(void) { block[AT] = 2; }
__attribute__((noinline)) static void release_block(void) { free(block); }

static void wait_turn(int n) {
  while (atomic_load_explicit(&turn, memory_order_relaxed) != n) sched_yield();
}

static void *other_thread(void *a) {
  wait_turn(1);
  other_write();
  atomic_store_explicit(&turn, 2, memory_order_relaxed);
  return a;
}

int main(void) {
  block = calloc(SIZE, 1);
  pthread_t t;
  pthread_create(&t, 0, other_thread, 0);
  int v = own_accesses();
  atomic_store_explicit(&turn, 1, memory_order_relaxed);
  wait_turn(2);
  release_block();
  pthread_join(t, 0);
  printf("v %d\n", v);
  return 0;
}
