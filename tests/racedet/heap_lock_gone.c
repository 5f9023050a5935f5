/* heap_lock_gone.c: a lock's release clock must go with the heap block
 * that held it.  The writer writes data, then locks and unlocks a mutex in
 * a heap block (its clock now holds that write), frees the block and
 * allocates one of the same size, which is the same memory (asserted).
 * The reader, which waits on a relaxed flag (no happens-before;
 * relaxed_handoff.h), puts a new mutex there by assignment (no
 * pthread_mutex_init, which would forget the old object itself: a C++
 * std::mutex is made so too), locks and unlocks it and reads data: a race
 * with the writer's write.  A runtime that kept the old object past the
 * free would hand its clock to the reader's lock and report nothing: the
 * free's lookup of the objects in the block must not skip the mutex's line
 * (racedet/sync.c, the counts by line).
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_data reader_work reader
 * EXPECT-PREVIOUS: write_data writer_work writer
 * EXPECT-LOCATION: global data
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct box {
  char pad[40]; /* the mutex in the block's second line */
  pthread_mutex_t m;
};

long data;
static _Atomic(struct box *) handed; /* relaxed: orders nothing */

__attribute__((noinline)) void write_data(void) { data = 1; }
__attribute__((noinline)) long read_data(void) { return data; }

__attribute__((noinline)) void writer_work(void) {
  write_data();
  struct box *b = malloc(sizeof *b);
  b->m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&b->m);
  pthread_mutex_unlock(&b->m);
  free(b);
  struct box *again = malloc(sizeof *again);
  if (again != b) {
    fprintf(stderr, "heap_lock_gone: the block was not reused\n");
    exit(2);
  }
  atomic_store_explicit(&handed, again, memory_order_relaxed);
}

__attribute__((noinline)) int reader_work(void) {
  struct box *b = atomic_load_explicit(&handed, memory_order_relaxed);
  b->m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&b->m);
  pthread_mutex_unlock(&b->m);
  long v = read_data();
  free(b);
  return (int)v;
}

#include "relaxed_handoff.h"
