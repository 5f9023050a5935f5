/* atomics.c: many atomic locations alive at once, made and freed in blocks.
 *
 * Four threads, eight rounds.  In each round every thread allocates blocks
 * of 512 atomic words (4 KiB each) until it has `size` words, and stores
 * into each with release order; after a barrier, every thread loads with
 * acquire order `size` words picked pseudo-randomly from all four threads'
 * blocks, and checks each value; after a second barrier, every thread frees
 * its blocks.  So 4 * size atomic locations are alive at once, each a
 * synchronisation object for a race detector, and all of them go with
 * frees of whole blocks: what LevelDB's skiplists do (their nodes' atomic
 * pointers, in arena blocks), without the rest of LevelDB.
 *
 * usage: atomics [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define ROUNDS 8
#define WORDS 512 /* per block: 4 KiB */

static long size;
static _Atomic uint64_t **blocks[NTHREADS]; /* each thread's blocks of this round */
static long nblocks;
static pthread_barrier_t barrier;
static uint64_t sums[NTHREADS];
static long wrong[NTHREADS];

static uint64_t value(int t, int round, long i) {
  uint64_t x = ((uint64_t)t << 56) ^ ((uint64_t)round << 48) ^ (uint64_t)i;
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  x ^= x >> 27;
  return x | 1;
}

static void *worker(void *arg) {
  const int me = (int)(intptr_t)arg;
  uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(me + 1), sum = 0;
  for (int round = 0; round < ROUNDS; round++) {
    for (long b = 0; b < nblocks; b++) {
      _Atomic uint64_t *blk = malloc(WORDS * sizeof *blk);
      if (!blk) exit(2);
      for (long w = 0; w < WORDS; w++)
        atomic_store_explicit(&blk[w], value(me, round, b * WORDS + w), memory_order_release);
      blocks[me][b] = blk;
    }
    pthread_barrier_wait(&barrier);
    for (long k = 0; k < size; k++) {
      rng ^= rng << 13;
      rng ^= rng >> 7;
      rng ^= rng << 17;
      const int t = (int)(rng % NTHREADS);
      const long i = (long)((rng >> 8) % (uint64_t)(nblocks * WORDS));
      const uint64_t v =
          atomic_load_explicit(&blocks[t][i / WORDS][i % WORDS], memory_order_acquire);
      wrong[me] += v != value(t, round, i);
      sum += v;
    }
    pthread_barrier_wait(&barrier);
    for (long b = 0; b < nblocks; b++) free(blocks[me][b]);
  }
  sums[me] = sum;
  return NULL;
}

int main(int argc, char **argv) {
  size = argc > 1 ? atol(argv[1]) : 500000;
  if (size < WORDS) return 2;
  nblocks = size / WORDS;
  for (int t = 0; t < NTHREADS; t++) {
    blocks[t] = calloc((size_t)nblocks, sizeof *blocks[t]);
    if (!blocks[t]) return 2;
  }
  pthread_barrier_init(&barrier, NULL, NTHREADS);
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t);
  uint64_t sum = 0;
  long bad = 0;
  for (int t = 0; t < NTHREADS; t++) {
    pthread_join(th[t], NULL);
    sum += sums[t];
    bad += wrong[t];
  }
  printf("atomics size %ld live %ld checksum %016llx\n", size, NTHREADS * nblocks * WORDS,
         (unsigned long long)sum);
  for (int t = 0; t < NTHREADS; t++) free(blocks[t]);
  pthread_barrier_destroy(&barrier);
  if (bad) {
    fprintf(stderr, "atomics: %ld wrong values\n", bad);
    return 1;
  }
  return 0;
}
