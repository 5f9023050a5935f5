/* merge_conflict.c: a race that only the merge of an access into the
 * thread's cell of the same epoch can see (rd_access_more, update_in with
 * merge).  The reader reads byte 3 of x.  main then writes bytes 0, 1, 2
 * and 3 one at a time in one function, after a relaxed flag (which orders
 * nothing): byte 0 takes a cell of its own, and each next byte is merged
 * into it.  The write of byte 3 races with the reader's read, and nothing
 * else looks at that pair: the race is lost if the merge skips checking
 * the other cells.  merge_conflict_b.c makes the same race with plane B in
 * use.
 *
 * EXPECT: race
 * EXPECT-CURRENT: write_bytes main
 * EXPECT-PREVIOUS: read_byte reader
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#ifndef BYSTANDERS
#define BYSTANDERS 0 /* merge_conflict_b.c: two threads that read bytes 6 and 7 first */
#endif
static char x[8] __attribute__((aligned(8)));
static atomic_int turn; /* relaxed: orders nothing for the detector */

static void wait_turn(int n) {
  while (atomic_load_explicit(&turn, memory_order_relaxed) != n) sched_yield();
}
static void next_turn(void) { atomic_fetch_add_explicit(&turn, 1, memory_order_relaxed); }

/* four stores of different values: the compiler keeps them four accesses */
__attribute__((noinline)) void write_bytes(char *p) {
  p[0] = 1;
  p[1] = 2;
  p[2] = 3;
  p[3] = 4;
}
__attribute__((noinline)) long read_byte(int i) { return x[i]; }

static void *bystander(void *a) {
  const int byte = (int)(long)a;
  wait_turn(byte - 6); /* byte 6 first, then byte 7 */
  long v = x[byte];
  next_turn();
  return (void *)v;
}

static void *reader(void *a) {
  (void)a;
  wait_turn(BYSTANDERS);
  long v = read_byte(3);
  next_turn();
  return (void *)v;
}

int main(void) {
  pthread_t th[BYSTANDERS + 1];
  for (long i = 0; i < BYSTANDERS; i++) pthread_create(&th[i], 0, bystander, (void *)(6 + i));
  pthread_create(&th[BYSTANDERS], 0, reader, 0);
  wait_turn(BYSTANDERS + 1);
  write_bytes(x); /* byte 3 races with read_byte: nothing orders them */
  long sum = 0;
  for (int i = 0; i <= BYSTANDERS; i++) {
    void *v;
    pthread_join(th[i], &v);
    sum += (long)v;
  }
  printf("read %ld\n", sum + x[0]);
  return 0;
}
