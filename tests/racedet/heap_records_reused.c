/* heap_records_reused.c: two producer threads make 40,000 blocks each and
 * hand them to a consumer thread, which frees them; at most 256 are alive
 * at once.  The records of freed blocks are reused: the consumer's list of
 * free records, which only grows, gives its surplus back to the pool that
 * the producers take from (racedet/intercept_heap.c, rec_put).  Without
 * that, every block would have made a record of its own.  Each block
 * starts with a mutex, which the producer makes and the consumer takes and
 * destroys: the sync objects the consumer's frees give back are reused the
 * same way (racedet/sync.c, pool_put: a thread keeps at most 64 of them,
 * the rest go back to the pool); without the bound, each block made an
 * object of its own.  A race on a block made after the churn still names
 * its allocation (its record is right).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-LOCATION: heap
 * EXPECT-ALLOCATION: make_shared main
 * EXPECT-STDOUT: heap block records bounded
 * EXPECT-STDOUT: sync objects bounded
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../encoder/include/dacce.h"

#define PER_PRODUCER 40000
typedef struct item {
  pthread_mutex_t m;
  long v[];
} item;
#define QUEUE 256
static void *queue[QUEUE];
static int head, count, producers_left = 2;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER, not_empty = PTHREAD_COND_INITIALIZER;

static void *producer(void *arg) {
  for (long i = 0; i < PER_PRODUCER; i++) {
    item *b = malloc(sizeof(item) + 16 + (size_t)(i % 7) * 8);
    pthread_mutex_init(&b->m, 0);
    pthread_mutex_lock(&b->m);
    b->v[0] = i;
    pthread_mutex_unlock(&b->m);
    pthread_mutex_lock(&mu);
    while (count == QUEUE) pthread_cond_wait(&not_full, &mu);
    queue[(head + count++) % QUEUE] = b;
    pthread_cond_signal(&not_empty);
    pthread_mutex_unlock(&mu);
  }
  pthread_mutex_lock(&mu);
  producers_left--;
  pthread_cond_broadcast(&not_empty);
  pthread_mutex_unlock(&mu);
  return arg;
}

static void *consumer(void *arg) {
  long sum = 0;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (!count && producers_left) pthread_cond_wait(&not_empty, &mu);
    if (!count) {
      pthread_mutex_unlock(&mu);
      break;
    }
    item *b = queue[head];
    head = (head + 1) % QUEUE;
    count--;
    pthread_cond_signal(&not_full);
    pthread_mutex_unlock(&mu);
    pthread_mutex_lock(&b->m);
    sum += b->v[0];
    pthread_mutex_unlock(&b->m);
    pthread_mutex_destroy(&b->m);
    free(b);
  }
  return (void *)sum;
}

static int *volatile shared; /* (clang -O2 made the block a global otherwise) */
__attribute__((noinline)) void make_shared(void) { shared = calloc(4, sizeof *shared); } // ALLOC-HERE
static void *writer(void *arg) {
  shared[2] = 7;
  return arg;
}

int main(void) {
  pthread_t p[2], c;
  pthread_create(&c, 0, consumer, 0);
  for (int i = 0; i < 2; i++) pthread_create(&p[i], 0, producer, 0);
  for (int i = 0; i < 2; i++) pthread_join(p[i], 0);
  void *sum;
  pthread_join(c, &sum);
  dacce_stats st;
  dacce_get_stats(&st);
  /* alive at once: the queue's 256, the consumer's block, lists of at most
   * 2 x 64 per thread, and the program's own few */
  if (st.heap_records > 2000) {
    printf("heap block records: %llu for %d blocks\n", (unsigned long long)st.heap_records,
           2 * PER_PRODUCER);
    return 1;
  }
  /* the same for the mutexes' objects, with the threads' caches of at
   * most 64 */
  if (st.sync_objects > 4000) {
    printf("sync objects: %llu for %d mutexes\n", (unsigned long long)st.sync_objects,
           2 * PER_PRODUCER);
    return 1;
  }
  printf("heap block records bounded (%llu), sync objects bounded (%llu)\n",
         (unsigned long long)st.heap_records, (unsigned long long)st.sync_objects);
  make_shared();
  pthread_t w;
  pthread_create(&w, 0, writer, 0);
  shared[2] = (int)(long)sum;
  pthread_join(w, 0);
  printf("shared %d\n", shared[2] != 0);
  return 0;
}
