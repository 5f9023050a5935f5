/* straddle_pieces_first.c: straddle_pieces.c with the loads the other way
 * round, so that the piece not yet recorded is the first one.
 *
 * Thread A makes two unaligned 4-byte loads in one epoch: bytes 7-10 (the
 * first granule's 7, the second's 0-2), then bytes 6-9 (6-7, and 0-1).  The
 * second load's second piece is recorded by the first load, and its first
 * piece is not: byte 6 is new.  Then thread B, ordered with nothing of A
 * (a relaxed flag), writes byte 6, which races with the second load only.
 * A check whose mask of the first piece were one byte short (byte 7) would
 * find that piece recorded too, never record byte 6, and lose the report.
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: read_6_to_9 thread_a
 * EXPECT-CURRENT: write_byte_6 thread_b
 * EXPECT-LOCATION: global buf
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

struct __attribute__((packed)) at6 {
  unsigned char pad[6];
  uint32_t v; /* bytes 6-9 */
};
struct __attribute__((packed)) at7 {
  unsigned char pad[7];
  uint32_t v; /* bytes 7-10 */
};
_Alignas(8) volatile union {
  unsigned char b[16];
  struct at6 s6;
  struct at7 s7;
} buf;
static atomic_int a_done; /* relaxed: orders nothing */

__attribute__((noinline)) uint32_t read_6_to_9(void) { return buf.s6.v; }
__attribute__((noinline)) uint32_t read_7_to_10(void) { return buf.s7.v; }
__attribute__((noinline)) void write_byte_6(void) { buf.b[6] = 9; }

void *thread_a(void *arg) {
  uint64_t sum = read_7_to_10();
  sum += read_6_to_9();
  atomic_store_explicit(&a_done, 1, memory_order_relaxed);
  return (void *)(uintptr_t)sum;
}
void *thread_b(void *arg) {
  while (!atomic_load_explicit(&a_done, memory_order_relaxed)) sched_yield();
  write_byte_6();
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%d\n", buf.b[6]);
  return 0;
}
