/* use_after_free.c: a thread reads a block another thread freed, with no
 * synchronisation between them: reported as heap-use-after-free with the
 * freeing context and the block's allocation context.
 *
 * EXPECT: heap-use-after-free
 * EXPECT-CURRENT: late_reader reader_thread
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static int *block;
static atomic_int freed;
__attribute__((noinline)) void release_block(void) { free(block); }
__attribute__((noinline)) int late_reader(void) { return block[1]; }
void *reader_thread(void *a) {
  while (!atomic_load_explicit(&freed, memory_order_relaxed)) sched_yield();
  printf("read %d\n", late_reader() != 12345);
  return a;
}
int main(void) {
  block = calloc(4, sizeof *block);
  pthread_t t;
  pthread_create(&t, 0, reader_thread, 0);
  release_block();
  atomic_store_explicit(&freed, 1, memory_order_relaxed);
  pthread_join(t, 0);
  return 0;
}
