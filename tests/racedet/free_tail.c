/* free_tail.c: a thread writes near the end of a 4 KiB block; another frees
 * the block with no synchronisation between them (a relaxed flag orders
 * nothing for the detector).  The free is a write of the whole block, so it
 * races with that write, although the runtime marks only the first
 * RD_FREE_MARK (1 KiB) of a block freed: the rest is checked with loads
 * only.  Without that check the race is lost.
 *
 * EXPECT: race
 * EXPECT-CURRENT: release_block main
 * EXPECT-PREVIOUS: tail_writer writer_thread
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#define INTS 1024

static int *block;
static atomic_int written;
__attribute__((noinline)) void tail_writer(void) { block[INTS - 100] = 7; }
__attribute__((noinline)) void release_block(void) { free(block); }
static void *writer_thread(void *a) {
  tail_writer();
  atomic_store_explicit(&written, 1, memory_order_relaxed);
  return a;
}
int main(void) {
  block = malloc(INTS * sizeof *block);
  pthread_t t;
  pthread_create(&t, 0, writer_thread, 0);
  while (!atomic_load_explicit(&written, memory_order_relaxed)) sched_yield();
  release_block();
  pthread_join(t, 0);
  return 0;
}
