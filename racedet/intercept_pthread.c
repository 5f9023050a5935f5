/* intercept_pthread.c: happens-before from the pthread and POSIX semaphore
 * primitives.  Acquire after the real call succeeds; release before the real
 * call lets another thread in.  pthread_cond_wait is modelled as unlock, wait,
 * lock (glibc relocks the mutex internally, out of our sight).  Thread
 * create/join are in encoder/thread.c (they also carry the ancestry).
 * The objects' own memory is accessed too (rd_object_access): init and
 * destroy write it; lock, unlock, wait and signal read it, before they
 * synchronise, as ThreadSanitizer's interceptors do. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <threads.h>
#include <time.h>
#include <unwind.h>

#include "intercept.h"

#define A(p) ((uintptr_t)(p))
#define RD_TAG_READ 1u /* held[] entry of a read-locked rwlock */

#define OBJ_USE(o) rd_object_access(A(o), RD_OBJ_READ_ATOMIC, PC())
#define OBJ_READ(o) rd_object_access(A(o), RD_OBJ_READ, PC())

/* A lock taken: its memory read (before the acquire: a lock does not order
 * its own mutex's initialisation), then what its holders released (a
 * reader: only writers; with_readers: read-unlockers too, rd_lock_acquired). */
static void taken(uintptr_t m, int ok, int as_reader, int with_readers, uintptr_t pc) {
  if (!ok) return;
  rd_object_access(m, RD_OBJ_READ_ATOMIC, pc);
  rd_lock_acquired(m, as_reader, with_readers, pc);
}
static void locked(uintptr_t m, int ok, uintptr_t pc) { taken(m, ok, 0, 0, pc); }
/* A lock's initialisation: the object's memory written, its creation site. */
static void created(uintptr_t m, uintptr_t pc) {
  rd_object_access(m, RD_OBJ_WRITE, pc);
  rd_lock_created(m, pc);
}
/* Another object's (re)initialisation or any object's destruction: its
 * memory written, its history gone. */
static void reset(uintptr_t o, uintptr_t pc) {
  rd_object_access(o, RD_OBJ_WRITE, pc);
  rd_sync_forget(o, 1);
}
/* A lock about to be dropped: read, release. */
static void unlocking(uintptr_t m, uintptr_t pc) {
  rd_object_access(m, RD_OBJ_READ_ATOMIC, pc);
  rd_release(m);
  rd_mutex_unlocked(m);
}

/* ------------------------------------------------------------ mutex */
/* What a relock by the owner does: returns for a recursive or
 * error-checking mutex, never for a normal or adaptive one (glibc's kind,
 * which C11's mtx_t shares). */
static int relock_of(const pthread_mutex_t *m) {
  const int kind = m->__data.__kind & 3;
  return kind == PTHREAD_MUTEX_RECURSIVE || kind == PTHREAD_MUTEX_ERRORCHECK ? RD_RELOCK_OK
                                                                            : RD_RELOCK_HANGS;
}
DC_EXPORT int pthread_mutex_lock(pthread_mutex_t *m) {
  REAL(int, pthread_mutex_lock, pthread_mutex_t *);
  rd_lock_wanted(A(m), RD_LOCK_MUTEX, 0, relock_of(m), PC());
  int r = real_pthread_mutex_lock(m);
  locked(A(m), r == 0 || r == EOWNERDEAD, PC());
  return r;
}
DC_EXPORT int pthread_mutex_trylock(pthread_mutex_t *m) {
  REAL(int, pthread_mutex_trylock, pthread_mutex_t *);
  int r = real_pthread_mutex_trylock(m);
  locked(A(m), r == 0 || r == EOWNERDEAD, PC());
  return r;
}
DC_EXPORT int pthread_mutex_timedlock(pthread_mutex_t *m, const struct timespec *ts) {
  REAL(int, pthread_mutex_timedlock, pthread_mutex_t *, const struct timespec *);
  int r = real_pthread_mutex_timedlock(m, ts);
  locked(A(m), r == 0 || r == EOWNERDEAD, PC());
  return r;
}
DC_EXPORT int pthread_mutex_clocklock(pthread_mutex_t *m, clockid_t c, const struct timespec *ts) {
  REAL(int, pthread_mutex_clocklock, pthread_mutex_t *, clockid_t, const struct timespec *);
  int r = real_pthread_mutex_clocklock(m, c, ts);
  locked(A(m), r == 0 || r == EOWNERDEAD, PC());
  return r;
}
DC_EXPORT int pthread_mutex_unlock(pthread_mutex_t *m) {
  REAL(int, pthread_mutex_unlock, pthread_mutex_t *);
  rd_unlock_check(A(m), RD_LOCK_MUTEX, PC());
  unlocking(A(m), PC());
  return real_pthread_mutex_unlock(m);
}
DC_EXPORT int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *a) {
  REAL(int, pthread_mutex_init, pthread_mutex_t *, const pthread_mutexattr_t *);
  created(A(m), PC());
  return real_pthread_mutex_init(m, a);
}
DC_EXPORT int pthread_mutex_destroy(pthread_mutex_t *m) {
  REAL(int, pthread_mutex_destroy, pthread_mutex_t *);
  rd_destroy_check(A(m), RD_LOCK_MUTEX, PC());
  reset(A(m), PC());
  return real_pthread_mutex_destroy(m);
}

/* ------------------------------------------------------------ spinlock */
DC_EXPORT int pthread_spin_lock(pthread_spinlock_t *m) {
  REAL(int, pthread_spin_lock, pthread_spinlock_t *);
  rd_lock_wanted(A(m), RD_LOCK_SPIN, 0, RD_RELOCK_HANGS, PC());
  int r = real_pthread_spin_lock(m);
  locked(A(m), r == 0, PC());
  return r;
}
DC_EXPORT int pthread_spin_trylock(pthread_spinlock_t *m) {
  REAL(int, pthread_spin_trylock, pthread_spinlock_t *);
  int r = real_pthread_spin_trylock(m);
  locked(A(m), r == 0, PC());
  return r;
}
DC_EXPORT int pthread_spin_unlock(pthread_spinlock_t *m) {
  REAL(int, pthread_spin_unlock, pthread_spinlock_t *);
  rd_unlock_check(A(m), RD_LOCK_SPIN, PC());
  unlocking(A(m), PC());
  return real_pthread_spin_unlock(m);
}
DC_EXPORT int pthread_spin_init(pthread_spinlock_t *m, int shared) {
  REAL(int, pthread_spin_init, pthread_spinlock_t *, int);
  created(A(m), PC());
  return real_pthread_spin_init(m, shared);
}
DC_EXPORT int pthread_spin_destroy(pthread_spinlock_t *m) {
  REAL(int, pthread_spin_destroy, pthread_spinlock_t *);
  rd_destroy_check(A(m), RD_LOCK_SPIN, PC());
  reset(A(m), PC());
  return real_pthread_spin_destroy(m);
}

/* ------------------------------------------------------------ rwlock */
/* Readers acquire what writers released; writers also acquire what readers
 * released; readers do not synchronise with each other. */
DC_EXPORT int pthread_rwlock_rdlock(pthread_rwlock_t *m) {
  REAL(int, pthread_rwlock_rdlock, pthread_rwlock_t *);
  rd_lock_wanted(A(m), RD_LOCK_RWLOCK, 1, RD_RELOCK_OK, PC());
  int r = real_pthread_rwlock_rdlock(m);
  taken(A(m), r == 0, 1, 0, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_tryrdlock(pthread_rwlock_t *m) {
  REAL(int, pthread_rwlock_tryrdlock, pthread_rwlock_t *);
  int r = real_pthread_rwlock_tryrdlock(m);
  taken(A(m), r == 0, 1, 0, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_timedrdlock(pthread_rwlock_t *m, const struct timespec *ts) {
  REAL(int, pthread_rwlock_timedrdlock, pthread_rwlock_t *, const struct timespec *);
  int r = real_pthread_rwlock_timedrdlock(m, ts);
  taken(A(m), r == 0, 1, 0, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_clockrdlock(pthread_rwlock_t *m, clockid_t c,
                                         const struct timespec *ts) {
  REAL(int, pthread_rwlock_clockrdlock, pthread_rwlock_t *, clockid_t, const struct timespec *);
  int r = real_pthread_rwlock_clockrdlock(m, c, ts);
  taken(A(m), r == 0, 1, 0, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_wrlock(pthread_rwlock_t *m) {
  REAL(int, pthread_rwlock_wrlock, pthread_rwlock_t *);
  rd_lock_wanted(A(m), RD_LOCK_RWLOCK, 0, RD_RELOCK_HANGS_IF_READ, PC());
  int r = real_pthread_rwlock_wrlock(m);
  taken(A(m), r == 0, 0, 1, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_trywrlock(pthread_rwlock_t *m) {
  REAL(int, pthread_rwlock_trywrlock, pthread_rwlock_t *);
  int r = real_pthread_rwlock_trywrlock(m);
  taken(A(m), r == 0, 0, 1, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_timedwrlock(pthread_rwlock_t *m, const struct timespec *ts) {
  REAL(int, pthread_rwlock_timedwrlock, pthread_rwlock_t *, const struct timespec *);
  int r = real_pthread_rwlock_timedwrlock(m, ts);
  taken(A(m), r == 0, 0, 1, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_clockwrlock(pthread_rwlock_t *m, clockid_t c,
                                         const struct timespec *ts) {
  REAL(int, pthread_rwlock_clockwrlock, pthread_rwlock_t *, clockid_t, const struct timespec *);
  int r = real_pthread_rwlock_clockwrlock(m, c, ts);
  taken(A(m), r == 0, 0, 1, PC());
  return r;
}
DC_EXPORT int pthread_rwlock_unlock(pthread_rwlock_t *m) {
  REAL(int, pthread_rwlock_unlock, pthread_rwlock_t *);
  rd_unlock_check(A(m), RD_LOCK_RWLOCK, PC());
  OBJ_USE(m);
  const rd_thread *r = rd_cur();
  const int i = rd_held_find(r, A(m));
  if (i >= 0 && (r->held[i] & RD_TAG_READ)) {
    rd_release_read(A(m));
    rd_mutex_unlocked(A(m) | RD_TAG_READ);
  } else {
    rd_release(A(m));
    rd_mutex_unlocked(A(m));
  }
  return real_pthread_rwlock_unlock(m);
}
DC_EXPORT int pthread_rwlock_init(pthread_rwlock_t *m, const pthread_rwlockattr_t *a) {
  REAL(int, pthread_rwlock_init, pthread_rwlock_t *, const pthread_rwlockattr_t *);
  created(A(m), PC());
  return real_pthread_rwlock_init(m, a);
}
DC_EXPORT int pthread_rwlock_destroy(pthread_rwlock_t *m) {
  REAL(int, pthread_rwlock_destroy, pthread_rwlock_t *);
  rd_destroy_check(A(m), RD_LOCK_RWLOCK, PC());
  reset(A(m), PC());
  return real_pthread_rwlock_destroy(m);
}

/* ------------------------------------------------------------ condition variables */
/* Happens-before comes from the mutex alone, as in ThreadSanitizer: a wait
 * returns with the mutex locked, which orders everything its holders did
 * before they unlocked.  A signal orders nothing by itself: a wait may
 * return spuriously, so data written after the unlock and before the
 * signal races with the waiter (tests/racedet/cond_signal_only.c). */
static void before_wait(pthread_cond_t *c, pthread_mutex_t *m, uintptr_t pc) {
  rd_object_access(A(c), RD_OBJ_READ, pc);
  unlocking(A(m), pc);
}
static void after_wait(pthread_mutex_t *m, uintptr_t pc) { locked(A(m), 1, pc); }
/* A thread cancelled in the wait gets the mutex back inside glibc and
 * unwinds through its cleanup handlers, which run holding it: the lock is
 * modelled on that path too (without it, a handler's accesses under the
 * mutex raced with everyone's: tests/racedet/cancel_wait.c). */
static void relocked_on_cancel(void *m) { locked(A(m), 1, 0); }
#define COND_WAIT(call)                                                           \
  int r;                                                                          \
  const uintptr_t pc = PC();                                                      \
  before_wait(c, m, pc);                                                          \
  pthread_cleanup_push(relocked_on_cancel, m);                                    \
  r = call;                                                                       \
  pthread_cleanup_pop(0);                                                         \
  after_wait(m, pc);                                                              \
  return r
DC_EXPORT int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m) {
  REAL(int, pthread_cond_wait, pthread_cond_t *, pthread_mutex_t *);
  COND_WAIT(real_pthread_cond_wait(c, m));
}
DC_EXPORT int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                     const struct timespec *ts) {
  REAL(int, pthread_cond_timedwait, pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
  COND_WAIT(real_pthread_cond_timedwait(c, m, ts));
}
DC_EXPORT int pthread_cond_clockwait(pthread_cond_t *c, pthread_mutex_t *m, clockid_t clk,
                                     const struct timespec *ts) {
  REAL(int, pthread_cond_clockwait, pthread_cond_t *, pthread_mutex_t *, clockid_t,
       const struct timespec *);
  COND_WAIT(real_pthread_cond_clockwait(c, m, clk, ts));
}
DC_EXPORT int pthread_cond_signal(pthread_cond_t *c) {
  REAL(int, pthread_cond_signal, pthread_cond_t *);
  OBJ_READ(c);
  return real_pthread_cond_signal(c);
}
DC_EXPORT int pthread_cond_broadcast(pthread_cond_t *c) {
  REAL(int, pthread_cond_broadcast, pthread_cond_t *);
  OBJ_READ(c);
  return real_pthread_cond_broadcast(c);
}
DC_EXPORT int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *a) {
  REAL(int, pthread_cond_init, pthread_cond_t *, const pthread_condattr_t *);
  reset(A(c), PC());
  return real_pthread_cond_init(c, a);
}
DC_EXPORT int pthread_cond_destroy(pthread_cond_t *c) {
  REAL(int, pthread_cond_destroy, pthread_cond_t *);
  reset(A(c), PC());
  return real_pthread_cond_destroy(c);
}

/* ------------------------------------------------------------ barrier */
/* Every arrival releases before it blocks, so each departure acquires all.
 * The barrier's memory is read on the way in and again on the way out,
 * before the acquire: a thread that destroys the barrier as soon as its own
 * wait returns races with another that has not left it yet. */
DC_EXPORT int pthread_barrier_init(pthread_barrier_t *b, const pthread_barrierattr_t *a,
                                   unsigned n) {
  REAL(int, pthread_barrier_init, pthread_barrier_t *, const pthread_barrierattr_t *, unsigned);
  reset(A(b), PC());
  return real_pthread_barrier_init(b, a, n);
}
DC_EXPORT int pthread_barrier_wait(pthread_barrier_t *b) {
  REAL(int, pthread_barrier_wait, pthread_barrier_t *);
  OBJ_READ(b);
  rd_release(A(b));
  int r = real_pthread_barrier_wait(b);
  OBJ_READ(b);
  rd_acquire(A(b));
  return r;
}
DC_EXPORT int pthread_barrier_destroy(pthread_barrier_t *b) {
  REAL(int, pthread_barrier_destroy, pthread_barrier_t *);
  reset(A(b), PC());
  return real_pthread_barrier_destroy(b);
}

/* ------------------------------------------------------------ once */
/* The thread that runs the initialiser releases when it is done; every
 * caller acquires on the way out.  Nested once calls keep a small stack. */
static DC_TLS void (*once_fn[8])(void);
static DC_TLS pthread_once_t *once_obj[8];
static DC_TLS int once_depth;
static void once_trampoline(void) {
  int d = once_depth - 1;
  once_fn[d]();
  rd_release(A(once_obj[d]));
}
DC_EXPORT int pthread_once(pthread_once_t *o, void (*fn)(void)) {
  REAL(int, pthread_once, pthread_once_t *, void (*)(void));
  if (once_depth >= 8) return real_pthread_once(o, fn);
  once_fn[once_depth] = fn;
  once_obj[once_depth] = o;
  once_depth++;
  int r = real_pthread_once(o, once_trampoline);
  once_depth--;
  rd_acquire(A(o));
  return r;
}

/* ------------------------------------------------------------ C++ statics
 * A function-local static's initialisation (the Itanium C++ ABI's guards,
 * libstdc++'s guard.cc): the compiler checks the guard inline with an
 * acquire load, which the instrumentation hands us (__tsan_atomic8_load),
 * but the store that publishes it is __cxa_guard_release's, in the
 * uninstrumented C++ runtime, and a thread that finds initialisation under
 * way waits inside __cxa_guard_acquire on a futex.  Neither ordered
 * anything: every thread's first use of a Meyers singleton raced with its
 * constructor (tests/racedet/static_local_init.cc).  So the release is
 * ours too, on the guard's address, where both the inline load and an
 * acquire that returns 0 (initialised meanwhile by another thread) take it,
 * as ThreadSanitizer does. */
DC_EXPORT int __cxa_guard_acquire(uint64_t *g) {
  REAL(int, __cxa_guard_acquire, uint64_t *);
  const int r = real___cxa_guard_acquire(g);
  if (!r) rd_acquire(A(g));
  return r;
}
DC_EXPORT void __cxa_guard_release(uint64_t *g) {
  REAL(void, __cxa_guard_release, uint64_t *);
  rd_release(A(g));
  real___cxa_guard_release(g);
}

/* ------------------------------------------------------------ C++ exceptions
 * The C++ runtime (libsupc++, not instrumented) counts the references to
 * an exception object: a handler that ends (__cxa_end_catch) and a
 * std::exception_ptr that lets go (_M_release) each take one away, and the
 * last one frees the object.  Its atomics are not seen, so the thread that
 * freed the object raced with another thread's handler that had read it:
 * libstdc++'s testsuite 30_threads/packaged_task/forced_unwind.cc, where
 * main catches the broken promise's future_error and reads it, and the
 * worker's packaged_task drops the last reference later (one run in two
 * under load).  So each of the two is an acquire and a release on the
 * object, as a reference count's decrement is: a handler's object is the
 * one its exception's header names (exception_object; a per-thread stack
 * of the handlers running), an exception_ptr's the one it holds.  (It was
 * the pointer __cxa_begin_catch returns, which for a handler that catches
 * by a base class other than the object's first one points into the
 * object: tests/racedet/exception_base_refcount.cc.) */
static void exception_unref(uintptr_t obj) {
  if (!obj) return;
  rd_acquire(obj);
  rd_release(obj);
}

/* The thrown object of the exception whose unwind header is ue, as the
 * Itanium C++ ABI lays out GNU C++ exceptions: a primary exception's
 * object follows its header; a dependent one (std::rethrow_exception's)
 * names its primary object in its first field, the header being its last.
 * Another runtime's exception (libc++'s, a foreign one): the pointer the
 * handler got. */
typedef struct gnu_dependent_exception {
  void *primary;
  void *pad, *unexpected, *terminate, *next;
  int handlers, switch_value;
  const void *action, *lsda;
  uintptr_t catch_temp;
  void *adjusted;
  struct _Unwind_Exception header;
} gnu_dependent_exception;
_Static_assert(sizeof(gnu_dependent_exception) == 112, "libstdc++'s x86-64 layout");
#define GNU_CXX_CLASS 0x474e5543432b2b00ull /* "GNUCC++\0", big-endian */
static uintptr_t exception_object(const struct _Unwind_Exception *ue, void *handed) {
  if (ue->exception_class == GNU_CXX_CLASS) return (uintptr_t)(ue + 1);
  if (ue->exception_class == (GNU_CXX_CLASS | 1)) {
    const char *dep = (const char *)(ue + 1) - sizeof(gnu_dependent_exception);
    return (uintptr_t)((const gnu_dependent_exception *)(const void *)dep)->primary;
  }
  return (uintptr_t)handed;
}
void rd_exception_caught(void *ue, void *obj) { /* (encoder/thread.c's __cxa_begin_catch) */
  dc_thread *t = dc_guard_owner(); /* (not the dead threads' one state) */
  if (!t) return;
  if (t->rd.ncaught < 8) t->rd.caught[t->rd.ncaught] = exception_object(ue, obj);
  t->rd.ncaught++;
}
DC_EXPORT void __cxa_end_catch(void) {
  REAL(void, __cxa_end_catch, void);
  dc_thread *t = dc_guard_owner();
  if (t && t->rd.ncaught && --t->rd.ncaught < 8) exception_unref(t->rd.caught[t->rd.ncaught]);
  real___cxa_end_catch();
}
/* std::__exception_ptr::exception_ptr::_M_release() */
DC_EXPORT void _ZNSt15__exception_ptr13exception_ptr10_M_releaseEv(void **self) {
  REAL(void, _ZNSt15__exception_ptr13exception_ptr10_M_releaseEv, void **);
  exception_unref(A(*self));
  real__ZNSt15__exception_ptr13exception_ptr10_M_releaseEv(self);
}

/* ------------------------------------------------------------ semaphores */
DC_EXPORT int sem_post(sem_t *s) {
  REAL(int, sem_post, sem_t *);
  rd_release(A(s));
  return real_sem_post(s);
}
DC_EXPORT int sem_wait(sem_t *s) {
  REAL(int, sem_wait, sem_t *);
  int r = real_sem_wait(s);
  if (r == 0) rd_acquire(A(s));
  return r;
}
DC_EXPORT int sem_trywait(sem_t *s) {
  REAL(int, sem_trywait, sem_t *);
  int r = real_sem_trywait(s);
  if (r == 0) rd_acquire(A(s));
  return r;
}
DC_EXPORT int sem_timedwait(sem_t *s, const struct timespec *ts) {
  REAL(int, sem_timedwait, sem_t *, const struct timespec *);
  int r = real_sem_timedwait(s, ts);
  if (r == 0) rd_acquire(A(s));
  return r;
}
DC_EXPORT int sem_clockwait(sem_t *s, clockid_t c, const struct timespec *ts) {
  REAL(int, sem_clockwait, sem_t *, clockid_t, const struct timespec *);
  int r = real_sem_clockwait(s, c, ts);
  if (r == 0) rd_acquire(A(s));
  return r;
}
DC_EXPORT int sem_destroy(sem_t *s) {
  REAL(int, sem_destroy, sem_t *);
  rd_sync_forget(A(s), 1);
  return real_sem_destroy(s);
}

/* ------------------------------------------------------------ join */
/* A join orders the thread's end (thread_end.c), found by its serial
 * before the real join (call may use it): once that returns, glibc may give
 * its pthread_t to a new thread. */
#define JOIN(call)                                                   \
  do {                                                               \
    const uint32_t serial = rd_thread_serial_of(A(th));              \
    int r = (call);                                                  \
    if (r == 0) rd_thread_joined(A(th), serial);                     \
    return r;                                                        \
  } while (0)
/* A blocking join of a live, joinable thread other than the caller cannot
 * fail (two joiners of one thread are undefined behaviour): meanwhile the
 * caller's clock counts for the floor as if it had the joined thread's too
 * (floor.c). */
static int join_blocking(pthread_t th, void **ret, uint32_t serial) {
  REAL(int, pthread_join, pthread_t, void **);
  dc_thread *t = dc_self();
  const int linked = t && !t->rd.disabled && serial != UINT32_MAX &&
                     !pthread_equal(th, pthread_self()) && !rd_thread_is_detached(serial) &&
                     rd_floor_joining(&t->rd.vc, serial);
  int r = real_pthread_join(th, ret);
  if (linked) rd_floor_joining(&t->rd.vc, UINT32_MAX);
  return r;
}
DC_EXPORT int pthread_join(pthread_t th, void **ret) { JOIN(join_blocking(th, ret, serial)); }
DC_EXPORT int pthread_tryjoin_np(pthread_t th, void **ret) {
  REAL(int, pthread_tryjoin_np, pthread_t, void **);
  JOIN(real_pthread_tryjoin_np(th, ret));
}
DC_EXPORT int pthread_timedjoin_np(pthread_t th, void **ret, const struct timespec *ts) {
  REAL(int, pthread_timedjoin_np, pthread_t, void **, const struct timespec *);
  JOIN(real_pthread_timedjoin_np(th, ret, ts));
}
#undef JOIN

/* A detached thread is not a leak (thread_end.c); its end orders nothing. */
DC_EXPORT int pthread_detach(pthread_t th) {
  REAL(int, pthread_detach, pthread_t);
  const uint32_t serial = rd_thread_serial_of(A(th));
  int r = real_pthread_detach(th);
  if (r == 0) rd_thread_detached(serial);
  return r;
}

/* ------------------------------------------------------------ names */
DC_EXPORT int pthread_setname_np(pthread_t th, const char *name) {
  REAL(int, pthread_setname_np, pthread_t, const char *);
  int r = real_pthread_setname_np(th, name);
  if (r == 0 && pthread_equal(th, pthread_self())) dc_thread_set_name(dc_cur()->serial, name);
  return r;
}

/* ------------------------------------------------------------ C11 threads
 * glibc's <threads.h> calls its internal pthread functions, which no
 * interceptor sees: every mtx_lock, cnd_wait and thrd_join ordered nothing
 * (tests/racedet/c11_threads.c).  The same models as the pthread calls', at
 * the C11 call's pc; the real C11 functions for locks and waits (their
 * result codes), our pthread_once and pthread_join for call_once and
 * thrd_join (thrd_create is with pthread_create, encoder/thread.c). */
static int c11_result(int r) {
  return r == 0 ? thrd_success : r == EBUSY ? thrd_busy : r == ETIMEDOUT ? thrd_timedout
                                                                           : thrd_error;
}
DC_EXPORT int mtx_init(mtx_t *m, int type) {
  REAL(int, mtx_init, mtx_t *, int);
  created(A(m), PC());
  return real_mtx_init(m, type);
}
DC_EXPORT void mtx_destroy(mtx_t *m) {
  REAL(void, mtx_destroy, mtx_t *);
  rd_destroy_check(A(m), RD_LOCK_MUTEX, PC());
  reset(A(m), PC());
  real_mtx_destroy(m);
}
DC_EXPORT int mtx_lock(mtx_t *m) {
  REAL(int, mtx_lock, mtx_t *);
  rd_lock_wanted(A(m), RD_LOCK_MUTEX, 0, relock_of((const pthread_mutex_t *)(const void *)m),
                 PC());
  const int r = real_mtx_lock(m);
  locked(A(m), r == thrd_success, PC());
  return r;
}
DC_EXPORT int mtx_trylock(mtx_t *m) {
  REAL(int, mtx_trylock, mtx_t *);
  const int r = real_mtx_trylock(m);
  locked(A(m), r == thrd_success, PC());
  return r;
}
DC_EXPORT int mtx_timedlock(mtx_t *m, const struct timespec *ts) {
  REAL(int, mtx_timedlock, mtx_t *, const struct timespec *);
  const int r = real_mtx_timedlock(m, ts);
  locked(A(m), r == thrd_success, PC());
  return r;
}
DC_EXPORT int mtx_unlock(mtx_t *m) {
  REAL(int, mtx_unlock, mtx_t *);
  rd_unlock_check(A(m), RD_LOCK_MUTEX, PC());
  unlocking(A(m), PC());
  return real_mtx_unlock(m);
}
DC_EXPORT int cnd_init(cnd_t *c) {
  REAL(int, cnd_init, cnd_t *);
  reset(A(c), PC());
  return real_cnd_init(c);
}
DC_EXPORT void cnd_destroy(cnd_t *c) {
  REAL(void, cnd_destroy, cnd_t *);
  reset(A(c), PC());
  real_cnd_destroy(c);
}
DC_EXPORT int cnd_signal(cnd_t *c) {
  REAL(int, cnd_signal, cnd_t *);
  OBJ_READ(c);
  return real_cnd_signal(c);
}
DC_EXPORT int cnd_broadcast(cnd_t *c) {
  REAL(int, cnd_broadcast, cnd_t *);
  OBJ_READ(c);
  return real_cnd_broadcast(c);
}
DC_EXPORT int cnd_wait(cnd_t *cv, mtx_t *mx) {
  REAL(int, cnd_wait, cnd_t *, mtx_t *);
  pthread_cond_t *c = (pthread_cond_t *)cv;
  pthread_mutex_t *m = (pthread_mutex_t *)mx;
  COND_WAIT(real_cnd_wait(cv, mx));
}
DC_EXPORT int cnd_timedwait(cnd_t *cv, mtx_t *mx, const struct timespec *ts) {
  REAL(int, cnd_timedwait, cnd_t *, mtx_t *, const struct timespec *);
  pthread_cond_t *c = (pthread_cond_t *)cv;
  pthread_mutex_t *m = (pthread_mutex_t *)mx;
  COND_WAIT(real_cnd_timedwait(cv, mx, ts));
}
DC_EXPORT void call_once(once_flag *o, void (*fn)(void)) {
  pthread_once((pthread_once_t *)o, fn);
}
DC_EXPORT int thrd_join(thrd_t th, int *res) {
  void *ret;
  const int r = pthread_join((pthread_t)th, &ret);
  if (r == 0 && res) *res = (int)(intptr_t)ret;
  return c11_result(r);
}
DC_EXPORT int thrd_detach(thrd_t th) { return c11_result(pthread_detach((pthread_t)th)); }
