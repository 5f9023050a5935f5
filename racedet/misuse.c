/* misuse.c: mutex misuse, checked against the calling thread's own held
 * set (rd_thread.held[]), which every lock and unlock it makes keeps
 * (sync.c, rd_mutex_locked, whatever the lock's type and whether
 * synchronisation is ignored):
 *  - unlock of a lock the thread does not hold (never locked, unlocked
 *    already, or held by another thread, which the report names when the
 *    lock does: a mutex's owner, an rwlock's writer): undefined for every
 *    pthread and C11 lock, even where glibc checks (an error-checking
 *    mutex's EPERM);
 *  - a lock of a lock the thread holds already, where the call can never
 *    return (a normal or adaptive mutex, a spinlock, an rwlock's write lock
 *    over the thread's own read lock): reported before the program hangs,
 *    with where the thread took it the first time;
 *  - destruction of a lock the thread holds.
 * The held set can be stale: a C++ std::mutex has no destructor call, so a
 * function that returns holding one leaves it in the set, and its memory
 * may hold a new mutex later (libstdc++'s condition_variable_any/members/2.cc
 * does both).  So before a report the lock itself is asked, as glibc keeps
 * it (the object the program passed to the call, valid memory): a mutex's
 * owner thread id, a spinlock's word, an rwlock's readers and writer.  An
 * entry the lock denies is dropped, and nothing is reported.  The thread's
 * held set keeps 16 locks; past that, nothing is checked. */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include "racedet.h"

/* Does the calling thread hold lock m (type RD_LOCK_*; as_reader: a read
 * hold of an rwlock) as the lock itself says?  Unknown types: yes. */
static int holds(uintptr_t m, int type, int as_reader) {
  switch (type) {
    case RD_LOCK_MUTEX:
      return ((const pthread_mutex_t *)m)->__data.__owner == gettid();
    case RD_LOCK_SPIN:
      return *(const volatile int *)m != 0;
    case RD_LOCK_RWLOCK: {
      const pthread_rwlock_t *w = (const pthread_rwlock_t *)m;
      return as_reader ? (w->__data.__readers >> 3) != 0 : w->__data.__cur_writer == gettid();
    }
    default:
      return 1;
  }
}

/* Report misuse `what` of lock m at pc by the calling thread; held: its
 * entry in held[] (where it took m), or -1; holder: another thread that
 * holds m (serial + 1), or 0. */
static DC_NOINLINE void misuse(dc_thread *t, int what, uintptr_t m, uintptr_t pc, int held,
                               uint32_t holder) {
  const rd_thread *r = &t->rd;
  rd_misuse_desc d = {.what = what, .mutex = m, .thread = t->serial, .pc = pc, .holder = holder};
  if (held >= 0) {
    d.held_read = (int)(r->held[held] & 1);
    d.held_ctx = r->held_at[held].ctx;
    d.held_pc = r->held_at[held].pc;
    d.has_held = 1;
  }
  d.ctx = rd_ctx_handle(t);
  rd_report_misuse(&d);
}

/* The calling thread, when its misuse is to be checked. */
static dc_thread *checked(void) {
  if (!dc_opt.report_mutex_bugs) return 0;
  dc_thread *t = dc_guard_owner();
  return t && !t->in_runtime ? t : 0;
}

/* The thread's entry of m, or -1 (none, unknown, or stale: dropped). */
static int held_entry(dc_thread *t, uintptr_t m, int type) {
  const int i = rd_held_index(&t->rd, m);
  if (i < 0) return -1;
  const uintptr_t h = t->rd.held[i];
  if (holds(m, type, (int)(h & 1))) return i;
  rd_mutex_unlocked(h);
  return -1;
}

int rd_relock_check(uintptr_t m, int type, int relock, uintptr_t pc) {
  dc_thread *t = checked();
  if (!t) return 0;
  const int i = held_entry(t, m, type);
  if (i < 0) return 0;
  if (relock == RD_RELOCK_HANGS || (relock == RD_RELOCK_HANGS_IF_READ && (t->rd.held[i] & 1)))
    misuse(t, RD_MISUSE_DOUBLE_LOCK, m, pc, i, 0);
  return 1;
}

/* The thread (serial + 1) that the lock says holds it for writing, other
 * than the calling one; 0 when none or unknown. */
static uint32_t holder(uintptr_t m, int type) {
  const int owner = type == RD_LOCK_MUTEX ? ((const pthread_mutex_t *)m)->__data.__owner
                    : type == RD_LOCK_RWLOCK ? ((const pthread_rwlock_t *)m)->__data.__cur_writer
                                             : 0;
  const uint32_t serial = owner > 0 && owner != gettid() ? dc_thread_of_ktid(owner) : UINT32_MAX;
  return serial + 1; /* (UINT32_MAX + 1: 0) */
}

void rd_unlock_check(uintptr_t m, int type, uintptr_t pc) {
  dc_thread *t = checked();
  if (!t || rd_held_index(&t->rd, m) != -1) return;
  /* (a lock of it this thread made unseen: the lock says it is its own) */
  if (type == RD_LOCK_MUTEX && holds(m, type, 0)) return;
  misuse(t, RD_MISUSE_UNLOCK, m, pc, -1, holder(m, type));
}

void rd_destroy_check(uintptr_t m, int type, uintptr_t pc) {
  dc_thread *t = checked();
  const int i = t ? held_entry(t, m, type) : -1;
  if (i >= 0) misuse(t, RD_MISUSE_DESTROY, m, pc, i, 0);
}
