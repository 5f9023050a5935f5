/* key_destructor_late.c: a program's thread-specific-data destructor that
 * runs after the runtime's own thread end: it sets its key again in every
 * round of destructors but the last, and in the last one the runtime's
 * runs first (keys are destroyed in the order they were made, and the
 * runtime makes its key when the first thread starts; it waits for the
 * last round, key_destructor_sync.c).  The thread's state is gone by then
 * (dc_dead_thread) and what it
 * does is ignored, but it still goes through the instrumentation and the
 * interceptors.  The destructor reads a global with the size and kind of
 * main's earlier read (the cell then looked like the dead thread's own from
 * an earlier epoch, which took the refresh's path and crashed in its
 * context capture), writes and reads a new heap block byte by byte (full
 * checks and merges), takes a mutex (the release crashed, with no clock),
 * creates and joins a thread (the creator's context capture crashed),
 * signals a condition variable, posts a semaphore, takes a read lock, adds
 * to an atomic, memsets and strdups.  The program must run to its end,
 * with no report.
 *
 * EXPECT: clean
 */
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long g;
static pthread_key_t key;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static sem_t sem;
static long sum, atomic_sum;

static void *child(void *a) { return a; }

static __thread int rounds;

static void late(void *p) {
  if (++rounds < PTHREAD_DESTRUCTOR_ITERATIONS) { /* the last round only */
    pthread_setspecific(key, p);
    return;
  }
  volatile long v = *(long *)p; /* g, as main read it */
  char *b = malloc(32);
  for (int i = 0; i < 32; i++) b[i] = (char)i;
  long s = v;
  for (int i = 0; i < 32; i++) s += b[i];
  free(b);
  pthread_mutex_lock(&m);
  sum += s;
  pthread_mutex_unlock(&m);
  pthread_t c;
  if (pthread_create(&c, 0, child, 0) == 0) pthread_join(c, 0);
  pthread_cond_signal(&cv);
  sem_post(&sem);
  pthread_rwlock_rdlock(&rw);
  pthread_rwlock_unlock(&rw);
  __atomic_fetch_add(&atomic_sum, 1, __ATOMIC_ACQ_REL);
  char buf[64];
  memset(buf, 1, sizeof buf);
  char *h = strdup(buf[0] ? "late" : "");
  free(h);
}

static void *worker(void *a) {
  pthread_setspecific(key, &g);
  return a;
}

int main(void) {
  sem_init(&sem, 0, 0);
  pthread_key_create(&key, late);
  long v = *(volatile long *)&g;
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  pthread_mutex_lock(&m);
  printf("sum %ld %ld\n", sum + v, __atomic_load_n(&atomic_sum, __ATOMIC_ACQUIRE));
  const int ok = sum == 4 * 496 && __atomic_load_n(&atomic_sum, __ATOMIC_ACQUIRE) == 4;
  pthread_mutex_unlock(&m);
  return ok ? 0 : 1;
}
