/* held_per_site.c: one function invocation (one calling context) writes
 * eight globals, each under a different set of held mutexes, taken and
 * dropped in between with no call or return of instrumented code; main
 * then reads all eight, ordered after the writes by nothing (a relaxed
 * flag).  Each report must name, for the write, exactly the mutexes held
 * at that write: the held set is kept in the site's entry, not in the
 * context (racedet/rd_thread.c), so the context is the same for all eight
 * and only the entry tells them apart.  The first four writes are among
 * the function's first 32 access pcs (the entry cached per invocation,
 * site_c0); the last four come after 40 other stores, in the next page of
 * pcs (the cache of (context, page, held set), rd_page_site).
 *
 * The global's name says what its writer held: x_ab the mutexes first
 * locked in take_a and take_b, x_0 none.
 *
 * EXPECT: race
 * EXPECT-COUNT: 8
 * EXPECT-HELD-NAMED: writer
 * EXPECT-MUTEX-CREATION: take_a|take_b
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static pthread_mutex_t m_a = PTHREAD_MUTEX_INITIALIZER, m_b = PTHREAD_MUTEX_INITIALIZER;
long x_a, x_ab, x_b, x_0, y_a, y_ab, y_b, y_0;
long pad[40];
static atomic_int written;

/* each mutex is first seen here, so that its creation stack names it */
__attribute__((noinline)) void take_a(void) {
  pthread_mutex_lock(&m_a);
  pthread_mutex_unlock(&m_a);
}
__attribute__((noinline)) void take_b(void) {
  pthread_mutex_lock(&m_b);
  pthread_mutex_unlock(&m_b);
}

#define P(i) ((volatile long *)pad)[i] = i;
__attribute__((noinline)) void writer(void) {
  pthread_mutex_lock(&m_a);
  x_a = 1;
  pthread_mutex_lock(&m_b);
  x_ab = 1;
  pthread_mutex_unlock(&m_a);
  x_b = 1;
  pthread_mutex_unlock(&m_b);
  x_0 = 1;
  P(0) P(1) P(2) P(3) P(4) P(5) P(6) P(7) P(8) P(9)
  P(10) P(11) P(12) P(13) P(14) P(15) P(16) P(17) P(18) P(19)
  P(20) P(21) P(22) P(23) P(24) P(25) P(26) P(27) P(28) P(29)
  P(30) P(31) P(32) P(33) P(34) P(35) P(36) P(37) P(38) P(39)
  pthread_mutex_lock(&m_a);
  y_a = 1;
  pthread_mutex_lock(&m_b);
  y_ab = 1;
  pthread_mutex_unlock(&m_a);
  y_b = 1;
  pthread_mutex_unlock(&m_b);
  y_0 = 1;
}

static void *run(void *arg) {
  take_a();
  take_b();
  writer();
  atomic_store_explicit(&written, 1, memory_order_relaxed);
  return arg;
}

__attribute__((noinline)) long reader(void) {
  return x_a + x_ab + x_b + x_0 + y_a + y_ab + y_b + y_0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, run, 0);
  while (!atomic_load_explicit(&written, memory_order_relaxed)) sched_yield();
  long s = reader();
  pthread_join(t, 0);
  return s != 8;
}
