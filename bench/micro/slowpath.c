/* slowpath.c: the detector's slow path, alone.  A thread takes and releases
 * a mutex, which moves it to a new epoch, and then touches the same small
 * buffer again, so that every access is the first of its kind on its bytes
 * in the new epoch: none is answered by the inline "already recorded" check
 * and each one checks and stores its granule's cells.  In SQLite, where
 * every API call and every allocation takes a mutex, half of the 1-byte
 * reads are such accesses.
 *
 * usage: slowpath MODE [ITERATIONS]
 *   0  8-byte reads, vectorised by the compiler into 16-byte loads (ranges)
 *   1  1-byte reads of every byte, eight instructions per granule (more
 *      accesses per granule than cells: eviction)
 *   2  8-byte reads, one granule each
 *   3  8-byte writes, one granule each
 *   4  for comparison, the fast path: mode 2 without the mutex, so every
 *      access after the first pass is already recorded in this epoch
 * Prints the time per access; exit 2 on bad arguments. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define WORDS 64

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile unsigned long sink;
static int mode;
static long iters;

__attribute__((noinline)) static unsigned long read_vec(const unsigned long *p) {
  unsigned long s = 0;
  for (int i = 0; i < WORDS; i++) s += p[i];
  return s;
}
__attribute__((noinline)) static unsigned long read_bytes(const unsigned char *p) {
  unsigned long s = 0;
  for (int i = 0; i < WORDS * 8; i += 8)
    s += p[i] + 3 * p[i + 1] + 5 * p[i + 2] + 7 * p[i + 3] + 11 * p[i + 4] + 13 * p[i + 5] +
         17 * p[i + 6] + 19 * p[i + 7];
  return s;
}
__attribute__((noinline)) static unsigned long read_words(const unsigned long *p) {
  unsigned long s = 0;
#pragma clang loop vectorize(disable) unroll(disable)
  for (int i = 0; i < WORDS; i++) s += p[i];
  return s;
}
__attribute__((noinline)) static void write_words(unsigned long *p) {
#pragma clang loop vectorize(disable) unroll(disable)
  for (int i = 0; i < WORDS; i++) p[i] = (unsigned long)i;
}

static void *run(void *arg) {
  (void)arg;
  unsigned long *buf = calloc(WORDS, sizeof *buf);
  if (!buf) exit(2);
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  for (long it = 0; it < iters; it++) {
    if (mode != 4) {
      pthread_mutex_lock(&m);
      pthread_mutex_unlock(&m);
    }
    switch (mode) {
    case 0: sink += read_vec(buf); break;
    case 1: sink += read_bytes((unsigned char *)buf); break;
    case 2:
    case 4: sink += read_words(buf); break;
    default: write_words(buf); break;
    }
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) /
              (double)(iters ? iters : 1);
  printf("mode %d: %.1f ns per access\n", mode, ns / (mode == 1 ? WORDS * 8 : WORDS));
  free(buf);
  return NULL;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: slowpath MODE(0-4) [ITERATIONS]\n");
    return 2;
  }
  mode = atoi(argv[1]);
  iters = argc > 2 ? atol(argv[2]) : 200000;
  if (mode < 0 || mode > 4 || iters < 0) {
    fprintf(stderr, "slowpath: bad mode or iteration count\n");
    return 2;
  }
  /* in a thread of its own, as in the programs it stands for */
  pthread_t t;
  if (pthread_create(&t, NULL, run, NULL) || pthread_join(t, NULL)) return 2;
  return 0;
}
