/* clock_variants.c: the clock and timed variants of the pthread and
 * semaphore calls (glibc 2.30's *_clock*: libstdc++'s condition_variable,
 * timed_mutex and shared_timed_mutex waits on steady_clock use them).  Two
 * threads take turns at a counter per primitive, in a phase of their own,
 * each turn ordered only by that call: a variant the runtime does not see
 * orders nothing, and the counter's accesses are reported as racing.  So
 * nothing may be reported.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: counts 2000 2000 2000 2000 1000 2000 2000 2000
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define TURNS 1000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t mu_timed = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_rwlock_t rw_timed = PTHREAD_RWLOCK_INITIALIZER;
static pthread_mutex_t cv_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static sem_t sem;

/* one counter per primitive */
static long n_clocklock, n_timedlock, n_clockwrlock, n_timedwrlock, n_written, n_seen,
    n_clockwait, n_sem_clock, n_sem_timed;
static int turn; /* whose turn, for the condition variable (under cv_mu) */

static struct timespec later(clockid_t c) {
  struct timespec ts;
  clock_gettime(c, &ts);
  ts.tv_sec += 60;
  return ts;
}

static void check(int r) {
  if (r) {
    fprintf(stderr, "error %d\n", r);
    exit(2);
  }
}

/* Each primitive has a phase of its own, two threads that order their
 * turns through it alone (the phases are ordered by create and join). */
typedef void turn_fn(int me, const struct timespec *mono, const struct timespec *real);

static void t_clocklock(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)me, (void)rt;
  check(pthread_mutex_clocklock(&mu, CLOCK_MONOTONIC, ts));
  n_clocklock++;
  check(pthread_mutex_unlock(&mu));
}
static void t_timedlock(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)me, (void)ts;
  check(pthread_mutex_timedlock(&mu_timed, rt));
  n_timedlock++;
  check(pthread_mutex_unlock(&mu_timed));
}
static void t_clockwrlock(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)me, (void)rt;
  check(pthread_rwlock_clockwrlock(&rw, CLOCK_MONOTONIC, ts));
  n_clockwrlock++;
  check(pthread_rwlock_unlock(&rw));
}
static void t_timedwrlock(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)me, (void)ts;
  check(pthread_rwlock_timedwrlock(&rw_timed, rt));
  n_timedwrlock++;
  check(pthread_rwlock_unlock(&rw_timed));
}
/* a reader under the clock read lock after a writer under the plain one */
static void t_clockrdlock(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)rt;
  if (me) {
    check(pthread_rwlock_clockrdlock(&rw, CLOCK_MONOTONIC, ts));
    n_seen += n_written;
    check(pthread_rwlock_unlock(&rw));
  } else {
    check(pthread_rwlock_wrlock(&rw));
    n_written++;
    check(pthread_rwlock_unlock(&rw));
  }
}
/* strict turns through a condition variable */
static void t_clockwait(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)rt;
  check(pthread_mutex_lock(&cv_mu));
  while (turn != me) {
    int r = pthread_cond_clockwait(&cv, &cv_mu, CLOCK_MONOTONIC, ts);
    if (r && r != ETIMEDOUT) check(r);
  }
  n_clockwait++;
  turn = !me;
  check(pthread_cond_broadcast(&cv));
  check(pthread_mutex_unlock(&cv_mu));
}
/* the semaphore as a lock */
static void t_sem_clock(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)me, (void)rt;
  while (sem_clockwait(&sem, CLOCK_MONOTONIC, ts) && errno == EINTR) {
  }
  n_sem_clock++;
  sem_post(&sem);
}
static void t_sem_timed(int me, const struct timespec *ts, const struct timespec *rt) {
  (void)me, (void)ts;
  while (sem_timedwait(&sem, rt) && errno == EINTR) {
  }
  n_sem_timed++;
  sem_post(&sem);
}

static turn_fn *phase_fn;
static void *worker(void *arg) {
  const int me = (int)(long)arg;
  const struct timespec ts = later(CLOCK_MONOTONIC), rt = later(CLOCK_REALTIME);
  for (int i = 0; i < TURNS; i++) phase_fn(me, &ts, &rt);
  return NULL;
}

static void phase(turn_fn *fn) {
  phase_fn = fn;
  pthread_t a, b;
  pthread_create(&a, NULL, worker, (void *)0L);
  pthread_create(&b, NULL, worker, (void *)1L);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
}

int main(void) {
  sem_init(&sem, 0, 1);
  phase(t_clocklock);
  phase(t_timedlock);
  phase(t_clockwrlock);
  phase(t_timedwrlock);
  phase(t_clockrdlock);
  phase(t_clockwait);
  phase(t_sem_clock);
  phase(t_sem_timed);
  printf("counts %ld %ld %ld %ld %ld %ld %ld %ld\n", n_clocklock, n_timedlock, n_clockwrlock,
         n_timedwrlock, n_written, n_clockwait, n_sem_clock, n_sem_timed);
  return 0;
}
