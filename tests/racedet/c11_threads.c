/* c11_threads.c: C11 <threads.h>, whose glibc functions call glibc's
 * internal pthread functions, out of the interceptors' sight unless the
 * C11 calls themselves are intercepted.  Each phase is two threads made
 * with thrd_create and joined with thrd_join (which order the phases, the
 * data each is given, and the results read back), ordered among themselves
 * by one primitive alone: mtx_lock, mtx_trylock, mtx_timedlock, a
 * hand-over through cnd_wait and cnd_signal (the receiver surely waiting),
 * call_once.  The last phase has no order at all: both threads store to
 * `last`, the only report, with their creation at thrd_create in spawn.
 *
 * EXPECT: race
 * EXPECT-CURRENT: set_last racy
 * EXPECT-PREVIOUS: set_last racy
 * EXPECT-CREATION: spawn
 * EXPECT-LOCATION: global last
 * EXPECT-COUNT: 1
 * EXPECT-STDOUT: counters 1000 1000 1000 item 42 once 1 results 10 11
 */
#include <stdio.h>
#include <threads.h>
#include <time.h>

#define TURNS 500

static mtx_t mu;
static cnd_t cv;
static once_flag once = ONCE_FLAG_INIT;
static long given[2], n_lock, n_try, n_timed, item, inits, last;
static int waiting, ready;

static int by_lock(void *arg) {
  (void)arg;
  for (int i = 0; i < TURNS; i++) {
    mtx_lock(&mu);
    n_lock++;
    mtx_unlock(&mu);
  }
  return 0;
}
static int by_trylock(void *arg) {
  (void)arg;
  for (int i = 0; i < TURNS; i++) {
    while (mtx_trylock(&mu) != thrd_success) thrd_yield();
    n_try++;
    mtx_unlock(&mu);
  }
  return 0;
}
static int by_timedlock(void *arg) {
  (void)arg;
  struct timespec ts;
  timespec_get(&ts, TIME_UTC);
  ts.tv_sec += 60;
  for (int i = 0; i < TURNS; i++) {
    if (mtx_timedlock(&mu, &ts) != thrd_success) return -1;
    n_timed++;
    mtx_unlock(&mu);
  }
  return 0;
}
/* thread 1 waits; thread 0 hands the item over once it surely waits */
static int by_cond(void *arg) {
  mtx_lock(&mu);
  if ((long)arg) {
    waiting = 1;
    while (!ready) cnd_wait(&cv, &mu);
    mtx_unlock(&mu);
    item += 0; /* read and written after the hand-over, outside the lock */
    return 0;
  }
  while (!waiting) { /* the receiver sets it in the lock it waits in */
    mtx_unlock(&mu);
    thrd_yield();
    mtx_lock(&mu);
  }
  mtx_unlock(&mu);
  item = 42; /* outside the lock: only the signal's wake-up orders it */
  mtx_lock(&mu);
  ready = 1;
  cnd_signal(&cv);
  mtx_unlock(&mu);
  return 0;
}
static void init(void) { inits++; }
static int by_once(void *arg) {
  call_once(&once, init);
  return (int)(given[(long)arg] + inits - 1); /* given: written before thrd_create */
}
__attribute__((noinline)) static void set_last(long v) { last = v; }
static int racy(void *arg) {
  set_last((long)arg);
  return 0;
}

__attribute__((noinline)) static void spawn(thrd_t *t, thrd_start_t fn, long i) {
  if (thrd_create(t, fn, (void *)i) != thrd_success) puts("thrd_create failed");
}
static void phase(thrd_start_t fn, int res[2]) {
  thrd_t t[2];
  for (long i = 0; i < 2; i++) spawn(&t[i], fn, i);
  for (int i = 0; i < 2; i++) thrd_join(t[i], &res[i]);
}

int main(void) {
  int res[2];
  mtx_init(&mu, mtx_timed);
  cnd_init(&cv);
  phase(by_lock, res);
  phase(by_trylock, res);
  phase(by_timedlock, res);
  phase(by_cond, res);
  given[0] = 10;
  given[1] = 11;
  phase(by_once, res);
  printf("counters %ld %ld %ld item %ld once %ld results %d %d\n", n_lock, n_try, n_timed, item,
         inits, res[0], res[1]);
  phase(racy, res);
  printf("%d\n", last < 0 ? -1 : 0);
  cnd_destroy(&cv);
  mtx_destroy(&mu);
  return 0;
}
