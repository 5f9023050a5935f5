/* test_floor.c: the floor below which no thread can race (racedet/floor.c)
 * follows the clocks of every live thread, and a thread blocked in
 * pthread_join counts with the joined thread's clock.
 *
 * B and A take and release one mutex over and over, so each sees the
 * other's recent epochs.  main created both and synchronises with neither,
 * so its clock has nothing of B's: the floor of B's slot stays at 0 while
 * main runs.  Then main joins A.  While it waits, its clock counts as A's
 * too (it will acquire A's end before its next access), so the floor of
 * B's slot rises with A's view of B (every 1,024 releases of a thread
 * update the floor).  A floor taken from main's own clock stays at 0
 * (checked by disabling the join's link: this test then fails).  A keeps
 * going until it sees the floor rise, so that main is surely in its join. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "../../racedet/racedet.h"

#include "check.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static atomic_uint b_tid = ~0u, b_start;
static atomic_int stop_b, a_may_go;

static void *b_body(void *p) {
  rd_thread *r = rd_cur();
  atomic_store(&b_start, r->epoch);
  atomic_store(&b_tid, r->tid);
  while (!atomic_load(&stop_b)) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  }
  return p;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A goes on until B's floor rises (main has to be in its join of A by
 * then), or for 30 seconds: then the floor never rose.  (Under load, main
 * sometimes joined A before A had started, and the join then counted for
 * nothing: A ran to its bound, two million rounds then, in about one run
 * in twenty with the test suite running beside it.  A join now links to
 * the start clock of a thread not started yet: checked directly below.) */
static void *a_body(void *p) {
  while (!atomic_load(&a_may_go)) sched_yield();
  const unsigned tid = atomic_load(&b_tid), start = atomic_load(&b_start);
  const double deadline = now_s() + 30;
  for (long i = 0; atomic_load(&rd_floor[tid]) <= start; i++) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    if (i % 64 == 0) sched_yield(); /* let B run in between */
    if (i % 65536 == 0 && now_s() > deadline) break;
  }
  return p;
}

int main(void) {
  dc_cur();
  pthread_t a, b;
  pthread_create(&b, 0, b_body, 0);
  while (atomic_load(&b_tid) == ~0u) sched_yield();
  const unsigned tid = atomic_load(&b_tid), start = atomic_load(&b_start);
  pthread_create(&a, 0, a_body, 0);
  /* main runs and synchronises with nobody: B's floor cannot pass 0 */
  for (int i = 0; i < 3000; i++) rd_floor_update(), sched_yield();
  CHECK(atomic_load(&rd_floor[tid]) == 0, "while main runs: floor of B's slot %u",
        atomic_load(&rd_floor[tid]));
  atomic_store(&a_may_go, 1);
  pthread_join(a, 0);
  const unsigned during = atomic_load(&rd_floor[tid]);
  CHECK(during > start, "while main joined A: B's floor %u passed B's first epoch %u", during,
        start);
  atomic_store(&stop_b, 1);
  pthread_join(b, 0);

  /* a join of a thread created but not started yet links to its start
   * clock (the creator's at pthread_create), and the thread's own clock
   * takes over from it when it starts */
  {
    dc_thread *me = dc_cur();
    const uint32_t serial = dc_thread_new_serial(0);
    dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
    rd_floor_created(&rec->start_vc, &me->rd.vc);
    CHECK(rd_floor_joining(&me->rd.vc, serial), "a join before the thread started counts");
    /* the thread starts, and its clock names an epoch of a slot that main
     * has never seen: with main's join moved over to that clock, the floor
     * of that slot rises to it (with the join dropped, it stays 0) */
    rd_vc mine = {0};
    rd_vc_ensure(&mine, SH_MAX_TID + 1); /* every slot, as rd_thread_start's */
    rd_floor_started(&mine, &rec->start_vc);
    __atomic_store_n(&mine.c[SH_MAX_TID], 5u, __ATOMIC_RELAXED);
    rd_floor_update();
    CHECK(atomic_load(&rd_floor[SH_MAX_TID]) == 5,
          "the join follows the thread from its start clock to its own: floor %u",
          atomic_load(&rd_floor[SH_MAX_TID]));
    rd_floor_joining(&me->rd.vc, UINT32_MAX);
    rd_floor_forget(&mine);
  }
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
