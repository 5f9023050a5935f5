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
#include <stdio.h>

#include "rounds64.h"

static long x[ROUNDS * 8]; /* one granule of its own per round */

#define R(i) __attribute__((noinline)) void round_##i(void) { x[(i)*8] += 1; }
EACH64(R)
#undef R
static void (*const rounds[ROUNDS])(void) = TABLE64(round_);

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
