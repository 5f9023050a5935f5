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
#include <sched.h>
#include <stdio.h>

#ifndef BYSTANDER
#define BYSTANDER 0 /* lockstep_refresh_b.c: a third thread, which reads bytes 4-7 */
#define READ l      /* the reader's bytes: all eight */
#endif
#define ROUNDS 64
static union {
  long l;
  int i, h[2];
} x[ROUNDS * 8]; /* one granule of its own per round */
static long mine[2][ROUNDS * 8]; /* each thread's private counters */
static int arrived[ROUNDS];
static long sink;

#define W(n) __attribute__((noinline)) void wround_##n(long *m) { m[(n)*8]++; x[(n)*8].i = (n); }
#define R(n) __attribute__((noinline)) void rround_##n(long *m) { m[(n)*8]++; sink += x[(n)*8].READ; }
#define BOTH(n) W(n) R(n)
BOTH(0) BOTH(1) BOTH(2) BOTH(3) BOTH(4) BOTH(5) BOTH(6) BOTH(7) BOTH(8) BOTH(9) BOTH(10)
BOTH(11) BOTH(12) BOTH(13) BOTH(14) BOTH(15) BOTH(16) BOTH(17) BOTH(18) BOTH(19) BOTH(20)
BOTH(21) BOTH(22) BOTH(23) BOTH(24) BOTH(25) BOTH(26) BOTH(27) BOTH(28) BOTH(29) BOTH(30)
BOTH(31) BOTH(32) BOTH(33) BOTH(34) BOTH(35) BOTH(36) BOTH(37) BOTH(38) BOTH(39) BOTH(40)
BOTH(41) BOTH(42) BOTH(43) BOTH(44) BOTH(45) BOTH(46) BOTH(47) BOTH(48) BOTH(49) BOTH(50)
BOTH(51) BOTH(52) BOTH(53) BOTH(54) BOTH(55) BOTH(56) BOTH(57) BOTH(58) BOTH(59) BOTH(60)
BOTH(61) BOTH(62) BOTH(63)
#undef W
#undef R
#undef BOTH
#define L(p, i) p##round_##i
#define ALL(p)                                                                                 \
  {L(p, 0),  L(p, 1),  L(p, 2),  L(p, 3),  L(p, 4),  L(p, 5),  L(p, 6),  L(p, 7),  L(p, 8),    \
   L(p, 9),  L(p, 10), L(p, 11), L(p, 12), L(p, 13), L(p, 14), L(p, 15), L(p, 16), L(p, 17),   \
   L(p, 18), L(p, 19), L(p, 20), L(p, 21), L(p, 22), L(p, 23), L(p, 24), L(p, 25), L(p, 26),   \
   L(p, 27), L(p, 28), L(p, 29), L(p, 30), L(p, 31), L(p, 32), L(p, 33), L(p, 34), L(p, 35),   \
   L(p, 36), L(p, 37), L(p, 38), L(p, 39), L(p, 40), L(p, 41), L(p, 42), L(p, 43), L(p, 44),   \
   L(p, 45), L(p, 46), L(p, 47), L(p, 48), L(p, 49), L(p, 50), L(p, 51), L(p, 52), L(p, 53),   \
   L(p, 54), L(p, 55), L(p, 56), L(p, 57), L(p, 58), L(p, 59), L(p, 60), L(p, 61), L(p, 62),   \
   L(p, 63)}
static void (*const rounds[2][ROUNDS])(long *) = {ALL(w), ALL(r)};

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ordered;
static int turn; /* whose accesses come next: the writer, the reader, the bystander */
static long bystander_sink;

/* both threads leave at the same moment; relaxed: no happens-before */
static void meet(int i) {
  __atomic_fetch_add(&arrived[i], 1, __ATOMIC_RELAXED);
  for (long spins = 0; __atomic_load_n(&arrived[i], __ATOMIC_RELAXED) < 2; spins++)
    if (spins > 100000) sched_yield(); /* the other one is not running: let it */
}

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
