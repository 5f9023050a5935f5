/* refresh_conflict.c: a race that only the slow path's refresh of the
 * thread's own cell can see.  main writes x, then hands over to the reader
 * through a mutex, so the reader's read of x is ordered after that write
 * and races with nothing then; it sits in the granule's other cell.  main
 * then writes x again after a relaxed flag (which orders nothing): its own
 * cell from the earlier epoch is refreshed, and the reader's read in the
 * other cell races with this write.  Nothing else looks at that pair: the
 * race is lost if the refresh skips checking the other cell.
 *
 * EXPECT: race
 * EXPECT-CURRENT: second_write main
 * EXPECT-PREVIOUS: read_x reader
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

static long x;
static int ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_int done;

__attribute__((noinline)) void first_write(void) { x = 1; }
__attribute__((noinline)) void second_write(void) { x = 2; }
__attribute__((noinline)) long read_x(void) { return x; }

static void *reader(void *a) {
  pthread_mutex_lock(&m);
  while (!ready) {
    pthread_mutex_unlock(&m);
    sched_yield();
    pthread_mutex_lock(&m);
  }
  pthread_mutex_unlock(&m);
  long v = read_x(); /* after first_write: ordered by the mutex */
  atomic_store_explicit(&done, 1, memory_order_relaxed);
  return (void *)v;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, reader, 0);
  first_write();
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  while (!atomic_load_explicit(&done, memory_order_relaxed)) sched_yield();
  second_write(); /* races with read_x: nothing orders them */
  void *v;
  pthread_join(t, &v);
  printf("read %ld\n", (long)v);
  return 0;
}
