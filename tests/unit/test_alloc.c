/* test_alloc.c: the runtime's allocator (dc_alloc, encoder/common.c): size
 * classes with shared free lists, and for the small classes a magazine per
 * thread that takes and gives blocks in batches.
 *  - Blocks are distinct, of their class's size, and zeroed, also when
 *    they are blocks freed before.
 *  - A consumer thread that frees what a producer made keeps at most a
 *    magazine's worth while it runs (without the give-back it held all
 *    10,000 until its end), and the producer's next blocks are the ones
 *    it freed, not new memory.
 *  - A thread's magazines go back to the shared list when it ends: a
 *    thread started afterwards gets the ended one's blocks. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#include "check.h"

#define SIZE 128 /* the largest magazine class: the runtime's own threads rarely use it */
#define N 10000

static void *blocks[N];
static int owned; /* the thread had a state of its own (magazines) */

static int cmp_ptr(const void *a, const void *b) {
  const uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}

/* How many of p[0..n) are among sorted[0..m)? */
static int among(void *const *p, int n, void *const *sorted, int m) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (bsearch(&p[i], sorted, (size_t)m, sizeof *sorted, cmp_ptr)) k++;
  return k;
}

static void *produce(void *arg) {
  (void)arg;
  owned = dc_guard_owner() != 0;
  for (int i = 0; i < N; i++) {
    blocks[i] = dc_alloc(SIZE);
    memset(blocks[i], 0xab, SIZE);
  }
  return 0;
}

static uint32_t kept_after_frees;
static void *consume(void *arg) {
  (void)arg;
  for (int i = 0; i < N; i++) dc_free(blocks[i], SIZE);
  dc_thread *t = dc_guard_owner();
  kept_after_frees = t ? t->mag_n[3] : UINT32_MAX;
  return 0;
}

#define KEPT 40
static void *held[KEPT];
static void *keep_and_end(void *arg) {
  (void)arg;
  for (int i = 0; i < KEPT; i++) held[i] = dc_alloc(SIZE);
  for (int i = 0; i < KEPT; i++) dc_free(held[i], SIZE); /* in its magazine when it ends */
  return 0;
}

static void *first[32];
static void *take_first(void *arg) {
  (void)arg;
  for (int i = 0; i < 32; i++) first[i] = dc_alloc(SIZE);
  return 0;
}

static void run(void *(*f)(void *)) {
  pthread_t t;
  pthread_create(&t, 0, f, 0);
  pthread_join(t, 0);
}

int main(void) {
  alarm(60);
  run(produce);
  CHECK(owned, "a thread made by pthread_create has a state (the magazines' owner)");
  int zero = 1;
  for (int i = 0; i < N && zero; i++)
    for (int b = 0; b < SIZE; b++) zero &= ((unsigned char *)blocks[i])[b] == 0xab;
  CHECK(zero, "every block holds what its user wrote (no block handed out twice)");
  static void *sorted[N];
  memcpy(sorted, blocks, sizeof blocks);
  qsort(sorted, N, sizeof *sorted, cmp_ptr);
  int apart = 1;
  for (int i = 1; i < N; i++) apart &= (uintptr_t)sorted[i] - (uintptr_t)sorted[i - 1] >= SIZE;
  CHECK(apart, "blocks do not overlap");

  run(consume);
  CHECK(kept_after_frees <= 64, "the consumer keeps at most a magazine: %u blocks",
        kept_after_frees);
  run(produce);
  const int again = among(blocks, N, sorted, N);
  CHECK(again >= N - 64 - 32, "the producer's new blocks are the ones freed: %d of %d", again, N);
  void *p = dc_alloc(SIZE);
  memset(p, 0xcd, SIZE);
  dc_free(p, SIZE);
  unsigned char *q = dc_alloc(SIZE);
  int z = 1;
  for (int b = 0; b < SIZE; b++) z &= q[b] == 0;
  CHECK(q == p, "a block freed is the thread's next of its class");
  CHECK(z, "and comes back zeroed");
  dc_free(q, SIZE);

  run(keep_and_end);
  run(take_first);
  static void *kept_sorted[KEPT];
  memcpy(kept_sorted, held, sizeof held);
  qsort(kept_sorted, KEPT, sizeof *kept_sorted, cmp_ptr);
  const int reused = among(first, 32, kept_sorted, KEPT);
  CHECK(reused >= 30, "a new thread gets the blocks an ended thread kept: %d of 32", reused);

  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
