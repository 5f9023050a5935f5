/* heap_small_uaf_straddle.c: a use-after-free of a 240-byte block of the
 * runtime's own classes (racedet/heap_small.c) that straddles a page, at a
 * byte in its second page: the report must name the block, its allocation
 * and its free, from the rings of recent frees (racedet/intercept_heap.c,
 * freed_find).  (When those rings were by the page a small block starts
 * in, a lookup that read only the address's page's ring named no block.)
 *
 * EXPECT: heap-use-after-free
 * EXPECT-CURRENT: late_reader reader_thread
 * EXPECT-PREVIOUS: free_block main
 * EXPECT-LOCATION: heap
 * EXPECT-ALLOCATION: make_block main
 * EXPECT-STDOUT: straddles at 1
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SIZE 240
#define TRIES 64
static char *block, *target;
static atomic_int freed;

__attribute__((noinline)) char *make_block(void) {
  return malloc(SIZE); // ALLOC-HERE
}
__attribute__((noinline)) void free_block(void) {
  free(block); // FREE-HERE
}
__attribute__((noinline)) int late_reader(void) { return *target; }

void *reader_thread(void *a) {
  while (!atomic_load_explicit(&freed, memory_order_relaxed)) sched_yield();
  printf("read %d\n", late_reader() != 77);
  return a;
}

int main(void) {
  /* 240-byte blocks lie side by side from a page's start: the eighteenth
   * ends in the next page */
  static char *kept[TRIES];
  int n = 0;
  for (; n < TRIES && !block; n++) {
    char *p = make_block();
    if (((uintptr_t)p & 4095) + SIZE > 4096) block = p;
    else kept[n] = p;
  }
  if (!block) {
    printf("no block straddles a page: the test proves nothing\n");
    return 1;
  }
  target = (char *)(((uintptr_t)block + SIZE - 1) & ~(uintptr_t)4095) + 1; /* in its second page */
  printf("straddles at %d\n", (int)(target - block > 0 && ((uintptr_t)target & 4095) == 1));
  *target = 1;
  pthread_t t;
  pthread_create(&t, 0, reader_thread, 0);
  free_block();
  atomic_store_explicit(&freed, 1, memory_order_relaxed);
  pthread_join(t, 0);
  for (int i = 0; i < n; i++) free(kept[i]);
  return 0;
}
