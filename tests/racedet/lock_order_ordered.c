/* lock_order_ordered.c: the lock-order graph searches for a cycle only
 * while an edge goes against its order of the locks (racedet/deadlock.c,
 * backward_edges); every cycle has such an edge.  Threads run one at a
 * time (no deadlock in this run); each part would deadlock with its three
 * threads at once: two reports, each a cycle of three edges.
 *
 * Part 1, a cycle closed by an edge between two locks already in the
 * graph: a takes A then B (A, B new: B above A); c takes C then A (C new:
 * it goes below every lock, so C -> A goes up); b takes B then C, which
 * goes down and closes the cycle.  Then A, B and C are destroyed, and
 * their edges, the one against the order among them, go.
 *
 * Part 2, the count of edges against the order after others go: one
 * thread takes P then Q, Q then R, and R then P, which goes down (a cycle
 * of one thread's, not reported); another takes R then P.  Then F is
 * taken then G, and F is destroyed: its edge, which went up, goes.  Last,
 * a third thread takes Q then R, an edge that exists and goes up, but the
 * one against the order is still there: the search finds R -> P and
 * P -> Q of the two other threads.
 *
 * (Checked: with an edge between two nodes already there never counted
 * as against the order, neither part was reported; with the count set to
 * 0 when any edge goes, part 2 was not.)
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 2
 * EXPECT-CYCLE: 3
 * EXPECT-STDOUT: done 9
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t A, B, C, P, Q, R, F, G;
static int done;

/* (a macro: the reports are one per set of lock calls, and each edge has
 * calls of its own) */
#define TWO(x, y)              \
  do {                         \
    pthread_mutex_lock(&x);    \
    pthread_mutex_lock(&y);    \
    done++;                    \
    pthread_mutex_unlock(&y);  \
    pthread_mutex_unlock(&x);  \
  } while (0)

__attribute__((noinline)) static void *b_under_a(void *arg) { TWO(A, B); return arg; }
__attribute__((noinline)) static void *a_under_c(void *arg) { TWO(C, A); return arg; }
__attribute__((noinline)) static void *c_under_b(void *arg) { TWO(B, C); return arg; }
__attribute__((noinline)) static void *round_pqr(void *arg) {
  TWO(P, Q);
  TWO(Q, R);
  TWO(R, P);
  return arg;
}
__attribute__((noinline)) static void *p_under_r(void *arg) { TWO(R, P); return arg; }
__attribute__((noinline)) static void *g_under_f(void *arg) { TWO(F, G); return arg; }
__attribute__((noinline)) static void *r_under_q(void *arg) { TWO(Q, R); return arg; }

static void run(void *(*fn)(void *)) {
  pthread_t t;
  pthread_create(&t, 0, fn, 0);
  pthread_join(t, 0);
}

int main(void) {
  pthread_mutex_t *all[] = {&A, &B, &C, &P, &Q, &R, &F, &G};
  for (int i = 0; i < 8; i++) pthread_mutex_init(all[i], 0);
  run(b_under_a);
  run(a_under_c);
  run(c_under_b);
  pthread_mutex_destroy(&A);
  pthread_mutex_destroy(&B);
  pthread_mutex_destroy(&C);
  run(round_pqr);
  run(p_under_r);
  run(g_under_f);
  pthread_mutex_destroy(&F);
  run(r_under_q);
  printf("done %d\n", done);
  return 0;
}
