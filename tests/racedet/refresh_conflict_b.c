/* refresh_conflict_b.c: refresh_conflict.c with plane B in use and both
 * cells of the race in it, for the refresh of an own cell among four
 * (rd_access_more, refresh_in with n = 4): the refresh must check the
 * plane-B cell next to its own before it stores.
 *
 * Two bystanders read bytes 6 and 7 of x first: plane A's two cells, of
 * accesses that nothing orders with what follows (relaxed flags) and that
 * share no byte with it, so that no later access may take their cells.
 * main then writes bytes 0-3 (first_write), which goes to plane B, and
 * hands over to the reader through a mutex; the reader's read of bytes 0-3
 * is ordered after that write, races with nothing then, and takes plane
 * B's other cell.  main then writes bytes 0-3 again after a relaxed flag:
 * its own plane-B cell from the earlier epoch is refreshed, and the
 * reader's read, in the other plane-B cell, races with this write.
 *
 * EXPECT: race
 * EXPECT-CURRENT: second_write main
 * EXPECT-PREVIOUS: read_x reader
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

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

__attribute__((noinline)) void first_write(void) { x.i = 1; }
__attribute__((noinline)) void second_write(void) { x.i = 2; }
__attribute__((noinline)) int read_x(void) { return x.i; }

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
  pthread_t b6, b7, r;
  pthread_create(&b6, 0, bystander, (void *)6L);
  pthread_create(&b7, 0, bystander, (void *)7L);
  pthread_create(&r, 0, reader, 0);
  wait_turn(2);
  first_write();
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  wait_turn(3);
  second_write(); /* races with read_x: nothing orders them */
  void *v;
  long sum = 0;
  pthread_join(r, &v);
  sum += (long)v;
  pthread_join(b6, &v);
  sum += (long)v;
  pthread_join(b7, &v);
  sum += (long)v;
  printf("read %ld\n", sum);
  return 0;
}
