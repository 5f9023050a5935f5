/* mutexes_held.c: both accesses of a race happen under locks, but not the
 * same ones: one holds mutex a and a read lock on rw, the other holds b.
 * The report names the mutexes each access held (the previous one's come
 * from its shadow cell's context, as TSan shows them).
 *
 * EXPECT: race
 * EXPECT-CURRENT: under_a|under_b
 * EXPECT-PREVIOUS: under_a|under_b
 * EXPECT-MUTEXES: 2 1
 */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
int x;
__attribute__((noinline)) void under_a(void) {
  pthread_mutex_lock(&a);
  pthread_rwlock_rdlock(&rw);
  x++;
  pthread_rwlock_unlock(&rw);
  pthread_mutex_unlock(&a);
}
__attribute__((noinline)) void under_b(void) {
  pthread_mutex_lock(&b);
  x++;
  pthread_mutex_unlock(&b);
}
void *t1(void *p) {
  under_a();
  return p;
}
void *t2(void *p) {
  under_b();
  return p;
}
int main(void) {
  pthread_t p, q;
  pthread_create(&p, 0, t1, 0);
  pthread_create(&q, 0, t2, 0);
  pthread_join(p, 0);
  pthread_join(q, 0);
  printf("%d\n", x);
  return 0;
}
