/* lock_order_table.c: the lock-order graph's tables keep every live lock
 * findable while locks come and go around it.
 *
 * The graph finds its nodes and edges through open-addressed tables probed
 * linearly (racedet/deadlock.c); a lock that goes leaves a hole, and the
 * items after it in their probe must move back over the hole, or a later
 * lookup stops at the hole and misses them: a cycle through a lock found
 * "gone" is not reported.  Here 129 pairs of locks that live throughout
 * are each taken in one order by one thread, in a function of their own,
 * while 8,192 other mutexes, each locked under a global one, are made and
 * destroyed over and over (100,000 in all: nodes and edges added and
 * deleted in both tables, with the pairs' nodes and edges among them).
 * Then another thread takes each pair the other way: all 129 inversions
 * must be reported (checked: with no moving back, 79 of them were missing,
 * with gcc and clang).
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 129
 * EXPECT-CYCLE: 2
 * EXPECT-STDOUT: churned 100000
 */
#include <pthread.h>
#include <stdio.h>

#include "each129.h"

#define RING 8192
#define CHURN 100000

static pthread_mutex_t global = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t ring[RING];
static pthread_mutex_t pairs[129][2];
static long churned;

#define TAKE(k)                                                                  \
  __attribute__((noinline)) static void take##k(pthread_mutex_t *a, pthread_mutex_t *b) { \
    pthread_mutex_lock(a);                                                       \
    pthread_mutex_lock(b);                                                       \
    pthread_mutex_unlock(b);                                                     \
    pthread_mutex_unlock(a);                                                     \
  }
EACH129(TAKE)
static void (*const take[129])(pthread_mutex_t *, pthread_mutex_t *) = TABLE129(take);

/* n more mutexes through the ring: the oldest destroyed, a new one made in
 * its place and locked under the global mutex (an edge to a new node). */
static void churn(long n) {
  for (long i = 0; i < n; i++, churned++) {
    pthread_mutex_t *m = &ring[churned % RING];
    if (churned >= RING) pthread_mutex_destroy(m);
    pthread_mutex_init(m, 0);
    pthread_mutex_lock(&global);
    pthread_mutex_lock(m);
    pthread_mutex_unlock(m);
    pthread_mutex_unlock(&global);
  }
}

static void *in_order(void *arg) {
  (void)arg;
  for (int k = 0; k < 129; k++) {
    take[k](&pairs[k][0], &pairs[k][1]);
    churn(300);
  }
  return 0;
}

static void *reversed(void *arg) {
  (void)arg;
  for (int k = 0; k < 129; k++) take[k](&pairs[k][1], &pairs[k][0]);
  return 0;
}

int main(void) {
  for (int k = 0; k < 129; k++)
    for (int j = 0; j < 2; j++) pthread_mutex_init(&pairs[k][j], 0);
  churn(2 * RING);
  pthread_t t;
  if (pthread_create(&t, 0, in_order, 0) || pthread_join(t, 0)) return 1;
  churn(CHURN - churned);
  if (pthread_create(&t, 0, reversed, 0) || pthread_join(t, 0)) return 1;
  printf("churned %ld\n", churned);
  return 0;
}
