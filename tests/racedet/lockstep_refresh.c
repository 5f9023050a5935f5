/* lockstep_refresh.c: lockstep_collide for the slow path's shortcut, the
 * refresh of a thread's own cell (rd_access_more, refresh_in): two
 * threads refresh their own cells of one granule at the same moment, 64
 * times, each time on a fresh granule, and every one of the 64 races must
 * be reported.
 *
 * First, in order (a mutex, then a barrier), the writer writes bytes 0-3 of
 * x[i] and the reader reads all eight: two cells of plane A, one each,
 * neither making the other redundant (a read does not stand for a write).
 * After the barrier each thread is in a new epoch and has seen the other's
 * access.  Then, per round, the threads meet at a spin barrier of relaxed
 * atomics (no happens-before) and make the same accesses again: each finds
 * its own cell to refresh and the other cell ordered before it, so the
 * shortcut stores at once; of two that store at the same moment, only the
 * second look after the exchange can find the other (refresh_rest).  The
 * increment of a private counter first in each round makes the context's
 * site known before the access to x (the shortcut needs it cached).
 * lockstep_refresh_b.c makes the same rounds with plane B in use.
 *
 * EXPECT: race
 * EXPECT-EVERY: 64 wround
 */
#include <pthread.h>
#include <stdio.h>

#include "rounds64.h"

#ifndef BYSTANDER
#define BYSTANDER 0 /* lockstep_refresh_b.c: a third thread, which reads bytes 4-7 */
#define READ l      /* the reader's bytes: all eight */
#endif
static union {
  long l;
  int i, h[2];
} x[ROUNDS * 8]; /* one granule of its own per round */
static long mine[2][ROUNDS * 8]; /* each thread's private counters */
static long sink;

#define W(n) __attribute__((noinline)) void wround_##n(long *m) { m[(n)*8]++; x[(n)*8].i = (n); }
#define R(n) __attribute__((noinline)) void rround_##n(long *m) { m[(n)*8]++; sink += x[(n)*8].READ; }
#define BOTH(n) W(n) R(n)
EACH64(BOTH)
#undef W
#undef R
#undef BOTH
static void (*const rounds[2][ROUNDS])(long *) = {TABLE64(wround_), TABLE64(rround_)};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ordered;
static int turn; /* whose accesses come next: the writer, the reader, the bystander */
static long bystander_sink;

void *racer(void *arg) {
  const int who = (int)(long)arg; /* 0 writes, 1 reads, 2 the bystander */
  for (int done = 0; !done;) {    /* in turn: the writer's accesses first */
    pthread_mutex_lock(&m);
    if (turn == who) {
      if (who < 2)
        for (int i = 0; i < ROUNDS; i++) rounds[who][i](mine[who]);
      else
        for (int i = 0; i < ROUNDS; i++) bystander_sink += x[i * 8].h[1];
      turn++;
      done = 1;
    }
    pthread_mutex_unlock(&m);
  }
  pthread_barrier_wait(&ordered);
  if (who == 2) return arg; /* the bystander only held a cell */
  for (int i = 0; i < ROUNDS; i++) {
    meet(i);
    rounds[who][i](mine[who]);
  }
  return arg;
}

int main(void) {
  pthread_barrier_init(&ordered, 0, 2 + BYSTANDER);
  pthread_t th[3];
  for (long i = 0; i < 2 + BYSTANDER; i++) pthread_create(&th[i], 0, racer, (void *)i);
  for (int i = 0; i < 2 + BYSTANDER; i++) pthread_join(th[i], 0);
  printf("%ld\n", sink + bystander_sink);
  return 0;
}
