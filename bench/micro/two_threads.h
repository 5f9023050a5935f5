/* two_threads.h: how stdio.c and fd_io.c time their rounds: fn run on two
 * threads at once (arguments a and b), the wall time of both per round
 * (n rounds each) in ns, and the sum of what the two returned in *sum. */
#ifndef DACCE_BENCH_TWO_THREADS_H
#define DACCE_BENCH_TWO_THREADS_H
#include <pthread.h>
#include <time.h>

static double two_threads_ns(void *(*fn)(void *), void *a, void *b, long n, long *sum) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t t[2];
  pthread_create(&t[0], 0, fn, a);
  pthread_create(&t[1], 0, fn, b);
  void *s0, *s1;
  pthread_join(t[0], &s0);
  pthread_join(t[1], &s1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  *sum = (long)s0 + (long)s1;
  return ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n;
}
#endif
