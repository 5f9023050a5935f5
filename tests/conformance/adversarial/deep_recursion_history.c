/* deep_recursion_history.c: the earlier access was made 10,000 recursive
 * calls deep.  Thread A recurses 10,000 levels, writes `depth_record` at the
 * bottom, unwinds, then makes 200,000 more calls; only then does thread B
 * read `depth_record` without synchronisation (the flag is relaxed).  The
 * previous access's stack must be decoded through all 10,000 recursive
 * frames down to thread_a (ThreadSanitizer keeps at most 255 frames of a
 * stack, and loses this old one altogether).
 * (tests/racedet/deep_history.c covers an old access that is not deep.)
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: record_depth dive dive dive dive thread_a
 * EXPECT-CURRENT: read_depth thread_b
 * EXPECT-LOCATION: global depth_record
 */
#include <pthread.h>
#include <stdio.h>

#define DEPTH 10000

long depth_record;
static int published;
static volatile unsigned long sink;

__attribute__((noinline)) void record_depth(long d) { depth_record = d; }

/* not a tail call: work after the recursive call keeps every frame */
__attribute__((noinline)) long dive(long n) {
  if (n == 0) {
    record_depth(DEPTH);
    return 0;
  }
  long r = dive(n - 1);
  __asm__ volatile("" ::: "memory");
  sink += (unsigned long)n;
  return r + 1;
}

__attribute__((noinline)) unsigned long churn(unsigned long x) { return x * 2654435761u; }

void *thread_a(void *arg) {
  long levels = dive(DEPTH);
  for (unsigned long i = 0; i < 200000; i++) sink += churn(i);
  __atomic_store_n(&published, 1, __ATOMIC_RELAXED); /* orders nothing */
  return (void *)levels;
}

__attribute__((noinline)) long read_depth(void) { return depth_record; }

void *thread_b(void *arg) {
  while (!__atomic_load_n(&published, __ATOMIC_RELAXED)) sched_yield();
  printf("depth %ld\n", read_depth());
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
