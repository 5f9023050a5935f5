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
/* pthread_t -> a: the thread's serial (FINISHED), b: FINISHED or DETACHED */
static rd_umap tab;
static _Atomic int lock;

void rd_leak_finished(uintptr_t th, uint32_t serial) {
  if (serial == 0) return; /* the main thread (pthread_exit in main): nobody joins it */
  dc_lock(&lock);
  rd_umap_ent *e = rd_umap_find(&tab, th, 1);
  if (e->b == DETACHED) {
    rd_umap_del(&tab, e);
  } else {
    e->a = serial;
    e->b = FINISHED;
  }
  dc_unlock(&lock);
}

void rd_leak_detached(uintptr_t th) {
  dc_lock(&lock);
  rd_umap_ent *e = rd_umap_find(&tab, th, 1);
  if (e->b == FINISHED)
    rd_umap_del(&tab, e);
  else
    e->b = DETACHED;
  dc_unlock(&lock);
}

void rd_leak_joined(uintptr_t th) {
  dc_lock(&lock);
  rd_umap_ent *e = rd_umap_find(&tab, th, 0);
  if (e) rd_umap_del(&tab, e);
  dc_unlock(&lock);
}

/* a fork child: the table was copied in a consistent state (fork holds the
 * lock), and none of its threads is the child's */
void rd_leaks_forget_all(void) { rd_umap_clear(&tab); }

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
  for (uint32_t i = 0; i < tab.cap; i++) n += rd_umap_live(&tab.e[i]) && tab.e[i].b == FINISHED;
  if (!n) {
    dc_unlock(&lock);
    return;
  }
  uint32_t *serial = dc_alloc(n * sizeof *serial);
  uint64_t *key = dc_alloc(n * sizeof *key);
  n = 0;
  for (uint32_t i = 0; i < tab.cap; i++)
    if (rd_umap_live(&tab.e[i]) && tab.e[i].b == FINISHED) serial[n++] = (uint32_t)tab.e[i].a;
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
