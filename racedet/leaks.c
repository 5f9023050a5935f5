/* leaks.c: thread leaks, as ThreadSanitizer reports them.
 *
 * A thread that finished but was neither joined nor detached keeps its
 * stack and its pthread_t until the process ends: a leak (a server that
 * forgets to join its workers runs out of memory or thread slots).  Threads
 * still running at exit are not leaks (nothing could have joined them yet).
 *
 * One table, keyed by pthread_t, holds what is not settled yet: a thread
 * that finished (its serial), or a thread detached before it finished.
 * Join removes the entry; detach removes a finished one or records the
 * detach; a detached thread's end removes its entry.  What is left at exit
 * is the leaks (rd_report_leaks), reported one per creation stack with the
 * number of similar ones.  A fork child starts with an empty table (the
 * parent's threads are not its own to join). */
#include "racedet.h"

enum { FINISHED = 1, DETACHED = 2 };
typedef struct leak_ent {
  uintptr_t key; /* pthread_t; 0 empty, TOMB a removed entry */
  uint32_t serial, state;
} leak_ent;
#define TOMB ((uintptr_t)1)

static _Atomic int lock;
static leak_ent *tab;
static uint32_t cap, used; /* used: entries and tombstones */

static uint32_t slot_of(uintptr_t key) {
  return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

/* The entry of key, or NULL; with insert, a new one (state 0) if absent. */
static leak_ent *find(uintptr_t key, int insert) {
  if (insert && (used + 1) * 2 > cap) { /* rehash the live entries */
    leak_ent *old = tab;
    uint32_t ocap = cap, n = 0;
    for (uint32_t i = 0; i < ocap; i++) n += old[i].key > TOMB;
    cap = 64;
    while (cap < 4 * (n + 1)) cap *= 2;
    tab = dc_alloc(cap * sizeof *tab);
    used = 0;
    for (uint32_t i = 0; i < ocap; i++)
      if (old[i].key > TOMB) *find(old[i].key, 1) = old[i];
    if (old) dc_free(old, ocap * sizeof *old);
  }
  if (!cap) return NULL;
  leak_ent *free_slot = NULL;
  for (uint32_t i = slot_of(key);; i = (i + 1) & (cap - 1)) {
    leak_ent *e = &tab[i];
    if (e->key == key) return e;
    if (e->key == TOMB && !free_slot) free_slot = e;
    if (!e->key) {
      if (!insert) return NULL;
      if (!free_slot) {
        free_slot = e;
        used++;
      }
      *free_slot = (leak_ent){key, 0, 0};
      return free_slot;
    }
  }
}

static void drop(leak_ent *e) { e->key = TOMB; }

void rd_leak_finished(uintptr_t th, uint32_t serial) {
  if (serial == 0) return; /* the main thread (pthread_exit in main): nobody joins it */
  dc_lock(&lock);
  leak_ent *e = find(th, 1);
  if (e->state & DETACHED) {
    drop(e);
  } else {
    e->serial = serial;
    e->state = FINISHED;
  }
  dc_unlock(&lock);
}

void rd_leak_detached(uintptr_t th) {
  dc_lock(&lock);
  leak_ent *e = find(th, 1);
  if (e->state & FINISHED)
    drop(e);
  else
    e->state = DETACHED;
  dc_unlock(&lock);
}

void rd_leak_joined(uintptr_t th) {
  dc_lock(&lock);
  leak_ent *e = find(th, 0);
  if (e) drop(e);
  dc_unlock(&lock);
}

void rd_leaks_forget_all(void) {
  /* a fork child: only the locked state is copied, no thread is running */
  if (tab) dc_free(tab, cap * sizeof *tab);
  tab = NULL;
  cap = used = 0;
}

/* The creation stack a leak is grouped by: where and in which context its
 * creator called pthread_create. */
static uint64_t creation_key(uint32_t serial) {
  const dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
  uint64_t k[4] = {rec->created_pc, rec->created_at.id,
                   (uint64_t)rec->created_at.node << 32 | rec->created_at.cc, rec->created_at.ts};
  return dc_hash(k, sizeof k);
}

void rd_report_leaks(void) {
  dc_lock(&lock);
  uint32_t n = 0;
  for (uint32_t i = 0; i < cap; i++) n += tab[i].key > TOMB && tab[i].state == FINISHED;
  if (!n) {
    dc_unlock(&lock);
    return;
  }
  uint32_t *serial = dc_alloc(n * sizeof *serial);
  uint64_t *key = dc_alloc(n * sizeof *key);
  n = 0;
  for (uint32_t i = 0; i < cap; i++)
    if (tab[i].key > TOMB && tab[i].state == FINISHED) serial[n++] = tab[i].serial;
  dc_unlock(&lock);
  /* oldest first, as they were created */
  for (uint32_t i = 1; i < n; i++)
    for (uint32_t j = i; j > 0 && serial[j - 1] > serial[j]; j--) {
      uint32_t s = serial[j];
      serial[j] = serial[j - 1];
      serial[j - 1] = s;
    }
  for (uint32_t i = 0; i < n; i++) key[i] = creation_key(serial[i]);
  for (uint32_t i = 0; i < n; i++) {
    if (!serial[i]) continue; /* counted in an earlier group */
    uint32_t similar = 0;
    for (uint32_t j = i + 1; j < n; j++)
      if (serial[j] && key[j] == key[i]) similar++, serial[j] = 0;
    rd_report_leak(serial[i], similar);
  }
  dc_free(serial, n * sizeof *serial);
  dc_free(key, n * sizeof *key);
}

__attribute__((constructor)) static void leak_locks(void) {
  dc_atfork_register(DC_RANK_LEAKS, &lock, 1, 0);
}
