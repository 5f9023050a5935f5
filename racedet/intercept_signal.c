/* intercept_signal.c: signal handlers run outside the runtime.
 *
 * A handler may do anything the program does: touch memory, allocate, take
 * a mutex, and race.  If it ran while its thread was inside the runtime, it
 * could wait for a lock that its own thread holds (a report, a sync object,
 * the heap table) and never return, and the runtime's per-thread state would
 * be changed under the code it interrupted.  So sigaction() and signal()
 * install a trampoline in front of every handler: an asynchronous signal
 * that arrives while the thread holds a runtime lock or is in the runtime
 * (encoder/internal.h: locks_held, in_runtime) is queued in the thread's
 * state and delivered when the thread leaves (dc_unlock, dc_leave), with the
 * handler's signal mask, as the kernel would have.  The signal stays blocked
 * until then (the trampoline adds it to the mask the kernel restores), so
 * further ones wait in the kernel's own queue, in order: a burst of queued
 * realtime signals arrives back to back, all while the thread is still in
 * the runtime.  Its handler is then watched as any other code.  Synchronous
 * signals (a fault in the code that was running, which must not run
 * further) are delivered at once.
 *
 * What a program sees is unchanged: sigaction() returns the handlers and
 * flags it installed, never the trampoline.  Handlers installed before the
 * runtime was loaded, or with the raw system call, are not wrapped.
 *
 * Two bugs of handlers are reported (option report_signal_unsafe, as
 * ThreadSanitizer's): a call of the malloc family or operator new/delete
 * while a handler runs on the thread (intercept_heap.c asks dc_thread's
 * sig_depth), which deadlocks or corrupts the heap when the signal came in
 * the middle of the thread's own malloc; and a handler that returns with
 * errno changed, which the interrupted code may be about to read.  Not for
 * signals the thread caused or asked for itself (a fault, abort, a broken
 * pipe, raise, kill, pthread_kill: errno there is no one else's), nor
 * SIGTERM, whose handlers often re-raise it on the way out, nor when
 * another handler that nested in it changed errno (that one owns it). */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <ucontext.h>

#include "intercept.h"

/* What the program installed for a signal: immutable once published, so
 * the trampoline reads a consistent pair.  Never freed: one record per
 * distinct (handler, flags, mask) of each signal, found again when the
 * program installs the same again (a System V handler installs itself
 * again at every signal: a record each time grew without bound). */
typedef struct handler_rec {
  void *fn; /* sa_handler or sa_sigaction */
  int flags;
  sigset_t mask;
  struct handler_rec *next_made; /* the signal's other records (made[]) */
} handler_rec;
static _Atomic(handler_rec *) handlers[NSIG];
static handler_rec *made[NSIG]; /* every record made for the signal (under table_lock) */
static _Atomic int table_lock;
static _Atomic int overflow_warned;

static int synchronous(int sig) {
  return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
         sig == SIGSYS;
}

/* The one place handlers are called from: a report's stack that passes
 * through it is a handler's over the code its signal interrupted
 * (report.c). */
DC_NOINLINE void dacce_deliver_signal(void *fn, int siginfo, int sig, siginfo_t *info, void *uc) {
  if (siginfo)
    ((void (*)(int, siginfo_t *, void *))fn)(sig, info, uc);
  else
    ((void (*)(int))fn)(sig);
  __asm__ volatile(""); /* not a tail call: the handler returns here */
}
static void call_handler(const handler_rec *h, int sig, siginfo_t *info, void *uc) {
  dacce_deliver_signal(h->fn, h->flags & SA_SIGINFO, sig, info, uc);
}

/* Is errno after sig's handler no business of the interrupted code? */
static int errno_exempt(const dc_thread *t, int sig) {
  return synchronous(sig) || sig == SIGABRT || sig == SIGPIPE || sig == SIGTERM || t->sig_send_sp;
}

/* Handler h of sig on thread t (0: one without a state yet), counted in
 * t's sig_depth while it runs, with the trampoline's frame kept for a
 * longjmp out of it (dc_sig_resync); errno checked when it returns. */
static void run_handler(dc_thread *t, const handler_rec *h, int sig, siginfo_t *info, void *uc) {
  if (!t) {
    call_handler(h, sig, info, uc);
    return;
  }
  const uint32_t d = t->sig_depth;
  const uintptr_t at = uc ? (uintptr_t)((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP] : 0;
  if (d < DC_SIG_NEST) {
    t->sig_no[d] = sig;
    t->sig_sp[d] = (uintptr_t)__builtin_frame_address(0);
    t->sig_pc[d] = at;
  }
  const int watch = !errno_exempt(t, sig), before = errno;
  const uint32_t moves = t->sig_errno_moves;
  t->sig_depth = d + 1;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  call_handler(h, sig, info, uc);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t->sig_depth = d;
  const int after = errno;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (after == before) return;
  /* Another signal's handler that ran meanwhile and changed errno (in the
   * handler's body or here, after it returned and before errno was read)
   * owns the change: it is exempt, or reported itself.  errno is read
   * before the count, so one that comes between the two is not missed. */
  const int nested = t->sig_errno_moves != moves;
  t->sig_errno_moves++;
  if (watch && !nested && dc_opt.report_signal_unsafe) {
    rd_signal_desc r = {.what = RD_SIG_ERRNO, .sig = sig, .errno_before = before,
                        .errno_after = after, .thread = t->serial, .ctx = rd_ctx_handle(t),
                        .handler = (uintptr_t)h->fn, .pc = at};
    rd_report_signal(&r);
    errno = after; /* as the handler left it, as without the runtime */
  }
}

/* A call of fn (malloc, free, ...) at pc: reported when a handler is
 * running on the thread. */
void rd_signal_unsafe_call(dc_thread *t, const char *fn, uintptr_t pc) {
  if (!dc_opt.report_signal_unsafe || t->in_runtime) return;
  const int e = errno;
  const uint32_t inner = (t->sig_depth < DC_SIG_NEST ? t->sig_depth : DC_SIG_NEST) - 1;
  rd_signal_desc r = {.what = RD_SIG_UNSAFE, .sig = t->sig_no[inner], .fn = fn,
                      .thread = t->serial, .ctx = rd_ctx_handle(t), .pc = pc};
  rd_report_signal(&r);
  errno = e;
}

/* The handler of sig as the program set it, or 0 when that is no longer a
 * function (SIG_DFL after SA_RESETHAND, SIG_IGN). */
static const handler_rec *current(int sig) {
  handler_rec *h = atomic_load_explicit(&handlers[sig], memory_order_acquire);
  return h && h->fn != (void *)SIG_DFL && h->fn != (void *)SIG_IGN ? h : 0;
}

/* The one-shot kind: the kernel has put back SIG_DFL; so do we. */
static void reset_if_oneshot(int sig, const handler_rec *h) {
  if (!(h->flags & SA_RESETHAND)) return;
  static handler_rec dfl = {(void *)SIG_DFL, 0, {{0}}, 0};
  handler_rec *expect = (handler_rec *)h;
  atomic_compare_exchange_strong(&handlers[sig], &expect, &dfl);
}

/* Run the deferred signals of thread t, which has just left the runtime.
 * The queue is taken apart with every signal blocked (a signal that came
 * now would append to it); each handler runs with its own mask, and its own
 * signal blocked, as the kernel runs a handler. */
static void deliver(dc_thread *t) {
  sigset_t all, old;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &old);
  while (t->sig_pending) {
    dc_deferred_sig d = t->sig_q[0];
    for (uint32_t i = 1; i < t->sig_pending; i++) t->sig_q[i - 1] = t->sig_q[i];
    t->sig_pending--;
    /* a one-shot handler runs for the signal that found it (its
     * disposition went back to SIG_DFL as the signal arrived) */
    const handler_rec *h = d.oneshot ? d.oneshot : current(d.sig);
    if (!h) {
      /* the disposition changed since: let the kernel apply it */
      sigprocmask(SIG_SETMASK, &old, 0);
      raise(d.sig);
      sigprocmask(SIG_BLOCK, &all, 0);
      continue;
    }
    sigset_t during = old;
    sigorset(&during, &during, &h->mask);
    if (!(h->flags & SA_NODEFER)) sigaddset(&during, d.sig);
    sigprocmask(SIG_SETMASK, &during, 0);
    run_handler(t, h, d.sig, &d.info, 0);
    sigprocmask(SIG_BLOCK, &all, 0);
  }
  /* unblock what the trampoline blocked: the kernel now delivers the ones it
   * kept, straight to their handlers */
  for (int sig = 1; sig < NSIG; sig++)
    if (sigismember(&t->sig_blocked, sig)) sigdelset(&old, sig);
  sigemptyset(&t->sig_blocked);
  sigprocmask(SIG_SETMASK, &old, 0);
}

static void trampoline(int sig, siginfo_t *info, void *uc) {
  const handler_rec *h = current(sig);
  if (!h) return; /* changed to SIG_IGN/SIG_DFL while this one was in flight */
  reset_if_oneshot(sig, h);
  dc_thread *t = dc_guard_owner();
  if (t && (t->in_runtime || t->locks_held) && !synchronous(sig)) {
    /* blocked when this handler returns, until deliver(): the kernel keeps
     * the next ones (SA_NODEFER may still nest one or two here) */
    if (uc) sigaddset(&((ucontext_t *)uc)->uc_sigmask, sig);
    sigaddset(&t->sig_blocked, sig);
    if (t->sig_pending == DC_SIG_QUEUE) {
      if (!atomic_exchange(&overflow_warned, 1))
        dc_printf("==dacce== warning: more than %d signals arrived while a thread was in the "
                  "runtime; signal %d was dropped\n", DC_SIG_QUEUE, sig);
      return;
    }
    dc_deferred_sig *d = &t->sig_q[t->sig_pending];
    d->sig = sig;
    d->info = *info;
    d->oneshot = h->flags & SA_RESETHAND ? h : 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->sig_pending++;
    return;
  }
  run_handler(t, h, sig, info, uc);
  /* after the handler, which may have moved the pc itself: a fast call or
   * return hook it interrupted before the hook's publishing store starts
   * again */
  dc_hook_restart(uc);
}

/* sig's record of (fn, flags, mask): the one made before, else a new one
 * (under table_lock). */
static handler_rec *record_of(int sig, void *fn, int flags, const sigset_t *mask) {
  for (handler_rec *h = made[sig]; h; h = h->next_made) {
    int same = h->fn == fn && h->flags == flags;
    for (int i = 1; same && i < NSIG; i++) same = sigismember(&h->mask, i) == sigismember(mask, i);
    if (same) return h;
  }
  handler_rec *h = dc_perm_alloc(sizeof *h);
  h->fn = fn;
  h->flags = flags;
  h->mask = *mask;
  h->next_made = made[sig];
  return made[sig] = h;
}

DC_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
  REAL(int, sigaction, int, const struct sigaction *, struct sigaction *);
  if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
    return real_sigaction(sig, act, old);
  atomic_store_explicit(&dc_sig_deliver, deliver, memory_order_relaxed);
  struct sigaction wrapped, prev;
  const struct sigaction *use = act;
  void *fn = 0;
  if (act) {
    fn = act->sa_flags & SA_SIGINFO ? (void *)act->sa_sigaction : (void *)act->sa_handler;
    if (fn != (void *)SIG_DFL && fn != (void *)SIG_IGN) {
      wrapped = *act;
      wrapped.sa_flags |= SA_SIGINFO;
      wrapped.sa_sigaction = trampoline;
      use = &wrapped;
    }
  }
  dc_lock(&table_lock);
  handler_rec *rec = act ? record_of(sig, fn, act->sa_flags, &act->sa_mask) : 0;
  handler_rec *was = atomic_load_explicit(&handlers[sig], memory_order_relaxed);
  if (rec) atomic_store_explicit(&handlers[sig], rec, memory_order_release);
  int r = real_sigaction(sig, use, &prev);
  if (r && rec) atomic_store_explicit(&handlers[sig], was, memory_order_release);
  dc_unlock(&table_lock);
  if (r || !old) return r;
  *old = prev;
  if (prev.sa_sigaction == trampoline && was) {
    /* what the program installed, not our trampoline */
    old->sa_flags = was->flags;
    old->sa_mask = was->mask;
    if (was->flags & SA_SIGINFO)
      old->sa_sigaction = (void (*)(int, siginfo_t *, void *))was->fn;
    else
      old->sa_handler = (void (*)(int))was->fn;
  }
  return 0;
}

/* Install fn for sig with these flags and an empty mask (with sig itself
 * in it when block_self), through sigaction; old: the disposition before.
 * The signal() family's common part. */
static int install(int sig, sighandler_t fn, int flags, int block_self, struct sigaction *old) {
  struct sigaction act;
  dc_memset(&act, 0, sizeof act);
  act.sa_handler = fn;
  act.sa_flags = flags;
  sigemptyset(&act.sa_mask);
  if (block_self && sig > 0 && sig < NSIG) sigaddset(&act.sa_mask, sig);
  return sigaction(sig, &act, old);
}
/* Are sig and fn no arguments for the signal() family (then EINVAL)? */
static int bad_args(int sig, sighandler_t fn) {
  if (fn != SIG_ERR && sig > 0 && sig < NSIG) return 0;
  errno = EINVAL;
  return 1;
}

/* glibc's signal(): BSD semantics (the handler stays, interrupted system
 * calls restart, the signal is blocked while its handler runs). */
DC_EXPORT sighandler_t signal(int sig, sighandler_t fn) {
  struct sigaction old;
  if (bad_args(sig, fn) || install(sig, fn, SA_RESTART, 1, &old)) return SIG_ERR;
  return old.sa_handler;
}
DC_EXPORT sighandler_t bsd_signal(int sig, sighandler_t fn) { return signal(sig, fn); }

/* System V's signal(): a one-shot handler (the disposition goes back to
 * SIG_DFL as the signal arrives), the signal not blocked while it runs,
 * interrupted system calls not restarted.  glibc's <signal.h> makes every
 * signal() call of a program built for a strict standard (-std=c11, with
 * no _DEFAULT_SOURCE or _GNU_SOURCE) one of __sysv_signal. */
DC_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t fn) {
  struct sigaction old;
  if (bad_args(sig, fn) || install(sig, fn, SA_RESETHAND | SA_NODEFER, 0, &old)) return SIG_ERR;
  return old.sa_handler;
}
DC_EXPORT sighandler_t sysv_signal(int sig, sighandler_t fn) { return __sysv_signal(sig, fn); }

/* X/Open's sigset(): SIG_HOLD blocks the signal and leaves its handler;
 * anything else is installed (no flags, no mask) and the signal unblocked,
 * which delivers one that waited.  Returns SIG_HOLD if the signal was
 * blocked before, else the disposition before. */
DC_EXPORT sighandler_t sigset(int sig, sighandler_t fn) {
  if (bad_args(sig, fn)) return SIG_ERR;
  sigset_t one, was;
  sigemptyset(&one);
  sigaddset(&one, sig);
  struct sigaction old;
  if (fn == SIG_HOLD) {
    if (sigprocmask(SIG_BLOCK, &one, &was) || sigaction(sig, 0, &old)) return SIG_ERR;
  } else {
    if (install(sig, fn, 0, 0, &old) || sigprocmask(SIG_UNBLOCK, &one, &was)) return SIG_ERR;
  }
  return sigismember(&was, sig) ? SIG_HOLD : old.sa_handler;
}

/* The calls that send a signal: a handler they run on their own thread
 * (raise, or a kill of the process that this thread takes) runs in the
 * call, whose errno is meaningless unless it fails, and then is set after
 * the handler returns. */
#define SENDING(name, params, args, ...)                                          \
  DC_EXPORT int name params {                                                     \
    REAL(int, name, __VA_ARGS__);                                                 \
    dc_thread *t = dc_guard_owner();                                              \
    const uintptr_t outer = t ? t->sig_send_sp : 0;                               \
    if (t && !outer) t->sig_send_sp = (uintptr_t)__builtin_frame_address(0);      \
    const int r = real_##name args;                                               \
    if (t) t->sig_send_sp = outer;                                                \
    return r;                                                                     \
  }
SENDING(raise, (int sig), (sig), int)
SENDING(kill, (pid_t pid, int sig), (pid, sig), pid_t, int)
SENDING(killpg, (pid_t pg, int sig), (pg, sig), pid_t, int)
SENDING(pthread_kill, (pthread_t th, int sig), (th, sig), pthread_t, int)
SENDING(sigqueue, (pid_t pid, int sig, const union sigval v), (pid, sig, v), pid_t, int,
        const union sigval)
SENDING(tgkill, (pid_t tgid, pid_t tid, int sig), (tgid, tid, sig), pid_t, pid_t, int)
