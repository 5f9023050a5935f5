/* slotless_handoff.c: a thread without a thread slot still passes
 * happens-before on.
 *
 * With every slot taken by a live thread (option slots=16 here: main, A, B
 * and 13 threads waiting on a barrier), the next thread, D, gets none: its
 * accesses are not checked (a warning says so).  Its synchronisation must
 * still be: A writes x under M1; D takes M1, then M2; B takes M2 and reads
 * x.  The write happens before the read through D alone (the stages, and
 * the count of started threads that main waits for before it creates D,
 * are relaxed atomics, which order nothing).  The runtime of before turned a
 * slotless thread's synchronisation off, and reported this read as a race
 * with A's write.
 *
 * EXPECT: clean
 * EXPECT-OPTIONS: --slots=16
 * EXPECT-STDERR: accesses of threads without a thread slot are not checked
 * EXPECT-STDOUT: x 42
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#define FILLERS 13

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;
static atomic_int stage, started;
static long x, seen;

static void wait_stage(int s) {
  while (atomic_load_explicit(&stage, memory_order_relaxed) != s) sched_yield();
}

static void *filler(void *arg) {
  atomic_fetch_add_explicit(&started, 1, memory_order_relaxed);
  pthread_barrier_wait(&barrier);
  return arg;
}

static void *thread_a(void *arg) {
  atomic_fetch_add_explicit(&started, 1, memory_order_relaxed);
  wait_stage(1); /* D is running */
  pthread_mutex_lock(&m1);
  x = 42;
  pthread_mutex_unlock(&m1);
  atomic_store_explicit(&stage, 2, memory_order_relaxed);
  return arg;
}

static void *thread_d(void *arg) {
  atomic_store_explicit(&stage, 1, memory_order_relaxed);
  wait_stage(2);
  pthread_mutex_lock(&m1);
  pthread_mutex_unlock(&m1);
  pthread_mutex_lock(&m2);
  pthread_mutex_unlock(&m2);
  atomic_store_explicit(&stage, 3, memory_order_relaxed);
  return arg;
}

static void *thread_b(void *arg) {
  atomic_fetch_add_explicit(&started, 1, memory_order_relaxed);
  wait_stage(3);
  pthread_mutex_lock(&m2);
  seen = x;
  pthread_mutex_unlock(&m2);
  return arg;
}

int main(void) {
  pthread_t f[FILLERS], a, b, d;
  pthread_barrier_init(&barrier, 0, FILLERS + 1);
  for (int i = 0; i < FILLERS; i++) pthread_create(&f[i], 0, filler, 0);
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  /* a thread takes its slot as it starts: D must start last */
  while (atomic_load_explicit(&started, memory_order_relaxed) < FILLERS + 2) sched_yield();
  pthread_create(&d, 0, thread_d, 0); /* the 17th thread alive: no slot */
  pthread_join(a, 0);
  pthread_join(b, 0);
  pthread_join(d, 0);
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < FILLERS; i++) pthread_join(f[i], 0);
  printf("x %ld\n", seen);
  return 0;
}
