/* thread.c: per-thread state, thread-creation ancestry, and the interceptors
 * that keep the frame stack honest (longjmp, C++ catch).
 *
 * Ancestry: pthread_create captures the creator's context (in O(1)) and gives
 * the new thread a serial; the child's record keeps {parent, context}, so
 * decoding a thread's context can continue through its creator's, up to the
 * first thread.  Records are never freed: contexts outlive their threads. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <string.h>
#include <threads.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "internal.h"
#include "../racedet/racedet.h"

static DC_TLS uint32_t pending_serial; /* serial+1 handed over by the start trampoline */
dc_vec dc_threads;
static pthread_key_t exit_key;
static _Atomic int exit_key_state; /* 0 none, 1 being made, 2 made */

#define FRAME_RESERVE ((size_t)1 << 20) /* frames; grows by mremap past this */

/* The frame stack is mapped with one frame more, below frames[0]: a
 * sentinel whose stack pointer is above every other, so that the call
 * hook's test for dead frames needs no test for an empty stack (it reads
 * frames[-1] then, and finds it alive), nor the return hook's (E + 1 wraps
 * to 0 there: the slow path).  Above the last frame is a page
 * that faults: the call hook's fast path does not check the stack's size
 * (the slow path makes room ahead, encoder.c, sample()), and a mistake in
 * that would write over whatever is mapped next. */
#define FRAME_GUARD ((size_t)4096)
static dc_frame *frames_map(size_t n) {
  char *base = dc_mmap(n * sizeof(dc_frame) + FRAME_GUARD);
  if (dc_sys_mprotect(base + n * sizeof(dc_frame), FRAME_GUARD, PROT_NONE))
    dc_die("dacce: mprotect of the frame stack's guard page failed\n");
  ((dc_frame *)base)->sp = UINTPTR_MAX;
  return (dc_frame *)base + 1;
}

extern void *__libc_stack_end;

uint32_t dc_thread_new_serial(const dacce_ctx *creator) {
  uint32_t s = atomic_fetch_add(&dc_threads.n, 1);
  if (s >= DC_MAX_THREADS) dc_die("dacce: more than %u threads created\n", DC_MAX_THREADS);
  dc_thread_rec *r = dc_vec_at(&dc_threads, s);
  if (creator) {
    r->created_at = *creator;
    r->parent = creator->thread;
    r->has_creator = 1;
  } else {
    r->parent = UINT32_MAX;
  }
  return s;
}

static void stack_bounds(dc_thread *t, int is_main) {
  if (is_main) {
    struct rlimit rl;
    uintptr_t hi = ((uintptr_t)__libc_stack_end + 0xffff) & ~(uintptr_t)0xffff;
    size_t size = (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
                      ? rl.rlim_cur : ((size_t)1 << 30);
    t->stack_hi = hi + 4096 * 16; /* argv/env/auxv sit above __libc_stack_end */
    t->stack_lo = hi - size;
    return;
  }
  pthread_attr_t a;
  void *addr;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &a) == 0) {
    if (pthread_attr_getstack(&a, &addr, &size) == 0) {
      t->stack_lo = (uintptr_t)addr;
      t->stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&a);
  }
  if (!t->stack_hi) t->stack_hi = UINTPTR_MAX; /* unknown: trust every sp */
}

/* The calling thread's static TLS: the blocks of the modules loaded at
 * start (and the surplus for later ones) lie just below the thread pointer
 * on x86-64, their total size as ld.so reports it (_dl_get_tls_static_info,
 * which sanitizers use too; a GLIBC_PRIVATE symbol, so looked up, and when
 * it is missing there are no TLS locations).  Reports name an address
 * there "TLS of thread T". */
static void tls_bounds(dc_thread *t) {
  static void (*info)(size_t *, size_t *);
  static _Atomic int looked;
  if (!atomic_exchange(&looked, 1))
    info = (void (*)(size_t *, size_t *))dlsym(RTLD_DEFAULT, "_dl_get_tls_static_info");
  if (!info) return;
  size_t size = 0, align = 0;
  info(&size, &align);
  const uintptr_t tp = (uintptr_t)__builtin_thread_pointer();
  /* That size counts the thread control block too, which lies above the
   * thread pointer (at the top of a thread's stack block): without taking
   * it off, the top 2 KiB of a thread's stack were named its TLS.  Main's
   * block is ld.so's, of unknown layout: its size is taken whole. */
  if (tp > t->stack_lo && tp < t->stack_hi && t->stack_hi != UINTPTR_MAX)
    size = size > t->stack_hi - tp ? size - (t->stack_hi - tp) : 0;
  if (!tp || size > tp) return;
  t->tls_lo = tp - size;
  t->tls_hi = tp;
}

/* Thread states are recycled, never unmapped, so another thread may always
 * write a pending bit into one it read from a record. */
static dc_thread *free_states;
static _Atomic int free_lock;

/* Zero a state for reuse: the pages the last thread touched (resident)
 * with stores, the others (never touched, or swapped out) by giving them
 * back.  Until 2026-12-01 every page was given back: its caches are large
 * and mostly cold (82 pages), but each page that the next thread touched
 * again was a fault, 18-33 a thread against clang TSan's 5-6, and a
 * program that makes a thread per std::promise spent most of its time in
 * them (tests/racedet/thread_reuse_faults.c).  The pages stay as resident
 * as they were while their thread ran. */
static void state_zero(dc_thread *t) {
  enum { PAGES = (sizeof(dc_thread) + 4095) / 4096 };
  unsigned char res[PAGES];
  if (mincore(t, PAGES * 4096ul, res)) {
    if (madvise(t, sizeof *t, MADV_DONTNEED)) dc_memset(t, 0, sizeof *t);
    return;
  }
  char *const base = (char *)t;
  for (size_t p = 0; p < PAGES;) {
    size_t q = p;
    const int there = res[p] & 1;
    while (q < PAGES && (res[q] & 1) == there) q++;
    const size_t lo = p * 4096, hi = q * 4096 < sizeof *t ? q * 4096 : sizeof *t;
    if (there || madvise(base + lo, q * 4096 - lo, MADV_DONTNEED)) dc_memset(base + lo, 0, hi - lo);
    p = q;
  }
}

static dc_thread *state_alloc(void) {
  dc_thread *t = 0;
  dc_lock(&free_lock);
  if (free_states) {
    t = free_states;
    free_states = t->next_free;
  }
  dc_unlock(&free_lock);
  if (!t) {
    t = dc_mmap(sizeof(dc_thread));
    t->cap = FRAME_RESERVE - 1;
    t->frames = t->top = frames_map(FRAME_RESERVE);
    t->limit = t->frames + t->cap;
    return t;
  }
  /* The frame stack stays mapped with it: a thread that ends and one that
   * starts need no munmap and mmap, whose TLB shootdowns were a third of
   * the time of a program that runs many short threads */
  dc_frame *frames = t->frames;
  uint32_t cap = t->cap;
  state_zero(t);
  t->frames = t->top = frames;
  t->cap = cap;
  t->limit = frames + cap;
  return t;
}

uint32_t dc_thread_of_ktid(int ktid) {
  uint32_t n = atomic_load_explicit(&dc_threads.n, memory_order_acquire);
  for (uint32_t i = 0; i < n; i++) {
    const dc_thread_rec *r = dc_vec_at(&dc_threads, i);
    if (r->ktid == ktid && __atomic_load_n(&r->live, __ATOMIC_ACQUIRE)) return i;
  }
  return UINT32_MAX;
}

void dc_threads_flag(uint32_t bits) {
  uint32_t n = atomic_load_explicit(&dc_threads.n, memory_order_acquire);
  for (uint32_t i = 0; i < n; i++) {
    dc_thread *t = __atomic_load_n(&((dc_thread_rec *)dc_vec_at(&dc_threads, i))->live,
                                   __ATOMIC_ACQUIRE);
    if (t) atomic_fetch_or_explicit(&t->pending, bits, memory_order_relaxed);
  }
}

/* The calling thread leaves state from for state to (fibers, below). */
static void state_switch(dc_thread *from, dc_thread *to, unsigned flags);

static void on_thread_exit(void *p) {
  dc_thread *t = p;
  /* The program's own thread-specific-data destructors run in the same
   * rounds as this one, in the order their keys were made, and ours was
   * made when the first thread started: nearly always first.  What they
   * do is the thread's too, and must come before its end: libstdc++'s
   * std::notify_all_at_thread_exit unlocks its mutex in such a destructor,
   * and that unlock, made after our end, ordered nothing (a false race
   * between the thread's last writes and the waiter's reads).  So the end
   * waits for the last round, the key set again in each one before it, as
   * ThreadSanitizer's does; a destructor that sets its own key again
   * until then still runs after it (dc_dead_thread). */
  if (++t->exit_rounds < PTHREAD_DESTRUCTOR_ITERATIONS) {
    pthread_setspecific(exit_key, t); /* (made: this is its destructor) */
    return;
  }
  /* A thread that ends in a fiber switches back to itself first, with
   * synchronisation: what it did in the fiber comes before its end too. */
  if (dc_tls != t && dc_tls != &dc_dead_thread && dc_tls != &dc_unborn_thread)
    state_switch(dc_tls, t, 0);
  /* the end of a thread happens before pthread_join returns */
  rd_thread_ended(t->serial);
  rd_thread_finish(t);
  dc_stats_add_thread(t);
  dc_tls = &dc_dead_thread;
  dc_thread_destroy(t);
}

/* The key whose destructor ends a thread (on_thread_exit), made once.  A
 * thread that set the key before it was made (two first threads starting at
 * once) would never run its end, and its join would order nothing: a false
 * race on everything it wrote (seen about once in 300 runs of a program that
 * starts 8 threads and joins them).  So every thread waits until it exists. */
static pthread_key_t exit_key_made(void) {
  int s = 0;
  if (atomic_compare_exchange_strong_explicit(&exit_key_state, &s, 1, memory_order_acquire,
                                              memory_order_acquire)) {
    if (pthread_key_create(&exit_key, on_thread_exit))
      dc_die("dacce: no thread-specific key left for the thread exit hook\n");
    atomic_store_explicit(&exit_key_state, 2, memory_order_release);
  }
  while (atomic_load_explicit(&exit_key_state, memory_order_acquire) != 2) sched_yield();
  return exit_key;
}

/* A new state t, of the calling thread (current) or of a fiber, with its
 * serial, stack and TLS bounds set: its clock and slot, the dictionary,
 * the root context, then visible to the re-encoder's flags. */
static void state_start(dc_thread *t, int current) {
  rd_thread_start(t);
  t->dict = atomic_load(&dc_cur_dict);
  t->node = DC_ROOT;
  t->verify_countdown = dc_opt.verify ? (uint64_t)dc_opt.verify : 1;
  if (dc_opt.verify) atomic_store(&t->pending, DC_PENDING_VERIFY);
  if (dc_capture_mode != DC_CAPTURE_DACCE) atomic_fetch_or(&t->pending, DC_PENDING_CAPTURE);
  dc_thread_rec *rec = dc_vec_at(&dc_threads, t->serial);
  if (current) dc_tls = t, rec->ktid = gettid();
  __atomic_store_n(&rec->live, t, __ATOMIC_RELEASE);
  /* a dictionary published before the record was visible: check now */
  if (t->dict != atomic_load(&dc_cur_dict)) atomic_fetch_or(&t->pending, DC_PENDING_MIGRATE);
}

/* Set while the calling thread makes its state.  A program with an
 * allocator of its own (the runtime's malloc family is weak,
 * racedet/intercept_heap.c) is called from here: pthread_getattr_np
 * (stack_bounds) and pthread_setspecific allocate through the program's
 * malloc, which is instrumented, and its calls, returns, accesses and
 * atomics come back to dc_cur() before the state exists.  They get
 * dc_unborn_thread, which ignores them, as it does the events of every
 * thread before its state is made.  Without the flag the thread made its
 * state again from inside pthread_getattr_np, and waited for the lock that
 * its first call held (tests/racedet/own_malloc.c; before the re-encoder
 * stopped calling qsort, the first thread waited for its own dc_init). */
static DC_TLS int making;

static dc_thread *make_current(void);
dc_thread *dc_thread_init_current(void) {
  if (dc_tls == &dc_dead_thread) return &dc_dead_thread;
  if (making) return &dc_unborn_thread;
  making = 1;
  dc_thread *t = make_current();
  making = 0;
  return t;
}

static dc_thread *make_current(void) {
  dc_init();
  dc_thread *t = state_alloc();
  int is_main = 0;
  if (pending_serial) {
    t->serial = pending_serial - 1;
  } else {
    /* main thread, or one created behind our back (raw clone) */
    static _Atomic int main_taken;
    is_main = !atomic_exchange(&main_taken, 1);
    t->serial = dc_thread_new_serial(0);
  }
  stack_bounds(t, is_main);
  tls_bounds(t);
  /* glibc caches the stacks (and static TLS) of finished threads and hands
   * them to new ones: the new thread starts with no history there */
  if (!is_main && t->stack_hi != UINTPTR_MAX) sh_forget(t->stack_lo, t->stack_hi - t->stack_lo);
  state_start(t, 1);
  /* the first thread makes the key before it can create another */
  pthread_key_t key = exit_key_made();
  if (!is_main) {
    pthread_setspecific(key, t);
    rd_thread_named((uintptr_t)pthread_self(), t->serial);
  }
  return t;
}

void dc_thread_set_name(uint32_t serial, const char *name) {
  if (serial == UINT32_MAX || !name) return;
  dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
  size_t i = 0;
  for (; name[i] && i + 1 < sizeof rec->name; i++) rec->name[i] = name[i];
  rec->name[i] = 0;
}

void dc_thread_grow(dc_thread *t) {
  /* with the sentinel and the guard page (frames_map); the guard is made
   * writable first, so that the mapping is one region that mremap can move */
  char *base = (char *)(t->frames - 1);
  size_t old = ((size_t)t->cap + 1) * sizeof(dc_frame);
  char *p = base;
  if (dc_sys_mprotect(base + old, FRAME_GUARD, PROT_READ | PROT_WRITE) ||
      (p = dc_sys_mremap(base, old + FRAME_GUARD, 2 * old + FRAME_GUARD, MREMAP_MAYMOVE, 0)) ==
          MAP_FAILED ||
      dc_sys_mprotect(p + 2 * old, FRAME_GUARD, PROT_NONE))
    dc_die("dacce: frame stack of %u frames cannot grow\n", t->cap);
  const uint32_t depth = dc_depth(t);
  t->frames = (dc_frame *)p + 1;
  t->top = t->frames + depth;
  t->cap = (uint32_t)(2 * old / sizeof(dc_frame) - 1);
  t->limit = t->frames + t->cap;
}

void dc_thread_destroy(dc_thread *t) {
  dc_alloc_thread_end(t); /* (its state is zeroed when it is made again) */
  __atomic_store_n(&((dc_thread_rec *)dc_vec_at(&dc_threads, t->serial))->live, 0,
                   __ATOMIC_RELEASE);
  dc_lock(&free_lock);
  t->next_free = free_states;
  free_states = t;
  dc_unlock(&free_lock);
}

/* ------------------------------------------------------------ pthread_create */
/* Is there a call instruction ending at ra: call rel32 (e8), or an indirect
 * call (ff /2) through a register or memory, 2 to 7 bytes long? */
int dc_after_call(uintptr_t ra) {
  const unsigned char *p = (const unsigned char *)ra;
  if (p[-5] == 0xe8) return 1;
  for (int n = 2; n <= 7; n++)
    if (p[-n] == 0xff && ((p[-n + 1] >> 3) & 7) == 2) return 1;
  return 0;
}

/* Just below the innermost frame's sp (the function's stack pointer when it
 * called the entry hook) lies the return address of the call it is in now:
 * the first word under it that returns into the function (the same symbol
 * as its node's pc, right after a call instruction).  Only words within a
 * megabyte of that pc are looked up, within 64 KiB of stack.
 * std::thread's constructor calls libstdc++'s _M_start_thread, which calls
 * pthread_create: without this the creator's frame showed the line of its
 * function's entry (shapes.cc:59 for a thread made at line 70). */
uintptr_t dc_call_into(const dc_thread *t, uintptr_t pc) {
  if (dc_capture_mode != DC_CAPTURE_DACCE || !dc_depth(t)) return 0;
  dc_materialize((dc_thread *)t);
  const uintptr_t fn = dc_node_at(t->node)->pc;
  const char *name = dc_symtab_name(fn, 0), *at = dc_symtab_name(pc, 0);
  if (!name || (at && dc_streq(at, name))) return 0;
  const uintptr_t *w;
  for (size_t n = dc_words_under_frame(t, __builtin_frame_address(0), &w); n--;) {
    const uintptr_t ra = *--w;
    if (ra - fn + (1u << 20) >= 2u << 20) continue;
    /* (the symbol first: then the bytes before ra are mapped code) */
    const char *s = dc_symtab_name(ra, 0);
    if (s && dc_streq(s, name) && dc_after_call(ra)) return ra - 1;
  }
  return 0;
}

/* The identity of a thread about to be created by the caller at call_pc:
 * a serial whose record holds the creator's context (ancestry) and clock
 * (everything the creator did so far happens before the new thread). */
static uint32_t new_child(uintptr_t call_pc) {
  dc_thread *self = dc_cur();
  dacce_ctx c;
  /* a creator past its end (a program's thread-specific-data destructor
   * that runs after the runtime's) has no context left: no creator known */
  const int dead = self == &dc_dead_thread;
  if (!dead) dc_capture(self, &c);
  uint32_t serial = dc_thread_new_serial(dead ? 0 : &c);
  dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
  rec->created_pc = call_pc;
  const uintptr_t via = dead ? 0 : dc_call_into(self, call_pc);
  rec->created_via = via ? (intptr_t)(via - dc_node_at(c.node)->pc) : 0;
  if (!self->rd.disabled) {
    rd_floor_created(&rec->start_vc, &self->rd.vc);
    rd_tick(&self->rd);
  }
  return serial;
}

typedef struct start_arg {
  void *(*fn)(void *);
  void *arg;
  uint32_t serial;
  sigset_t mask; /* the creator's signal mask, the thread's own once it has a state */
} start_arg;

static void *thread_start(void *p) {
  start_arg a;
  a = *(start_arg *)p;
  dc_free(p, sizeof a);
  pending_serial = a.serial + 1;
  dc_thread_init_current();
  pthread_sigmask(SIG_SETMASK, &a.mask, 0);
  return a.fn(a.arg);
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

/* pthread_create and thrd_create: the thread, created by the caller at
 * call_pc */
static int create_thread(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                         void *arg, uintptr_t call_pc) {
  static pthread_create_fn real;
  if (!real) real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
  if (!real) dc_die("dacce: cannot find the real pthread_create\n");
  start_arg *a = dc_alloc(sizeof *a); /* not a page of its own: no munmap, no TLB shootdown */
  a->fn = fn;
  a->arg = arg;
  a->serial = new_child(call_pc);
  /* The thread starts with every signal blocked and takes its creator's
   * mask once it has a state: a signal sent to it at once (pthread_kill,
   * pthread_sigqueue right after pthread_create) would otherwise run its
   * handler before, and the handler's first event would make the thread an
   * anonymous state with no creator and no clock from it (seen: a false
   * race after pthread_join, tests/racedet/signal_semantics.c). */
  sigset_t all, mine;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &mine);
  a->mask = mine;
  const uint32_t serial = a->serial;
  int r = real(th, attr, thread_start, a); /* a is the new thread's from here on */
  pthread_sigmask(SIG_SETMASK, &mine, 0);
  int detach_state;
  if (r) {
    dc_free(a, sizeof *a);
    dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
    if (rec->start_vc.c) rd_floor_forget(&rec->start_vc); /* never to start */
    return r;
  }
  rd_thread_named((uintptr_t)*th, serial);
  if (attr && !pthread_attr_getdetachstate(attr, &detach_state) &&
      detach_state == PTHREAD_CREATE_DETACHED)
    rd_thread_detached(serial); /* never joined, not a leak */
  return r;
}

DC_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                             void *arg) {
  return create_thread(th, attr, fn, arg, (uintptr_t)__builtin_return_address(0) - 1);
}

/* C11's thrd_create: glibc's calls its internal pthread_create, out of our
 * sight (the thread had no creator, no clock from it: false races on all
 * it was given).  The thread runs fn, its int result carried as glibc's
 * own C11 threads carry it (thrd_join reads it back: intercept_pthread.c);
 * results mapped as glibc maps them. */
typedef struct c11_start {
  int (*fn)(void *);
  void *arg;
} c11_start;
static void *c11_run(void *p) {
  const c11_start s = *(c11_start *)p;
  dc_free(p, sizeof s);
  return (void *)(intptr_t)s.fn(s.arg);
}
DC_EXPORT int thrd_create(thrd_t *th, thrd_start_t fn, void *arg) {
  c11_start *s = dc_alloc(sizeof *s);
  s->fn = fn;
  s->arg = arg;
  const int r = create_thread((pthread_t *)th, 0, c11_run, s,
                              (uintptr_t)__builtin_return_address(0) - 1);
  if (r) dc_free(s, sizeof *s);
  return r == 0 ? thrd_success : r == ENOMEM ? thrd_nomem : thrd_error;
}

/* ------------------------------------------------------------ fibers */
/* ThreadSanitizer's fiber interface (sanitizer/tsan_interface.h), which
 * coroutine libraries call around their context switches (QEMU's
 * coroutines, Boost.Context, folly): a fiber is a state of its own, like a
 * thread's (calling context and frame stack, clock and slot, caches), which
 * the thread that switches to it runs until it switches away.  Its creator
 * is the thread or fiber that made it, at that call, as for pthread_create
 * (ancestry, and everything the creator did before happens before the
 * fiber).  A switch is a release by the fiber left and an acquire by the
 * one entered, on an object keyed by the latter, unless the flag says no
 * synchronisation (__tsan_switch_to_fiber_no_sync): then it only ends the
 * epoch of the fiber left (not a release: nobody's clock takes it), so that
 * a later occupant of its slot, after __tsan_destroy_fiber, starts past
 * every epoch the fiber recorded accesses in.  A fiber's stack is unknown
 * (a coroutine library allocates it): every stack pointer counts as its
 * own (resynchronisation after longjmp and exceptions), and no address is
 * named its stack in reports.  A fiber never ended by a thread's end, nor
 * joined, is no leak. */
#define FIBER_NO_SYNC 1u

DC_EXPORT void *__tsan_get_current_fiber(void) { return dc_cur(); }

DC_EXPORT void *__tsan_create_fiber(unsigned flags) {
  (void)flags;
  dc_cur(); /* the creator has a state (the runtime is initialised) */
  const uint32_t serial = new_child((uintptr_t)__builtin_return_address(0) - 1);
  dc_thread *f = state_alloc();
  f->serial = serial;
  f->stack_lo = 0;
  f->stack_hi = UINTPTR_MAX;
  state_start(f, 0);
  return f;
}

DC_EXPORT void __tsan_destroy_fiber(void *fiber) {
  dc_thread *f = fiber;
  if (!f || f == dc_self()) return; /* the running one: nothing sensible to do */
  rd_thread_finish(f);
  dc_stats_add_thread(f);
  dc_thread_destroy(f);
}

static void state_switch(dc_thread *from, dc_thread *to, unsigned flags) {
  if (flags & FIBER_NO_SYNC) {
    if (!from->rd.disabled) rd_tick(&from->rd);
  } else {
    rd_release((uintptr_t)to);
  }
  dc_tls = to;
  if (!(flags & FIBER_NO_SYNC)) rd_acquire((uintptr_t)to);
}

DC_EXPORT void __tsan_switch_to_fiber(void *fiber, unsigned flags) {
  dc_thread *from = dc_cur(), *to = fiber;
  if (to && to != from && from != &dc_dead_thread) state_switch(from, to, flags);
}

DC_EXPORT void __tsan_set_fiber_name(void *fiber, const char *name) {
  dc_thread *f = fiber;
  if (f) dc_thread_set_name(f->serial, name);
}

/* ------------------------------------------------------------ fork */
/* The child of a multi-threaded process has one thread: every internal lock
 * is taken before the fork and released in both processes (common.c).
 * The child sees a snapshot in which everything every thread did before the
 * fork is complete: its thread acquires all their clocks, and the other
 * threads are gone.
 * The locks are taken by an atfork handler registered before the
 * program's (a constructor of the highest priority), so that glibc runs it
 * after every prepare handler of the program and its release before every
 * parent and child handler: those are the program's code, instrumented,
 * and a handler that ran with our locks held waited for them forever (a
 * handler that locks a mutex, tests/racedet/atfork_handlers.c; before,
 * fork() itself was wrapped, the real fork and all its handlers inside). */
static void after_fork_child(void) {
  rd_sync_fork_child();
  dc_thread *self = dc_self();
  if (!self || self == &dc_dead_thread) return;
  ((dc_thread_rec *)dc_vec_at(&dc_threads, self->serial))->ktid = gettid();
  uint32_t n = atomic_load(&dc_threads.n);
  for (uint32_t i = 0; i < n; i++) {
    dc_thread_rec *r = dc_vec_at(&dc_threads, i);
    dc_thread *t = r->live;
    if (!t || t == self) continue;
    if (!self->rd.disabled && !t->rd.disabled) rd_vc_join(&self->rd.vc, &t->rd.vc);
    r->live = 0;
  }
  rd_thread_ends_forget_all(self->serial);
  rd_floor_fork_child(&self->rd.vc);
}

static void fork_child(void) {
  dc_atfork_release();
  after_fork_child();
}

__attribute__((constructor(101))) static void fork_handlers(void) {
  pthread_atfork(dc_atfork_prepare, dc_atfork_release, fork_child);
}

static _Atomic int free_lock_registered;

__attribute__((constructor)) static void state_locks(void) {
  if (!atomic_exchange(&free_lock_registered, 1))
    dc_atfork_register(DC_RANK_STATES, &free_lock, 1, 0);
}

/* ------------------------------------------------------------ clone */
/* clone() called directly.  Without CLONE_VM the child is a process with a
 * copy of our memory: like fork, every internal lock is held across the
 * call, and the child gets a thread identity of its own whose creator is the
 * caller's context (ancestry) and whose clock covers everything done before
 * (all threads' clocks).  With CLONE_VM the child shares our thread-local
 * state with its parent and cannot be told apart: it is run untracked, with
 * a warning. */
typedef struct clone_arg {
  int (*fn)(void *);
  void *arg;
  uint32_t serial;
} clone_arg;

static int clone_start(void *p) {
  clone_arg a = *(clone_arg *)p;
  dc_atfork_release();
  dc_tls = &dc_unborn_thread;
  pending_serial = a.serial + 1;
  dc_thread_init_current();
  after_fork_child();
  return a.fn(a.arg);
}

DC_EXPORT int clone(int (*fn)(void *), void *stack, int flags, void *arg, ...) {
  static int (*real)(int (*)(void *), void *, int, void *, ...);
  if (!real) real = (int (*)(int (*)(void *), void *, int, void *, ...))dlsym(RTLD_NEXT, "clone");
  if (!real) dc_die("dacce: cannot find the real clone\n");
  va_list ap;
  va_start(ap, arg);
  pid_t *ptid = va_arg(ap, pid_t *);
  void *tls = va_arg(ap, void *);
  pid_t *ctid = va_arg(ap, pid_t *);
  va_end(ap);
  if (flags & CLONE_VM) {
    static _Atomic int warned;
    if (!atomic_exchange(&warned, 1))
      dc_printf("==dacce== warning: clone(CLONE_VM) threads are not tracked (use pthread_create)\n");
    return real(fn, stack, flags, arg, ptid, tls, ctid);
  }
  clone_arg *a = dc_mmap(sizeof *a);
  a->fn = fn;
  a->arg = arg;
  a->serial = new_child((uintptr_t)__builtin_return_address(0) - 1);
  dc_atfork_prepare();
  int r = real(clone_start, stack, flags, a, ptid, tls, ctid);
  dc_atfork_release(); /* the parent's side; the child releases in clone_start */
  dc_munmap(a, sizeof *a);
  return r;
}

/* ------------------------------------------------------------ longjmp */
/* glibc mangles the saved stack pointer: rol(sp ^ guard, 0x11), guard at
 * %fs:0x30.  Undo it to learn where the jump lands. */
static uintptr_t jmpbuf_sp(const void *env) {
  uintptr_t v = ((const uintptr_t *)env)[6], guard;
  __asm__("mov %%fs:0x30, %0" : "=r"(guard));
  v = (v >> 0x11) | (v << (64 - 0x11));
  return v ^ guard;
}

static void before_longjmp(const void *env) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return;
  const uintptr_t sp = jmpbuf_sp(env);
  dc_resync_to(t, sp);
  dc_sig_resync(t, sp, (uintptr_t)__builtin_frame_address(0));
}

#define DC_LONGJMP(name)                                                          \
  DC_EXPORT __attribute__((noreturn)) void name(struct __jmp_buf_tag env[1], int val) { \
    static void (*real)(struct __jmp_buf_tag *, int);                            \
    if (!real) real = (void (*)(struct __jmp_buf_tag *, int))dlsym(RTLD_NEXT, #name); \
    before_longjmp(env);                                                          \
    real(env, val);                                                               \
    __builtin_unreachable();                                                      \
  }
DC_LONGJMP(longjmp)
DC_LONGJMP(_longjmp)
DC_LONGJMP(siglongjmp)
DC_LONGJMP(__longjmp_chk)

/* ------------------------------------------------------------ C++ catch */
/* Reached from the __cxa_begin_catch stub with the catching frame's sp. */
__attribute__((visibility("hidden"))) void *dc_cxa_begin_catch(void *exc, uintptr_t sp) {
  static void *(*real)(void *);
  if (!real) real = (void *(*)(void *))dlsym(RTLD_NEXT, "__cxa_begin_catch");
  dc_thread *t = dc_self();
  if (t && !t->in_runtime) {
    dc_resync_to(t, sp);
    dc_sig_resync(t, sp, (uintptr_t)__builtin_frame_address(0));
  }
  void *obj = real(exc);
  rd_exception_caught(exc, obj);
  return obj;
}
