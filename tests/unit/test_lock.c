/* test_lock.c: the runtime's own lock (dc_lock, encoder/internal.h): an
 * int, 0 free, 1 held, 2 held with a waiter asleep on it (a futex).
 *  - Mutual exclusion: threads that add to a plain counter under it, many
 *    more than the CPUs, lose no increment, and leave it free.
 *  - Waiters sleep: while the lock is held for 300 ms by a thread that
 *    sleeps, six waiters use nearly no CPU (the process's CPU time); a
 *    waiter that yielded its CPU in a loop instead, as before, used about
 *    as much as the CPUs had (with thousands of threads, 4000 of
 *    bench/micro/many_threads.c took 11.7 s, not 0.7 s).
 *  - A failed dc_trylock leaves the word as it was: an exchange there
 *    would turn a 2 into a 1, and the sleepers would never be woken (the
 *    test then hangs, and its alarm fails it).
 *  - A waiter's errno is its own after the wait. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#include "check.h"

static _Atomic int lock;
static long counter;
static _Atomic int started, done;
static int errno_kept = 1;

#define THREADS 16
#define ROUNDS 20000

static void *add(void *arg) {
  (void)arg;
  for (int i = 0; i < ROUNDS; i++) {
    dc_lock(&lock);
    counter++;
    dc_unlock(&lock);
  }
  return 0;
}

static void *wait_once(void *arg) {
  (void)arg;
  atomic_fetch_add(&started, 1);
  errno = 1234;
  dc_lock(&lock);
  if (errno != 1234) errno_kept = 0;
  dc_unlock(&lock);
  atomic_fetch_add(&done, 1);
  return 0;
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts)) {
  }
}

int main(void) {
  alarm(60); /* a lost wake-up hangs: the alarm ends the test, failed */

  pthread_t t[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&t[i], 0, add, 0);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  CHECK(counter == (long)THREADS * ROUNDS, "counter %ld, expected %ld", counter,
        (long)THREADS * ROUNDS);
  CHECK(atomic_load(&lock) == 0, "the lock is free at the end: %d", atomic_load(&lock));

  /* held by main, which sleeps; six waiters */
  enum { WAITERS = 6 };
  dc_lock(&lock);
  for (int i = 0; i < WAITERS; i++) pthread_create(&t[i], 0, wait_once, 0);
  /* all started, one at least past its spinning (the mark); then the rest
   * are given time to get there too (a loaded machine may be slow to) */
  for (int ms = 0; ms < 5000 && (atomic_load(&started) < WAITERS || atomic_load(&lock) != 2); ms++)
    sleep_ms(1);
  sleep_ms(50);
  CHECK(atomic_load(&lock) == 2, "a waiter announced itself asleep: %d", atomic_load(&lock));
  CHECK(!dc_trylock(&lock), "trylock of a held lock fails");
  CHECK(atomic_load(&lock) == 2, "and leaves the sleepers' mark: %d", atomic_load(&lock));
  const double before = cpu_seconds();
  sleep_ms(300);
  const double used = cpu_seconds() - before;
  CHECK(used < 0.06, "the waiters slept: %.3f s of CPU over 0.3 s held", used);
  CHECK(atomic_load(&done) == 0, "nobody took the held lock");
  dc_unlock(&lock);
  for (int i = 0; i < WAITERS; i++) pthread_join(t[i], 0);
  CHECK(atomic_load(&done) == WAITERS, "every waiter was woken: %d", atomic_load(&done));
  CHECK(errno_kept, "errno is the waiter's own after the wait");
  CHECK(atomic_load(&lock) == 0, "the lock is free at the end: %d", atomic_load(&lock));

  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
