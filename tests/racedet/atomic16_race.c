/* atomic16_race.c: a 16-byte atomic store races with a plain read of the
 * same object.  gcc instruments it as __tsan_atomic128_store; clang calls
 * libatomic's __atomic_store, which the runtime provides and models.  Atomics
 * do not race with atomics (the second thread's atomic load is fine); the
 * plain read does.
 *
 * EXPECT: race
 * EXPECT-CURRENT: plain_peek reader
 * EXPECT-PREVIOUS: publish_pair writer
 * EXPECT-LOCATION: global pair
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

unsigned __int128 pair;
static atomic_int stage;

__attribute__((noinline)) void publish_pair(unsigned __int128 v) {
  __atomic_store_n(&pair, v, __ATOMIC_RELEASE);
}
__attribute__((noinline)) unsigned long plain_peek(void) { return (unsigned long)pair; }
__attribute__((noinline)) unsigned long atomic_peek(void) {
  return (unsigned long)__atomic_load_n(&pair, __ATOMIC_RELAXED);
}

void *writer(void *a) {
  publish_pair(((unsigned __int128)7 << 64) | 9);
  atomic_store_explicit(&stage, 1, memory_order_relaxed);
  return a;
}
void *reader(void *a) {
  while (!atomic_load_explicit(&stage, memory_order_relaxed)) sched_yield();
  unsigned long x = atomic_peek();
  printf("%lu %lu\n", x, plain_peek());
  return a;
}
int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r, 0);
  return 0;
}
