/* use_threads.h: the harness of the tests whose races are one libc call
 * each (stdio_buffers.c, number_parsing.c).  The test defines USES and
 * uses[USES] (use_0 .. use_<USES-1>) before including it.  start_uses
 * starts a thread per use; each waits for ready[k], runs use_k, flushes
 * stdio and raises done[k].  The flags are relaxed atomics, which order
 * nothing: main's accesses before let_uses_run() and after it saw
 * done[k] race with use_k's. */
#ifndef DACCE_TEST_USE_THREADS_H
#define DACCE_TEST_USE_THREADS_H
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int ready[USES], done[USES];
static pthread_t use_thread[USES];

static void wait_flag(int *f) {
  while (!__atomic_load_n(f, __ATOMIC_RELAXED)) usleep(1000);
}
static void raise_flag(int *f) { __atomic_store_n(f, 1, __ATOMIC_RELAXED); }

static void *run_use(void *arg) {
  const int k = (int)(long)arg;
  wait_flag(&ready[k]);
  uses[k]();
  fflush(0);
  raise_flag(&done[k]);
  return 0;
}
static void start_uses(void) {
  for (long k = 0; k < USES; k++) pthread_create(&use_thread[k], 0, run_use, (void *)k);
}
static void let_uses_run(void) {
  for (int k = 0; k < USES; k++) raise_flag(&ready[k]);
}
static void join_uses(void) {
  for (int k = 0; k < USES; k++) pthread_join(use_thread[k], 0);
}
#endif
