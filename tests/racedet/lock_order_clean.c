/* lock_order_clean.c: lock orders that cannot deadlock: nothing to report.
 * clang 14's ThreadSanitizer reports the first four as lock-order
 * inversions (its issues in parentheses):
 *  - one thread takes two mutexes in both orders, no other takes both
 *    (google/sanitizers#488): a thread waits for one lock at a time;
 *  - the inversion happens under a gate mutex both threads hold;
 *  - three mutexes in a cycle of orders, two of whose edges are one
 *    thread's at different times (google/sanitizers#814);
 *  - two rwlocks read-locked in opposite orders, and the same with one
 *    write lock where the other holds its read lock shared
 *    (google/sanitizers#1862): a read lock does not wait for readers;
 * and these not:
 *  - a try-lock in the opposite order (it does not wait);
 *  - mutexes in a heap block freed (not destroyed, as a C++ object's
 *    std::mutex) and allocated again at the same addresses, taken in the
 *    other order: new mutexes (google/sanitizers#1717 is this on a stack);
 *  - a recursive mutex locked again while holding another one;
 *  - a cycle of three through an rwlock that one thread write-holds and
 *    another read-holds, each taking mutexes under it: the two are never
 *    there at once (the gate above, held in two modes).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: reused 1 total 15
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

/* each case its own mutexes: two cases' edges may close a cycle that
 * can deadlock */
#define M PTHREAD_MUTEX_INITIALIZER
static pthread_mutex_t a1 = M, b1 = M, gate = M, a2 = M, b2 = M, a3 = M, b3 = M, c3 = M,
                       a4 = M, b4 = M, c5 = M, y6 = M, z6 = M;
static pthread_rwlock_t r1 = PTHREAD_RWLOCK_INITIALIZER, r2 = PTHREAD_RWLOCK_INITIALIZER,
                        r6 = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t rec;
static int total;

static void lock2(pthread_mutex_t *x, pthread_mutex_t *y) {
  pthread_mutex_lock(x);
  pthread_mutex_lock(y);
  total++;
  pthread_mutex_unlock(y);
  pthread_mutex_unlock(x);
}

/* one thread, both orders */
static void *alone(void *arg) {
  lock2(&a1, &b1);
  lock2(&b1, &a1);
  return arg;
}

/* under a gate */
static void *gated_ab(void *arg) {
  pthread_mutex_lock(&gate);
  lock2(&a2, &b2);
  pthread_mutex_unlock(&gate);
  return arg;
}
static void *gated_ba(void *arg) {
  pthread_mutex_lock(&gate);
  lock2(&b2, &a2);
  pthread_mutex_unlock(&gate);
  return arg;
}

/* a -> b -> c by one thread (a dropped before c is taken), c -> a by another */
static void *chain(void *arg) {
  pthread_mutex_lock(&a3);
  pthread_mutex_lock(&b3);
  pthread_mutex_unlock(&a3);
  pthread_mutex_lock(&c3);
  total++;
  pthread_mutex_unlock(&c3);
  pthread_mutex_unlock(&b3);
  return arg;
}
static void *chain_back(void *arg) {
  lock2(&c3, &a3);
  return arg;
}

/* readers in both orders; a writer of r1 under a read lock of r2 */
static void *read_12(void *arg) {
  pthread_rwlock_rdlock(&r1);
  pthread_rwlock_rdlock(&r2);
  total++;
  pthread_rwlock_unlock(&r2);
  pthread_rwlock_unlock(&r1);
  return arg;
}
static void *read_21_write_1(void *arg) {
  pthread_rwlock_rdlock(&r2);
  pthread_rwlock_rdlock(&r1);
  pthread_rwlock_unlock(&r1);
  pthread_rwlock_wrlock(&r1);
  total++;
  pthread_rwlock_unlock(&r1);
  pthread_rwlock_unlock(&r2);
  return arg;
}

/* the opposite order as a try-lock */
static void *try_back(void *arg) {
  pthread_mutex_lock(&b4);
  if (pthread_mutex_trylock(&a4) == 0) {
    total++;
    pthread_mutex_unlock(&a4);
  } else {
    total++;
  }
  pthread_mutex_unlock(&b4);
  return arg;
}
static void *forward_ab(void *arg) {
  lock2(&a4, &b4);
  return arg;
}

/* two mutexes in one heap block, each pair of blocks in one order */
struct pair {
  pthread_mutex_t m[2];
};
static void *pair_forward(void *arg) {
  struct pair *p = arg;
  lock2(&p->m[0], &p->m[1]);
  return 0;
}
static void *pair_backward(void *arg) {
  struct pair *p = arg;
  lock2(&p->m[1], &p->m[0]);
  return 0;
}

/* a recursive mutex locked again under another mutex it was taken before */
static void *recursive(void *arg) {
  pthread_mutex_lock(&rec);
  pthread_mutex_lock(&c5);
  pthread_mutex_lock(&rec);
  total++;
  pthread_mutex_unlock(&rec);
  pthread_mutex_unlock(&c5);
  pthread_mutex_unlock(&rec);
  return arg;
}

/* r6 -> y6 by a writer of r6, y6 -> z6 by a reader of it, z6 -> r6 (to
 * read) by a third thread */
static void *write_r6_y6(void *arg) {
  pthread_rwlock_wrlock(&r6);
  pthread_mutex_lock(&y6);
  pthread_mutex_unlock(&y6);
  pthread_rwlock_unlock(&r6);
  return arg;
}
static void *read_r6_y6_z6(void *arg) {
  pthread_rwlock_rdlock(&r6);
  lock2(&y6, &z6);
  pthread_rwlock_unlock(&r6);
  return arg;
}
static void *z6_read_r6(void *arg) {
  pthread_mutex_lock(&z6);
  pthread_rwlock_rdlock(&r6);
  total++;
  pthread_rwlock_unlock(&r6);
  pthread_mutex_unlock(&z6);
  return arg;
}

static void run(void *(*fn)(void *), void *arg) {
  pthread_t t;
  pthread_create(&t, 0, fn, arg);
  pthread_join(t, 0);
}

int main(void) {
  pthread_mutexattr_t ra;
  pthread_mutexattr_init(&ra);
  pthread_mutexattr_settype(&ra, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&rec, &ra);
  run(alone, 0);
  run(gated_ab, 0);
  run(gated_ba, 0);
  run(chain, 0);
  run(chain_back, 0);
  run(read_12, 0);
  run(read_21_write_1, 0);
  run(try_back, 0);
  run(forward_ab, 0);
  run(recursive, 0);
  run(write_r6_y6, 0);
  run(read_r6_y6_z6, 0);
  run(z6_read_r6, 0);
  struct pair *p = malloc(sizeof *p);
  pthread_mutex_init(&p->m[0], 0);
  pthread_mutex_init(&p->m[1], 0);
  run(pair_forward, p);
  free(p);
  struct pair *q = malloc(sizeof *q);
  pthread_mutex_init(&q->m[0], 0);
  pthread_mutex_init(&q->m[1], 0);
  run(pair_backward, q);
  printf("reused %d total %d\n", p == q, total);
  free(q);
  return 0;
}
