/* deep_history.c: the earlier access is 10,000,000 calls back.
 * Thread A writes `config` deep in a call chain, then makes ten million
 * calls; only then does thread B read `config`, with no synchronisation (the
 * flag is relaxed).  ThreadSanitizer's bounded trace has long lost the write:
 * gcc's runtime prints "failed to restore the stack", clang's reports
 * nothing.  Both paths must be reported in full.
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: store_config configure_level2 configure_level1 thread_a
 * EXPECT-CURRENT: read_config consumer thread_b
 * EXPECT-LOCATION: global config
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

long config;
static atomic_int published; /* relaxed: orders nothing */
static volatile unsigned long sink;

__attribute__((noinline)) void store_config(long v) { config = v; }
__attribute__((noinline)) void configure_level2(long v) { store_config(v * 2); }
__attribute__((noinline)) void configure_level1(long v) { configure_level2(v + 1); }
__attribute__((noinline)) unsigned long busy_leaf(unsigned long x) { return x * 2654435761u; }

void *thread_a(void *arg) {
  configure_level1(20);
  for (unsigned long i = 0; i < 10000000; i++) sink += busy_leaf(i);
  atomic_store_explicit(&published, 1, memory_order_relaxed);
  return arg;
}

__attribute__((noinline)) long read_config(void) { return config; }
__attribute__((noinline)) long consumer(void) {
  while (!atomic_load_explicit(&published, memory_order_relaxed)) sched_yield();
  return read_config();
}
void *thread_b(void *arg) {
  printf("config %ld\n", consumer());
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return 0;
}
