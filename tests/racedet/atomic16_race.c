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
#include <stdio.h>

unsigned __int128 pair;

__attribute__((noinline)) void publish_pair(unsigned __int128 v) {
  __atomic_store_n(&pair, v, __ATOMIC_RELEASE);
}
__attribute__((noinline)) unsigned long plain_peek(void) { return (unsigned long)pair; }
__attribute__((noinline)) unsigned long atomic_peek(void) {
  return (unsigned long)__atomic_load_n(&pair, __ATOMIC_RELAXED);
}

__attribute__((noinline)) static void writer_work(void) {
  publish_pair(((unsigned __int128)7 << 64) | 9);
}
__attribute__((noinline)) static int reader_work(void) {
  unsigned long x = atomic_peek();
  printf("%lu %lu\n", x, plain_peek());
  return 0;
}

#include "relaxed_handoff.h"
