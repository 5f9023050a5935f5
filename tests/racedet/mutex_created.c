/* mutex_created.c: a report names the mutexes its accesses held, each with
 * where it was created: pthread_mutex_init's caller, or for a statically
 * initialised mutex, where it was first locked.  The two threads hold
 * different locks over the same counter.
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump_a|bump_b
 * EXPECT-PREVIOUS: bump_a|bump_b
 * EXPECT-MUTEXES: 1 1
 * EXPECT-MUTEX-CREATION: make_lock
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a; /* initialised by make_lock */
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static long counter;

__attribute__((noinline)) void make_lock(pthread_mutex_t *m) { pthread_mutex_init(m, 0); }
__attribute__((noinline)) void bump_a(void) {
  pthread_mutex_lock(&lock_a);
  counter++;
  pthread_mutex_unlock(&lock_a);
}
__attribute__((noinline)) void bump_b(void) {
  pthread_mutex_lock(&lock_b);
  counter++;
  pthread_mutex_unlock(&lock_b);
}
static void *thread_a(void *p) {
  bump_a();
  return p;
}
static void *thread_b(void *p) {
  bump_b();
  return p;
}
int main(void) {
  make_lock(&lock_a);
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%ld\n", counter);
  return 0;
}
