/* straddle_fast.c: an access that spans two granules is skipped inline only
 * when both of its pieces are already recorded.
 *
 * Thread A reads bytes 4-7 of `buf` (the first granule), then, in the same
 * epoch, an unaligned 8-byte load of bytes 4-11: its first piece is already
 * recorded, its second (bytes 0-3 of the second granule) is not, so the
 * inline check (racedet.h, rd_access_fast) must go on to the full one.  Then
 * thread B, ordered with nothing of A (a relaxed flag), writes byte 8, which
 * races with the load only.  An inline check that judged the whole access by
 * its first piece would never record the second and lose the report.
 * (clang calls __tsan_unaligned_read8 for the load, the inline check; gcc
 * calls __tsan_read_range, whose granule-by-granule check is the same.)
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: read_straddling thread_a
 * EXPECT-CURRENT: write_second thread_b
 * EXPECT-LOCATION: global buf
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

struct __attribute__((packed)) straddle {
  unsigned char pad[4];
  uint64_t v; /* bytes 4-11: unaligned at any optimisation level */
};
_Alignas(8) volatile union {
  unsigned char b[16];
  uint32_t w[4];
  struct straddle s;
} buf;
static atomic_int a_done; /* relaxed: orders nothing */

__attribute__((noinline)) uint32_t read_first(void) { return buf.w[1]; }
__attribute__((noinline)) uint64_t read_straddling(void) { return buf.s.v; }
__attribute__((noinline)) void write_second(void) { buf.b[8] = 9; }

void *thread_a(void *arg) {
  uint64_t sum = read_first();
  sum += read_straddling();
  atomic_store_explicit(&a_done, 1, memory_order_relaxed);
  return (void *)(uintptr_t)sum;
}
void *thread_b(void *arg) {
  while (!atomic_load_explicit(&a_done, memory_order_relaxed)) sched_yield();
  write_second();
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%d\n", buf.b[8]);
  return 0;
}
