/* stack_top_location.c: a local of a thread's start function lies at the
 * top of its stack, just below its static TLS and thread control block:
 * the report's location is that thread's stack, not its TLS (the size ld.so
 * gives for static TLS counts the control block too, encoder/thread.c).
 *
 * EXPECT: race
 * EXPECT-CURRENT: poke
 * EXPECT-PREVIOUS: worker
 * EXPECT-LOCATION: stack
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>

static _Atomic(long *) shared;
static atomic_int poked;

__attribute__((noinline)) void poke(long *p) { *p = 2; }
__attribute__((noinline)) long peek(volatile long *p) { return *p; }

static void *worker(void *arg) {
  volatile long local = 1; /* the start function's frame: the top of the stack */
  atomic_store_explicit(&shared, (long *)&local, memory_order_relaxed);
  while (!atomic_load_explicit(&poked, memory_order_relaxed)) {}
  printf("%ld\n", peek(&local));
  return arg;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  long *p;
  while (!(p = atomic_load_explicit(&shared, memory_order_relaxed))) {}
  poke(p);
  atomic_store_explicit(&poked, 1, memory_order_relaxed);
  pthread_join(t, 0);
  return 0;
}
