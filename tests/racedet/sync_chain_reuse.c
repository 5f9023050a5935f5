/* sync_chain_reuse.c: synchronisation objects found without their
 * stripe's lock (racedet/sync.c, found) in granules that hold two of them,
 * in heap blocks freed and made again at the same addresses round after
 * round.  Two 4-byte flags, a and b, share an 8-byte granule, so their
 * objects are on one chain, the later one first.
 *
 * Rounds: the producer stores a, publishes a field behind b, and one
 * behind a's second store, and one under a mutex; the consumer takes them
 * with acquire loads and the lock; the main thread frees the block once
 * both are done, its objects with it.  Every hand-over is ordered: no
 * report from them.
 *
 * Then one race: a last block's a is stored, then b; the producer writes a
 * field and stores b again; the consumer, which saw that store only with a
 * relaxed load, acquires a, whose clock lacks the write, and reads the
 * field.  A lookup that took the chain's first object (b's) for a's
 * address joined b's clock and missed it (found() without its address
 * check, in every run).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: read_late consumer
 * EXPECT-PREVIOUS: write_late producer
 * EXPECT-STDOUT: chains ok 3000 late 5
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#define ROUNDS 3000

typedef struct block {
  _Alignas(8) atomic_int a; /* a and b: one granule, one chain */
  atomic_int b;
  long behind_a, behind_b;
  pthread_mutex_t m;
  long under_m;
} block;

static block *current, *last;
static atomic_int round_no, done; /* round_no published current (the same address, often) */

static block *block_of(int i) {
  while (atomic_load_explicit(&round_no, memory_order_acquire) != i + 1) sched_yield();
  return current;
}

__attribute__((noinline)) static void write_late(void) { last->behind_a = 5; }
__attribute__((noinline)) static long read_late(void) { return last->behind_a; }

static void *producer(void *arg) {
  for (int i = 0; i < ROUNDS; i++) {
    block *k = block_of(i);
    atomic_store_explicit(&k->a, 1, memory_order_release); /* a's object, then b's first */
    k->behind_b = i + 1;
    atomic_store_explicit(&k->b, 1, memory_order_release);
    k->behind_a = i; /* behind a's second store: b's clock does not have it */
    atomic_store_explicit(&k->a, 2, memory_order_release);
    pthread_mutex_lock(&k->m);
    k->under_m = i + 2;
    pthread_mutex_unlock(&k->m);
    atomic_fetch_add_explicit(&done, 1, memory_order_release);
  }
  atomic_store_explicit(&last->a, 1, memory_order_release);
  atomic_store_explicit(&last->b, 1, memory_order_release);
  write_late();
  atomic_store_explicit(&last->b, 2, memory_order_release);
  return arg;
}

static long bad, late;
static void *consumer(void *arg) {
  for (int i = 0; i < ROUNDS; i++) {
    block *k = block_of(i);
    while (!atomic_load_explicit(&k->b, memory_order_acquire)) sched_yield();
    bad += k->behind_b != i + 1;
    while (atomic_load_explicit(&k->a, memory_order_acquire) != 2) sched_yield();
    bad += k->behind_a != i;
    for (;;) {
      pthread_mutex_lock(&k->m);
      const long v = k->under_m;
      pthread_mutex_unlock(&k->m);
      if (v) {
        bad += v != i + 2;
        break;
      }
      sched_yield();
    }
    atomic_fetch_add_explicit(&done, 1, memory_order_release);
  }
  while (atomic_load_explicit(&last->b, memory_order_relaxed) != 2) sched_yield();
  if (atomic_load_explicit(&last->a, memory_order_acquire) == 1) late = read_late();
  return arg;
}

int main(void) {
  last = calloc(1, sizeof *last);
  pthread_t p, c;
  pthread_create(&p, 0, producer, 0);
  pthread_create(&c, 0, consumer, 0);
  for (int i = 0; i < ROUNDS; i++) {
    block *k = malloc(sizeof *k);
    atomic_init(&k->a, 0);
    atomic_init(&k->b, 0);
    k->behind_a = k->behind_b = k->under_m = 0;
    pthread_mutex_init(&k->m, 0);
    current = k;
    atomic_store_explicit(&round_no, i + 1, memory_order_release);
    while (atomic_load_explicit(&done, memory_order_acquire) != 2 * (i + 1)) sched_yield();
    pthread_mutex_destroy(&k->m);
    free(k); /* the next round's block is most often made at the same address */
  }
  pthread_join(p, 0);
  pthread_join(c, 0);
  printf("chains %s %d late %ld\n", bad ? "wrong" : "ok", ROUNDS, late);
  free(last);
  return 0;
}
