/* unaligned_cells.c: an unaligned write takes one shadow cell per granule.
 * Thread A writes 8 bytes at offset 1 of an 8-aligned buffer (bytes 1..7 of
 * the first granule, byte 0 of the second).  Then, one after another (relaxed
 * flags: no happens-before), three readers read byte 0 of the first granule,
 * which A did not write, so they do not race with it, and last thread D
 * writes byte 3, which races with A.  A's write must occupy one cell of the
 * first granule: the three readers take the other three, nothing is evicted,
 * and D's race with A is reported with A's stack whatever cell the victim
 * choice would pick.  (tests/unit/test_shadow.c checks the cells themselves.)
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: write_unaligned thread_a
 * EXPECT-CURRENT: write_byte thread_d
 * EXPECT-LOCATION: global buf
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

_Alignas(8) unsigned char buf[16];
static atomic_int step; /* relaxed: orders nothing */

static void wait_for(int n) {
  while (atomic_load_explicit(&step, memory_order_relaxed) != n) sched_yield();
}

__attribute__((noinline)) void write_unaligned(unsigned long v) { memcpy(buf + 1, &v, 8); }
__attribute__((noinline)) int read_byte0(void) { return *(volatile unsigned char *)buf; }
__attribute__((noinline)) void write_byte(void) { buf[3] = 7; }

void *thread_a(void *arg) {
  write_unaligned(0x0102030405060708ul);
  atomic_store_explicit(&step, 1, memory_order_relaxed);
  return arg;
}
void *reader(void *arg) {
  int n = (int)(long)arg;
  wait_for(n);
  read_byte0();
  atomic_store_explicit(&step, n + 1, memory_order_relaxed);
  return 0;
}
void *thread_d(void *arg) {
  wait_for(4);
  write_byte();
  return arg;
}

int main(void) {
  pthread_t t[5];
  pthread_create(&t[0], 0, thread_a, 0);
  for (long i = 1; i <= 3; i++) pthread_create(&t[i], 0, reader, (void *)i);
  pthread_create(&t[4], 0, thread_d, 0);
  for (int i = 0; i < 5; i++) pthread_join(t[i], 0);
  printf("%d\n", buf[3]);
  return 0;
}
