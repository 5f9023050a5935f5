/* tls_location.c: a worker hands the address of its thread-local counter to
 * main, which writes it while the worker still counts: the report's location
 * is that worker's TLS (its static TLS block, which glibc puts inside the
 * thread's stack mapping: the TLS check comes before the stack's).
 *
 * EXPECT: race
 * EXPECT-CURRENT: count_up|reset_counter
 * EXPECT-PREVIOUS: count_up|reset_counter
 * EXPECT-LOCATION: tls
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static __thread long counter;
static _Atomic(long *) shared;
static atomic_int reset_done;

__attribute__((noinline)) void count_up(void) { counter++; }
__attribute__((noinline)) void reset_counter(long *c) { *c = 0; }

static void *worker(void *arg) {
  count_up();
  atomic_store_explicit(&shared, &counter, memory_order_relaxed);
  while (!atomic_load_explicit(&reset_done, memory_order_relaxed)) {}
  count_up();
  return arg;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  long *c;
  while (!(c = atomic_load_explicit(&shared, memory_order_relaxed))) {}
  reset_counter(c);
  atomic_store_explicit(&reset_done, 1, memory_order_relaxed);
  pthread_join(t, 0);
  printf("done\n");
  return 0;
}
