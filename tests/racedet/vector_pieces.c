/* vector_pieces.c: a 16-byte vector load (SSE) is skipped without a look
 * at the cells only when each of its granules is already recorded, and
 * each granule's piece is checked and stored on its own.
 *
 * Thread A writes bytes 0-7 of `buf` (8 bytes), then, in the same epoch,
 * loads bytes 0-15 as one vector (load_0): its first granule is covered by
 * the write, its second is not, so the inline check for 16 bytes
 * (racedet.h, rd_access_fast_to) must go on to the second granule's check.
 * Then it loads bytes 20-35 with an unaligned vector load (load_1: three
 * granules' pieces, access.c's small_access, through
 * __tsan_unaligned_read16 or __tsan_read_range, by compiler).
 * Then it loads bytes 48-63 as one vector (load_2), neither granule
 * recorded: both pieces go on from the inline check (access.c,
 * rd_access_pair).
 * Thread B, ordered with nothing of A (a relaxed flag), then writes bytes
 * 12, 33 and 60, each racing with one of the loads only.  An inline check
 * that judged the aligned load by its first granule would never record the
 * second, and lose the first report; a split that dropped the unaligned
 * load's last piece, the second; one that stopped at the first piece it
 * stored, the third.  The aligned load's report names the piece it raced
 * on: 8 bytes at offset 0 of the second granule.
 *
 * EXPECT: race
 * EXPECT-COUNT: 3
 * EXPECT-EVERY: 3 load
 * EXPECT-PREVIOUS: load_0 thread_a
 * EXPECT-PREVIOUS-AT: 8 0
 * EXPECT-CURRENT: write_0 thread_b
 * EXPECT-LOCATION: global buf
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

_Alignas(16) unsigned char buf[64];
static atomic_int a_done; /* relaxed: orders nothing */

__attribute__((noinline)) void write_first(void) { *(volatile uint64_t *)buf = 1; }
/* SSE's __m128i and its unaligned variant, without the intrinsics (whose
 * inlined frames would be the innermost ones) */
typedef long long v2di __attribute__((vector_size(16)));
typedef long long v2di_u __attribute__((vector_size(16), aligned(1)));
__attribute__((noinline)) v2di load_0(void) { return *(const v2di *)(void *)buf; }
__attribute__((noinline)) v2di load_1(void) { return *(const v2di_u *)(void *)(buf + 20); }
__attribute__((noinline)) v2di load_2(void) { return *(const v2di *)(void *)(buf + 48); }
__attribute__((noinline)) void write_0(void) { ((volatile unsigned char *)buf)[12] = 9; }
__attribute__((noinline)) void write_1(void) { ((volatile unsigned char *)buf)[33] = 7; }
__attribute__((noinline)) void write_2(void) { ((volatile unsigned char *)buf)[60] = 5; }

v2di sink[3]; /* (global: the loads are not dead) */
void *thread_a(void *arg) {
  write_first();
  sink[0] = load_0();
  sink[1] = load_1();
  sink[2] = load_2();
  atomic_store_explicit(&a_done, 1, memory_order_relaxed);
  return arg;
}
void *thread_b(void *arg) {
  while (!atomic_load_explicit(&a_done, memory_order_relaxed)) sched_yield();
  write_0();
  write_1();
  write_2();
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%d %d %d\n", buf[12], buf[33], buf[60]);
  return 0;
}
