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
#define BYSTANDER_BYTES x.c
#include "turns.h"

__attribute__((noinline)) void first_write(void) { x.X = 1; }
__attribute__((noinline)) void second_write(void) { x.X = 2; }
__attribute__((noinline)) long read_x(void) { return x.X; }

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
  start(th, reader);
  wait_turn(BYSTANDERS);
  first_write();
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  wait_turn(BYSTANDERS + 1);
  second_write(); /* races with read_x: nothing orders them */
  printf("read %ld\n", join_all(th));
  return 0;
}
