/* refresh_conflict.c: a race that only the slow path's refresh of the
 * thread's own cell can see.  main writes x, then hands over to the reader
 * through a mutex, so the reader's read of x is ordered after that write
 * and races with nothing then; it sits in the granule's other cell.  main
 * then writes x again after a relaxed flag (which orders nothing): its own
 * cell from the earlier epoch is refreshed, and the reader's read in the
 * other cell races with this write.  Nothing else looks at that pair: the
 * race is lost if the refresh skips checking the other cell.
 * refresh_conflict_b.c makes the same race with plane B in use.
 *
 * EXPECT: race
 * EXPECT-CURRENT: second_write main
 * EXPECT-PREVIOUS: read_x reader
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#ifndef BYSTANDERS
#define BYSTANDERS 0 /* refresh_conflict_b.c: two threads that read bytes 6 and 7 first */
#define X l          /* the bytes of the race: all eight */
#endif
static union {
  long l;
  int i;
  char c[8];
} x;
static int ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int turn; /* relaxed: orders nothing for the detector */

static void wait_turn(int n) {
  while (atomic_load_explicit(&turn, memory_order_relaxed) != n) sched_yield();
}
static void next_turn(void) { atomic_fetch_add_explicit(&turn, 1, memory_order_relaxed); }

__attribute__((noinline)) void first_write(void) { x.X = 1; }
__attribute__((noinline)) void second_write(void) { x.X = 2; }
__attribute__((noinline)) long read_x(void) { return x.X; }

static void *bystander(void *a) {
  const int byte = (int)(long)a;
  wait_turn(byte - 6); /* byte 6 first, then byte 7 */
  long v = x.c[byte];
  next_turn();
  return (void *)v;
}

static void *reader(void *a) {
  pthread_mutex_lock(&m);
  while (!ready) {
    pthread_mutex_unlock(&m);
    sched_yield();
    pthread_mutex_lock(&m);
  }
  pthread_mutex_unlock(&m);
  long v = read_x(); /* after first_write: ordered by the mutex */
  next_turn();
  return (void *)v;
}

int main(void) {
  pthread_t th[BYSTANDERS + 1];
  for (long i = 0; i < BYSTANDERS; i++) pthread_create(&th[i], 0, bystander, (void *)(6 + i));
  pthread_create(&th[BYSTANDERS], 0, reader, 0);
  wait_turn(BYSTANDERS);
  first_write();
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  wait_turn(BYSTANDERS + 1);
  second_write(); /* races with read_x: nothing orders them */
  long sum = 0;
  for (int i = 0; i <= BYSTANDERS; i++) {
    void *v;
    pthread_join(th[i], &v);
    sum += (long)v;
  }
  printf("read %ld\n", sum);
  return 0;
}
