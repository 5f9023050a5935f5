/* lockstep_collide.c: two threads make the same racy access at the same
 * moment, 64 times, each time on a fresh granule, and every one of the 64
 * races must be reported.
 *
 * The threads meet at a spin barrier of relaxed atomics before each round
 * (relaxed atomics order nothing, so the detector sees no synchronisation)
 * and then both increment x[i] in round_i.  Both find the granule's cells
 * empty at the same instant and pick a cell to store into; threads whose
 * slots have the same parity start their search at the same cell.  With
 * plain stores the later one erased the earlier one unseen and neither
 * looked at that cell again: about a third of the rounds went unreported
 * (and the adversarial case ancestry_subtrees failed in CI).  Each store is
 * now an exchange that hands back what it displaced (shadow.h, sh_swap).
 * The idle thread between the two racers gives them slots of the same
 * parity.
 *
 * EXPECT: race
 * EXPECT-CURRENT: racer
 * EXPECT-PREVIOUS: racer
 * EXPECT-EVERY: 64 round
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define ROUNDS 64
static long x[ROUNDS * 8]; /* one granule of its own per round */
static int arrived[ROUNDS];

#define R(i) __attribute__((noinline)) void round_##i(void) { x[(i)*8] += 1; }
R(0) R(1) R(2) R(3) R(4) R(5) R(6) R(7) R(8) R(9) R(10) R(11) R(12) R(13) R(14) R(15) R(16)
R(17) R(18) R(19) R(20) R(21) R(22) R(23) R(24) R(25) R(26) R(27) R(28) R(29) R(30) R(31) R(32)
R(33) R(34) R(35) R(36) R(37) R(38) R(39) R(40) R(41) R(42) R(43) R(44) R(45) R(46) R(47) R(48)
R(49) R(50) R(51) R(52) R(53) R(54) R(55) R(56) R(57) R(58) R(59) R(60) R(61) R(62) R(63)
#undef R
#define F(i) round_##i
static void (*const rounds[ROUNDS])(void) = {
    F(0), F(1), F(2), F(3), F(4), F(5), F(6), F(7), F(8), F(9), F(10), F(11), F(12), F(13),
    F(14), F(15), F(16), F(17), F(18), F(19), F(20), F(21), F(22), F(23), F(24), F(25), F(26),
    F(27), F(28), F(29), F(30), F(31), F(32), F(33), F(34), F(35), F(36), F(37), F(38), F(39),
    F(40), F(41), F(42), F(43), F(44), F(45), F(46), F(47), F(48), F(49), F(50), F(51), F(52),
    F(53), F(54), F(55), F(56), F(57), F(58), F(59), F(60), F(61), F(62), F(63)};
#undef F

/* both threads leave at the same moment; relaxed: no happens-before */
static void meet(int i) {
  __atomic_fetch_add(&arrived[i], 1, __ATOMIC_RELAXED);
  for (long spins = 0; __atomic_load_n(&arrived[i], __ATOMIC_RELAXED) < 2; spins++)
    if (spins > 100000) sched_yield(); /* the other one is not running: let it */
}

void *racer(void *arg) {
  for (int i = 0; i < ROUNDS; i++) {
    meet(i);
    rounds[i]();
  }
  return arg;
}
void *idle(void *arg) { return arg; }

int main(void) {
  pthread_t a, b, c;
  pthread_create(&a, 0, racer, 0);
  pthread_create(&b, 0, idle, 0);
  pthread_join(b, 0);
  pthread_create(&c, 0, racer, 0);
  pthread_join(a, 0);
  pthread_join(c, 0);
  long lost = 0;
  for (int i = 0; i < ROUNDS; i++) lost += 2 - x[i * 8];
  printf("%ld updates lost\n", lost);
  return 0;
}
