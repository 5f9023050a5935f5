/* turns.h: threads that take turns without telling the detector.  A turn
 * counter read and advanced with relaxed atomics makes no happens-before,
 * so what the threads do in their turns races as the test wants.
 *
 * With BYSTANDER_BYTES defined (a char array of the granule under test,
 * declared before this is included), bystanders too: BYSTANDERS threads
 * (0 to 2) that read bytes 6 and 7 of it at turns 0 and 1, so that plane
 * A's two cells hold accesses that nothing orders with what follows and
 * that share no byte with it; start() makes them and then one more thread,
 * whose turns come after theirs. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int turn;

static void wait_turn(int n) {
  while (atomic_load_explicit(&turn, memory_order_relaxed) != n) sched_yield();
}
static void next_turn(void) { atomic_fetch_add_explicit(&turn, 1, memory_order_relaxed); }

/* Runs a and b as two threads and joins them; what b returned. */
static inline long run_pair(void *(*a)(void *), void *(*b)(void *)) {
  pthread_t ta, tb;
  void *v;
  pthread_create(&ta, 0, a, 0);
  pthread_create(&tb, 0, b, 0);
  pthread_join(ta, 0);
  pthread_join(tb, &v);
  return (long)v;
}

#ifdef BYSTANDER_BYTES
static void *bystander(void *a) {
  const int byte = (int)(long)a;
  wait_turn(byte - 6); /* byte 6 first, then byte 7 */
  long v = BYSTANDER_BYTES[byte];
  next_turn();
  return (void *)v;
}

/* th: BYSTANDERS + 1 threads, the last one running fn */
static void start(pthread_t *th, void *(*fn)(void *)) {
  for (long i = 0; i < BYSTANDERS; i++) pthread_create(&th[i], 0, bystander, (void *)(6 + i));
  pthread_create(&th[BYSTANDERS], 0, fn, 0);
}

/* joins the BYSTANDERS + 1 threads of start(); the sum of what they returned */
static long join_all(pthread_t *th) {
  long sum = 0;
  for (int i = 0; i <= BYSTANDERS; i++) {
    void *v;
    pthread_join(th[i], &v);
    sum += (long)v;
  }
  return sum;
}
#endif
