/* heap_freed_newest.c: a use-after-free of memory that held small blocks,
 * freed, and then a larger block, freed too: the report names the larger
 * block, the newest free there.  The runtime keeps recent frees in rings by
 * where the block starts, small blocks by their MiB, blocks of 64 KiB and
 * more in a ring of their own (racedet/intercept_heap.c, freed_find); the
 * address is in both (the ring of 1,024 holds all the small frees), and the
 * newer free must win.
 *
 * EXPECT: heap-use-after-free
 * EXPECT-CURRENT: late_reader reader_thread
 * EXPECT-PREVIOUS: free_large main
 * EXPECT-LOCATION: heap
 * EXPECT-ALLOCATION: make_large main
 * EXPECT-STDOUT: overlap found
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define SMALL 512
#define SMALL_SIZE 320 /* glibc's: past the runtime's own classes (up to 256 B) */
#define LARGE (96 << 10) /* under glibc's mmap threshold: from the heap */
static uintptr_t small_at[SMALL];
static long *large, *target;
static atomic_int freed;

__attribute__((noinline)) void make_small(void) {
  for (int i = 0; i < SMALL; i++) small_at[i] = (uintptr_t)malloc(SMALL_SIZE);
}
__attribute__((noinline)) void free_small(void) {
  for (int i = 0; i < SMALL; i++) free((void *)small_at[i]);
}
__attribute__((noinline)) void make_large(void) {
  large = malloc(LARGE); // ALLOC-HERE
}
__attribute__((noinline)) void free_large(void) {
  free(large); // FREE-HERE
}
__attribute__((noinline)) long late_reader(void) { return *target; }

void *reader_thread(void *a) {
  while (!atomic_load_explicit(&freed, memory_order_relaxed)) sched_yield();
  printf("read %d\n", late_reader() != 12345);
  return a;
}

int main(void) {
  make_small();
  free_small();
  make_large();
  /* an address the large block shares with a small block freed before */
  const uintptr_t lo = (uintptr_t)large, hi = lo + LARGE;
  for (int i = 0; i < SMALL && !target; i++)
    if (small_at[i] >= lo && small_at[i] + sizeof(long) <= hi) target = (long *)small_at[i];
  if (!target) {
    printf("no overlap: the test proves nothing\n");
    return 1;
  }
  printf("overlap found\n");
  *target = 1;
  pthread_t t;
  pthread_create(&t, 0, reader_thread, 0);
  free_large();
  atomic_store_explicit(&freed, 1, memory_order_relaxed);
  pthread_join(t, 0);
  return 0;
}
