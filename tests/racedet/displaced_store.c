/* displaced_store.c: a write that another thread's store into the same
 * granule displaced from its cell must stay in the shadow, so that the
 * race of a later read with it is still found.  64 rounds, each on a fresh
 * granule, every one of the 64 races must be reported.
 *
 * Per round, the writer and a bystander meet at a spin barrier of relaxed
 * atomics (no happens-before) and then write at the same moment into one
 * granule, on bytes of their own: the writer bytes 0-3 (round_i), the
 * bystander bytes 4-7 (as a thread that sets a flag next to the data
 * does).  Neither conflicts with the other.  Both find both cells of plane
 * A empty and pick one by their slot's parity, the same (a third thread,
 * which stays alive, takes the slot between theirs), so both pick the same
 * cell: the later one's exchange gets the earlier one's access back
 * (racedet/access.c, publish and refresh_rest).  It used to check that
 * access for a conflict and drop it, as an evicted one: when the writer
 * stored first, its write was gone, and the bystander's read of bytes 0-3
 * after the rounds (ordered after the writes only by a relaxed flag) was
 * not reported as racing with it.  The access goes back into the granule
 * now (restore).  (tests/launcher/race_prog.c's "same" mode lost its second
 * race so in 1 to 8 runs of 100: the reader stored into the granule of the
 * counter as the writer incremented it, spinning on a flag there.)
 *
 * EXPECT: race
 * EXPECT-CURRENT: reader
 * EXPECT-EVERY: 64 round
 */
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <stdio.h>

#include "rounds64.h"

static union {
  long l;
  int i[2];
} x[ROUNDS * 8]; /* one granule of its own per round */
static int written, started;
static sem_t hold;

static long mine[ROUNDS * 8]; /* the writer's private counters */

/* the writer's round: its store into x the fast way (the site of its
 * context known: the private counter first, rd_site_cached); the
 * bystander's with a look at the cells, then a new site (rd_site_of), then
 * the exchange (an atomic store: the full check, check_store), so that it
 * exchanges last; in displaced_refresh.c a plain store after a private
 * counter of its own, as the writer's (the refresh) */
#ifndef BYSTANDER_REFRESH
#define BYSTANDER_STORE(n) __atomic_store_n(&x[(n)*8].i[1], 1, __ATOMIC_RELAXED)
#else /* displaced_refresh.c */
static long theirs[ROUNDS * 8];
#define BYSTANDER_STORE(n) (theirs[(n)*8]++, x[(n)*8].i[1] = 1)
#endif
#define R(n)                                        \
  __attribute__((noinline)) void round_##n(void) {  \
    mine[(n)*8]++;                                  \
    x[(n)*8].i[0] = (n) + 1;                        \
  }                                                 \
  __attribute__((noinline)) void bround_##n(void) { BYSTANDER_STORE(n); }
EACH64(R)
#undef R
static void (*const rounds[ROUNDS])(void) = TABLE64(round_);
static void (*const brounds[ROUNDS])(void) = TABLE64(bround_);

/* each thread takes its slot as it starts: one at a time, in order */
static void start(void) { __atomic_store_n(&started, 1, __ATOMIC_RELAXED); }
static void create(pthread_t *t, void *(*fn)(void *)) {
  __atomic_store_n(&started, 0, __ATOMIC_RELAXED);
  pthread_create(t, 0, fn, 0);
  while (!__atomic_load_n(&started, __ATOMIC_RELAXED)) sched_yield();
}

void *writer(void *arg) {
  start();
  for (int i = 0; i < ROUNDS; i++) {
    meet(i);
    rounds[i]();
  }
  __atomic_store_n(&written, 1, __ATOMIC_RELAXED);
  return arg;
}

__attribute__((noinline)) long reader(int i) { return x[i * 8].i[0]; }

void *bystander(void *arg) {
  start();
  for (int i = 0; i < ROUNDS; i++) {
    meet(i);
    brounds[i]();
  }
  while (!__atomic_load_n(&written, __ATOMIC_RELAXED)) sched_yield();
  long sum = 0;
  for (int i = 0; i < ROUNDS; i++) sum += reader(i);
  printf("sum %ld\n", sum);
  return arg;
}

void *idle(void *arg) {
  start();
  sem_wait(&hold);
  return arg;
}

int main(void) {
  pthread_t w, i, b;
  sem_init(&hold, 0, 0);
  create(&w, writer);
  create(&i, idle);
  create(&b, bystander);
  pthread_join(w, 0);
  pthread_join(b, 0);
  sem_post(&hold);
  pthread_join(i, 0);
  return 0;
}
