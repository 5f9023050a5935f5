/* lock_order_many.c: the lock-order graph with many locks.  One thread
 * takes locks[N - 1], then locks[M] (an edge made while the graph is
 * small).  A thread walks all N = 20,000 mutexes hand over hand (an edge
 * per neighbouring pair: the graph's tables double several times past
 * their first 4,096 buckets); the first half of the mutexes are destroyed
 * and made again (their nodes and edges go); two more walks go over all of
 * them in the same order (no cycle).  Then another thread takes locks[M],
 * then locks[N - 1]: exactly that inversion is reported, through the first
 * edge, found after the growth (checked: a growth that dropped the items
 * it moved made this test fail, with no report).
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 1
 * EXPECT-CYCLE: 2
 * EXPECT-WANTED: middle_under_last last_under_middle
 * EXPECT-HELD: middle_under_last last_under_middle
 * EXPECT-MUTEX-CREATION: make_locks
 * EXPECT-STDOUT: walked 59999
 */
#include <pthread.h>
#include <stdio.h>

#define N 20000
static pthread_mutex_t locks[N];
static long walked;

__attribute__((noinline)) static void make_locks(int from, int to) {
  for (int i = from; i < to; i++) pthread_mutex_init(&locks[i], 0);
}

static void *walk(void *arg) {
  (void)arg;
  pthread_mutex_lock(&locks[0]);
  for (int i = 1; i < N; i++) {
    pthread_mutex_lock(&locks[i]);
    walked++;
    pthread_mutex_unlock(&locks[i - 1]);
  }
  pthread_mutex_unlock(&locks[N - 1]);
  return 0;
}

#define M 12345 /* not made again */
__attribute__((noinline)) static void middle_under_last(void) {
  pthread_mutex_lock(&locks[N - 1]);
  pthread_mutex_lock(&locks[M]);
  walked++;
  pthread_mutex_unlock(&locks[M]);
  pthread_mutex_unlock(&locks[N - 1]);
}
__attribute__((noinline)) static void last_under_middle(void) {
  pthread_mutex_lock(&locks[M]);
  pthread_mutex_lock(&locks[N - 1]);
  walked++;
  pthread_mutex_unlock(&locks[N - 1]);
  pthread_mutex_unlock(&locks[M]);
}
static void *one(void *arg) {
  middle_under_last();
  return arg;
}
static void *other(void *arg) {
  last_under_middle();
  return arg;
}

static void run(void *(*fn)(void *)) {
  pthread_t t;
  pthread_create(&t, 0, fn, 0);
  pthread_join(t, 0);
}

int main(void) {
  make_locks(0, N);
  run(one);
  run(walk);
  for (int i = 0; i < N / 2; i++) pthread_mutex_destroy(&locks[i]);
  make_locks(0, N / 2);
  run(walk);
  run(walk);
  run(other);
  printf("walked %ld\n", walked); /* 3 walks of N - 1, and 2 */
  return 0;
}
