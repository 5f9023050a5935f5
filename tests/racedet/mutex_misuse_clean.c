/* mutex_misuse_clean.c: lock uses that are not misuse: nothing to report.
 *  - a recursive mutex locked twice and unlocked twice;
 *  - an error-checking mutex locked again (EDEADLK: no wait) and unlocked;
 *  - timed, clock and try locks that succeeded, then unlocked (clang 14's
 *    TSan does not see pthread_mutex_clocklock and reports its unlock);
 *  - a function that returns holding a mutex (a C++ std::mutex has no
 *    destructor call), whose memory then holds a new mutex, made by
 *    assignment, locked and unlocked: the held set's old entry is stale,
 *    which the lock itself tells;
 *  - a mutex locked in an atfork prepare handler and unlocked in the
 *    parent and child handlers;
 *  - an rwlock read-locked twice, then write-locked;
 *  - a lock taken inside an ignored region (AnnotateIgnoreSyncBegin/End),
 *    unlocked after it;
 *  - seventeen mutexes held at once (past the held set), unlocked in
 *    another order;
 *  - condition-variable waits.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: child 0 done 9
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void AnnotateIgnoreSyncBegin(const char *file, int line);
void AnnotateIgnoreSyncEnd(const char *file, int line);

static int done;

static void init_typed(pthread_mutex_t *m, int type) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, type);
  pthread_mutex_init(m, &a);
}

static void recursive(void) {
  pthread_mutex_t m;
  init_typed(&m, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_lock(&m);
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  pthread_mutex_unlock(&m);
  pthread_mutex_destroy(&m);
  done++;
}

static void errorcheck(void) {
  pthread_mutex_t m;
  init_typed(&m, PTHREAD_MUTEX_ERRORCHECK);
  pthread_mutex_lock(&m);
  if (pthread_mutex_lock(&m) == EDEADLK) done++;
  pthread_mutex_unlock(&m);
  pthread_mutex_destroy(&m);
}

static void timed(void) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += 5;
  pthread_mutex_timedlock(&m, &ts);
  pthread_mutex_unlock(&m);
  clock_gettime(CLOCK_MONOTONIC, &ts);
  ts.tv_sec += 5;
  pthread_mutex_clocklock(&m, CLOCK_MONOTONIC, &ts);
  pthread_mutex_unlock(&m);
  if (pthread_mutex_trylock(&m) == 0) pthread_mutex_unlock(&m);
  done++;
}

/* returns holding it, as a scope whose std::mutex was left locked */
__attribute__((noinline)) static void leave_locked(pthread_mutex_t *m) {
  *m = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(m);
}
static void stale(void) {
  static pthread_mutex_t slot;
  leave_locked(&slot);
  slot = (pthread_mutex_t)PTHREAD_MUTEX_INITIALIZER; /* a new mutex there */
  pthread_mutex_lock(&slot);
  pthread_mutex_unlock(&slot);
  done++;
}

static pthread_mutex_t forklock = PTHREAD_MUTEX_INITIALIZER;
static void prepare(void) { pthread_mutex_lock(&forklock); }
static void unlock_fork(void) { pthread_mutex_unlock(&forklock); }
static int forked(void) {
  pthread_atfork(prepare, unlock_fork, unlock_fork);
  pid_t p = fork();
  if (p == 0) _exit(0);
  int st = 1;
  waitpid(p, &st, 0);
  done++;
  return WEXITSTATUS(st);
}

static void rwlock(void) {
  pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
  pthread_rwlock_rdlock(&rw);
  pthread_rwlock_rdlock(&rw);
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_wrlock(&rw);
  pthread_rwlock_unlock(&rw);
  done++;
}

static void ignored(void) {
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  AnnotateIgnoreSyncBegin(__FILE__, __LINE__);
  pthread_mutex_lock(&m);
  AnnotateIgnoreSyncEnd(__FILE__, __LINE__);
  pthread_mutex_unlock(&m);
  done++;
}

static void many(void) {
  pthread_mutex_t m[17];
  for (int i = 0; i < 17; i++) {
    pthread_mutex_init(&m[i], 0);
    pthread_mutex_lock(&m[i]);
  }
  for (int i = 0; i < 17; i++) pthread_mutex_unlock(&m[(i * 5) % 17]);
  done++;
}

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready;
static void *signaller(void *arg) {
  pthread_mutex_lock(&cm);
  ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&cm);
  return arg;
}
static void waits(void) {
  pthread_t t;
  pthread_create(&t, 0, signaller, 0);
  pthread_mutex_lock(&cm);
  while (!ready) pthread_cond_wait(&cv, &cm);
  pthread_mutex_unlock(&cm);
  pthread_join(t, 0);
  done++;
}

int main(void) {
  recursive();
  errorcheck();
  timed();
  stale();
  int child = forked();
  rwlock();
  ignored();
  many();
  waits();
  printf("child %d done %d\n", child, done);
  return 0;
}
