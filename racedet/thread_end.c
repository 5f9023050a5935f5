/* thread_end.c: what a thread's end means to the other threads.
 * pthread_join orders it before the joiner's next step, pthread_detach
 * waives that, and a thread that ended with neither is a leak, reported at
 * exit as ThreadSanitizer does (a server that forgets to join its workers
 * runs out of memory or thread slots).  Threads still running at exit are
 * not leaks (nothing could have joined them yet).
 *
 * Everything here is keyed by the thread's serial, never by its pthread_t.
 * A pthread_t is the address of the thread's descriptor, at the top of its
 * stack, and glibc hands a joined thread's stack to the next thread created
 * as soon as the real pthread_join returns.  When the end was released into
 * an object keyed by that address, a thread created in that window (by any
 * thread) that ended at once released into the same object, and the first
 * joiner's cleanup of it then threw the new release away: the new thread's
 * joiner acquired nothing, and everything the new thread wrote was a false
 * race (tests/racedet/join_key_reuse.c; seen about once in a few hundred
 * runs of the random programs of tests/gen).  The leak table had the same
 * flaw.  So a join or a detach first finds the serial of its thread, while
 * its pthread_t is still that thread's (before the real call), in a table
 * from pthread_t to serial that both the creator (after pthread_create) and
 * the thread itself (when it starts) fill: whoever learnt the pthread_t did
 * so after one of them.  An entry names the newest thread at its address:
 * serials only grow, and a late insert of an older thread (its creator
 * preempted until after the thread ended and its stack was reused) never
 * replaces a newer one.
 *
 * A thread's end is released into an object keyed by its record's address
 * (runtime memory, unique per serial: nothing frees or reuses it); the join
 * acquires it and drops it, a detach drops it (or tells the end to). */
#include "racedet.h"

enum { FINISHED = 1, DETACHED = 2, JOINED = 4, NOT_OURS = 8 };

static rd_umap ids; /* pthread_t -> a: serial + 1 */
static _Atomic int lock; /* ids and every record's end_state */

static dc_thread_rec *rec_of(uint32_t serial) { return dc_vec_at(&dc_threads, serial); }
static uintptr_t end_key(uint32_t serial) { return (uintptr_t)rec_of(serial); }

void rd_thread_named(uintptr_t th, uint32_t serial) {
  dc_lock(&lock);
  rd_umap_ent *e = rd_umap_find(&ids, th, 1);
  if (e->a < (uint64_t)serial + 1) e->a = (uint64_t)serial + 1;
  dc_unlock(&lock);
}

uint32_t rd_thread_serial_of(uintptr_t th) {
  dc_lock(&lock);
  rd_umap_ent *e = rd_umap_find(&ids, th, 0);
  uint32_t s = e ? (uint32_t)(e->a - 1) : UINT32_MAX;
  dc_unlock(&lock);
  return s;
}

/* Set bits in a record's end state; returns the state before. */
static uint32_t end_state_or(uint32_t serial, uint32_t bits) {
  dc_lock(&lock);
  dc_thread_rec *r = rec_of(serial);
  uint32_t was = r->end_state;
  r->end_state = was | bits;
  dc_unlock(&lock);
  return was;
}

/* The calling thread ends.  Its release comes before FINISHED is set, so a
 * detach that sees FINISHED finds the object to drop, and one that does not
 * is seen here. */
void rd_thread_ended(uint32_t serial) {
  rd_release(end_key(serial));
  if (end_state_or(serial, FINISHED) & DETACHED) rd_sync_forget(end_key(serial), 1);
}

int rd_thread_is_detached(uint32_t serial) {
  dc_lock(&lock);
  int d = (rec_of(serial)->end_state & DETACHED) != 0;
  dc_unlock(&lock);
  return d;
}

void rd_thread_detached(uint32_t serial) {
  if (serial == UINT32_MAX) return;
  if (end_state_or(serial, DETACHED) & FINISHED) rd_sync_forget(end_key(serial), 1);
}

void rd_thread_joined(uintptr_t th, uint32_t serial) {
  if (serial == UINT32_MAX) return;
  rd_acquire(end_key(serial));
  rd_sync_forget(end_key(serial), 1);
  dc_lock(&lock);
  rec_of(serial)->end_state |= JOINED;
  rd_umap_ent *e = rd_umap_find(&ids, th, 0);
  if (e && e->a == (uint64_t)serial + 1) rd_umap_del(&ids, e);
  dc_unlock(&lock);
}

/* a fork child: the tables were copied in a consistent state (fork holds the
 * lock), and none of the parent's other threads is the child's to join */
void rd_thread_ends_forget_all(uint32_t self) {
  uint32_t n = atomic_load_explicit(&dc_threads.n, memory_order_acquire);
  for (uint32_t i = 0; i < n; i++)
    if (i != self) rec_of(i)->end_state |= NOT_OURS;
  rd_umap_clear(&ids);
}

static int leaked(uint32_t serial) {
  /* the main thread (pthread_exit in main): nobody joins it */
  return serial != 0 && (rec_of(serial)->end_state & (FINISHED | DETACHED | JOINED | NOT_OURS)) ==
                            FINISHED;
}

/* One report per creation stack, oldest first, with the number of similar
 * leaks. */
void rd_report_leaks(void) {
  dc_lock(&lock);
  uint32_t total = atomic_load_explicit(&dc_threads.n, memory_order_acquire), n = 0;
  for (uint32_t i = 0; i < total; i++) n += leaked(i);
  if (!n) {
    dc_unlock(&lock);
    return;
  }
  uint32_t *serial = dc_alloc(n * sizeof *serial);
  uint64_t *key = dc_alloc(n * sizeof *key);
  n = 0;
  for (uint32_t i = 0; i < total; i++)
    if (leaked(i)) serial[n++] = i;
  dc_unlock(&lock);
  for (uint32_t i = 0; i < n; i++) key[i] = rd_creation_hash(serial[i]);
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

__attribute__((constructor)) static void end_locks(void) {
  dc_atfork_register(DC_RANK_LEAKS, &lock, 1, 0);
}
