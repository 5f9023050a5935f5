/* floor.c: the cells that no thread can race with any more.
 *
 * A cell of slot s at epoch e that every thread's clock covers, every
 * thread alive and every thread created but not started yet (its creator's
 * clock, start_vc), happens before every access still to come: threads
 * created later start from their creators' clocks, and clocks only grow.
 * Such a cell can never be part of a race again (a freed mark still can:
 * any access after a free is one), so the slow path may use it as an empty
 * cell (access.c).  Without this, main's initialisation of a buffer, a job
 * handed over long ago, a block's history from before a lock handed it on,
 * all held cells until something overwrote them: a third or fourth cell
 * per granule, in plane B (shadow.h), whose pages a few scattered granules
 * commit whole: 25-37 of zstd's 230 MB at its peak, with 0.1-0.24 million
 * granules of three or more cells at any moment.
 *
 * rd_floor[s] is at most the least entry for s of those clocks, computed
 * now and then (rd_floor_update) from a registry of them that thread
 * creation, start and end change under one lock, which the computation
 * holds: no thread is ever missing from it.  The owners update their clocks
 * meanwhile without it, but entries only grow, so what is read is a value
 * they had: the result can only be too small, never too large.  A thread's
 * clock never moves while registered (rd_thread_start gives it room for
 * every slot), so it is never read after a reallocation freed it. */
#include "racedet.h"

_Atomic uint32_t rd_floor[SH_MAX_TID + 1];
static _Atomic int floor_lock;
typedef struct reg {
  const rd_vc *vc;      /* a thread's clock, or a pending start clock */
  const rd_vc *joining; /* the clock of the thread it is joining, or 0 */
} reg;
static reg *clocks; /* the registry */
static uint32_t n_clocks, cap_clocks;

/* Register v; returns its place (under the lock). */
static uint32_t add(const rd_vc *v) {
  if (n_clocks == cap_clocks) {
    uint32_t cap = cap_clocks ? cap_clocks * 2 : 64;
    reg *c = dc_alloc((size_t)cap * sizeof *c);
    for (uint32_t i = 0; i < n_clocks; i++) c[i] = clocks[i];
    dc_free(clocks, (size_t)cap_clocks * sizeof *clocks);
    clocks = c;
    cap_clocks = cap;
  }
  clocks[n_clocks] = (reg){v, 0};
  return n_clocks++;
}

static reg *find(const rd_vc *v) {
  for (uint32_t i = 0; i < n_clocks; i++)
    if (clocks[i].vc == v) return &clocks[i];
  return 0;
}

/* Unregister v; a joiner of v's thread goes back to its own clock. */
static void drop(const rd_vc *v) {
  for (uint32_t i = 0; i < n_clocks; i++)
    if (clocks[i].joining == v) clocks[i].joining = 0;
  reg *e = find(v);
  if (e) *e = clocks[--n_clocks];
}

/* The clock of thread serial if it is alive and registered (under the
 * lock: a thread's state goes back to the pool, for a new thread to reuse
 * with its clock at the same address, only after its record stops naming
 * it, and it is unregistered before that); or, if it has not started yet,
 * its registered start clock, which its own clock will cover (a join
 * issued before the joined thread's first instruction: seen under load in
 * tests/unit/test_floor.c, whose floor then stayed put for the whole join). */
static const rd_vc *live_clock(uint32_t serial) {
  const dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
  const dc_thread *t = __atomic_load_n(&rec->live, __ATOMIC_ACQUIRE);
  if (t && !t->rd.disabled && find(&t->rd.vc)) return &t->rd.vc;
  return find(&rec->start_vc) ? &rec->start_vc : 0;
}

int rd_floor_joining(const rd_vc *mine, uint32_t serial) {
  dc_lock(&floor_lock);
  reg *e = find(mine);
  const rd_vc *target = serial == UINT32_MAX ? 0 : live_clock(serial);
  if (e) e->joining = target;
  dc_unlock(&floor_lock);
  return e && target;
}

void rd_floor_created(rd_vc *start, const rd_vc *creator) {
  dc_lock(&floor_lock);
  rd_vc_copy(start, creator);
  add(start);
  dc_unlock(&floor_lock);
}

void rd_floor_started(rd_vc *mine, rd_vc *start) {
  dc_lock(&floor_lock);
  if (start) {
    rd_vc_join(mine, start);
    for (uint32_t i = 0; i < n_clocks; i++) /* a joiner already waiting */
      if (clocks[i].joining == start) clocks[i].joining = mine;
    drop(start);
    rd_vc_free(start);
  }
  add(mine);
  dc_unlock(&floor_lock);
}

void rd_floor_forget(rd_vc *v) {
  dc_lock(&floor_lock);
  drop(v);
  rd_vc_free(v);
  dc_unlock(&floor_lock);
}

void rd_floor_fork_child(const rd_vc *mine) {
  n_clocks = 0;
  add(mine);
}

void rd_floor_update(void) {
  /* one computation at a time; a thread that finds one running skips it */
  if (!dc_trylock(&floor_lock)) return;
  static uint32_t low[SH_MAX_TID + 1];
  uint32_t n = 0; /* slots that any clock names */
  for (uint32_t i = 0; i < n_clocks; i++) {
    const uint32_t k = __atomic_load_n(&clocks[i].vc->n, __ATOMIC_ACQUIRE);
    if (k > n) n = k;
  }
  for (uint32_t s = 0; s < n; s++) low[s] = UINT32_MAX;
  for (uint32_t i = 0; i < n_clocks; i++) {
    const rd_vc *v = clocks[i].vc, *j = clocks[i].joining;
    const uint32_t k = __atomic_load_n(&v->n, __ATOMIC_ACQUIRE);
    const uint32_t kj = j ? __atomic_load_n(&j->n, __ATOMIC_ACQUIRE) : 0;
    for (uint32_t s = 0; s < n; s++) {
      uint32_t e = s < k ? __atomic_load_n(&v->c[s], __ATOMIC_RELAXED) : 0;
      if (s < kj) { /* blocked in a join: it will have seen the joined thread's */
        const uint32_t f = __atomic_load_n(&j->c[s], __ATOMIC_RELAXED);
        if (f > e) e = f;
      }
      if (e < low[s]) low[s] = e;
    }
  }
  if (n_clocks)
    for (uint32_t s = 0; s < n; s++)
      if (low[s] > atomic_load_explicit(&rd_floor[s], memory_order_relaxed))
        atomic_store_explicit(&rd_floor[s], low[s], memory_order_relaxed);
  dc_unlock(&floor_lock);
}

__attribute__((constructor)) static void floor_locks(void) {
  dc_atfork_register(DC_RANK_FLOOR, &floor_lock, 1, 0);
}
