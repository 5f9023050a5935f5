/* trim_cells.c: a cell that loses some of its bytes to a later access keeps
 * the others, and their races.
 *
 * Thread A writes all 8 bytes of `word`, then hands over to B through a
 * mutex (A's write happens before B's).  B writes bytes 0-3: on those bytes
 * B's write makes A's redundant, so A's cell keeps bytes 4-7 only (access.c,
 * trimmable).  Then thread C, ordered with neither (a relaxed flag), reads
 * bytes 4-7: that races with A's write, which only the trimmed cell still
 * shows.  Trimming the wrong bytes, or dropping the cell, loses the report.
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: write_all thread_a
 * EXPECT-CURRENT: read_high thread_c
 * EXPECT-LOCATION: global word
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>

_Alignas(8) volatile union {
  uint64_t all;
  uint32_t half[2];
} word;
static pthread_mutex_t handover = PTHREAD_MUTEX_INITIALIZER;
static int a_done; /* under handover */
static atomic_int b_done; /* relaxed: orders nothing */

__attribute__((noinline)) void write_all(void) { word.all = 0x1111111122222222ull; }
__attribute__((noinline)) void write_low(void) { word.half[0] = 3; }
__attribute__((noinline)) unsigned read_high(void) { return word.half[1]; }

void *thread_a(void *arg) {
  write_all();
  pthread_mutex_lock(&handover);
  a_done = 1;
  pthread_mutex_unlock(&handover);
  return arg;
}
void *thread_b(void *arg) {
  for (int done = 0; !done; sched_yield()) {
    pthread_mutex_lock(&handover);
    done = a_done;
    pthread_mutex_unlock(&handover);
  }
  write_low();
  atomic_store_explicit(&b_done, 1, memory_order_relaxed);
  return arg;
}
void *thread_c(void *arg) {
  while (!atomic_load_explicit(&b_done, memory_order_relaxed)) sched_yield();
  printf("high %x\n", read_high());
  return arg;
}

int main(void) {
  pthread_t t[3];
  pthread_create(&t[0], 0, thread_a, 0);
  pthread_create(&t[1], 0, thread_b, 0);
  pthread_create(&t[2], 0, thread_c, 0);
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  return 0;
}
