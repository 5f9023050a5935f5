/* lock_order_inversion.c: two threads take two mutexes in opposite orders.
 * They run one after the other, so this run never deadlocks, but another
 * interleaving would: a lock-order inversion, reported with where each
 * thread asked for the second lock and where it took the first, the
 * mutexes' creations and the threads' ancestry.  A third thread takes the
 * two again in both orders (the same cycle: no second report).
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 1
 * EXPECT-CYCLE: 2
 * EXPECT-WANTED: second_under_first first_under_second
 * EXPECT-HELD: second_under_first first_under_second
 * EXPECT-MUTEX-CREATION: make_locks
 * EXPECT-CREATION: spawn
 * EXPECT-STDOUT: total 4
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t first, second;
static int total;

__attribute__((noinline)) static void make_locks(void) {
  pthread_mutex_init(&first, 0);
  pthread_mutex_init(&second, 0);
}

__attribute__((noinline)) static void second_under_first(void) {
  pthread_mutex_lock(&first);
  pthread_mutex_lock(&second);
  total++;
  pthread_mutex_unlock(&second);
  pthread_mutex_unlock(&first);
}

__attribute__((noinline)) static void first_under_second(void) {
  pthread_mutex_lock(&second);
  pthread_mutex_lock(&first);
  total++;
  pthread_mutex_unlock(&first);
  pthread_mutex_unlock(&second);
}

static void *forward(void *arg) {
  second_under_first();
  return arg;
}
static void *backward(void *arg) {
  first_under_second();
  return arg;
}
static void *both(void *arg) {
  second_under_first();
  first_under_second();
  return arg;
}

__attribute__((noinline)) static void spawn(void *(*fn)(void *)) {
  pthread_t t;
  pthread_create(&t, 0, fn, 0);
  pthread_join(t, 0);
}

int main(void) {
  make_locks();
  spawn(forward);
  spawn(backward);
  spawn(both);
  printf("total %d\n", total);
  return 0;
}
