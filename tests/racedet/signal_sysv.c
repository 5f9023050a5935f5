/* signal_sysv.c: handlers installed the System V way.  Built with
 * -std=c11 (strict ISO C, no _DEFAULT_SOURCE), glibc's <signal.h> makes a
 * call of signal() one of __sysv_signal: a one-shot handler, the signal not
 * blocked while it runs, which the handler installs again.  Before,
 * __sysv_signal went around the runtime's trampoline: the handler was not
 * deferred while its thread was in the runtime, nor watched.  Here its bug
 * is reported: a SIGUSR1 from another thread whose handler leaves errno
 * changed (twice; one report).  Then sigset(), the other System V call
 * that installs a handler (with SIG_HOLD blocking the signal, a later
 * sigset() of a handler unblocking it and delivering what waited): its
 * handler's SIGUSR2 from another thread, which spoils errno as well, is
 * reported too (two reports in all, one a handler).
 *
 * EXPECT: signal-errno
 * EXPECT-CFLAGS: -std=c11
 * EXPECT-COUNT: 2
 * EXPECT-CURRENT: on_usr1|on_usr2
 * EXPECT-STDOUT: signals 3 hold 1
 */
#define _XOPEN_SOURCE 700 /* sigset; not _DEFAULT_SOURCE: signal stays System V's */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

static int got; /* atomic: the sender reads it */
static int held; /* atomic: main holds SIGUSR2 (SIG_HOLD) */

static void on_usr1(int sig) {
  signal(sig, on_usr1); /* (one-shot: installed again, as System V handlers do) */
  close(-1);            /* EBADF, left */
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}
static void on_usr2(int sig) {
  (void)sig;
  close(-1); /* EBADF, left */
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}

static void nap(void) {
  struct timespec ts = {0, 1000000};
  nanosleep(&ts, 0);
}
__attribute__((noinline)) static void wait_got(int n) {
  while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) < n) {
    errno = 0;
    nap();
  }
}

static void *sender(void *arg) {
  pthread_t to = *(pthread_t *)arg;
  for (int i = 0; i < 2; i++) {
    pthread_kill(to, SIGUSR1);
    while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) <= i) nap();
  }
  while (!__atomic_load_n(&held, __ATOMIC_ACQUIRE)) nap();
  pthread_kill(to, SIGUSR2); /* waits in the kernel: held */
  return 0;
}

int main(void) {
  if (signal(SIGUSR1, on_usr1) == SIG_ERR) return 1;
  /* SIG_HOLD: blocked; the disposition as it was (the default) */
  const int hold_was_dfl = sigset(SIGUSR2, SIG_HOLD) == SIG_DFL;
  pthread_t self = pthread_self(), t;
  pthread_create(&t, 0, sender, &self);
  wait_got(2);
  __atomic_store_n(&held, 1, __ATOMIC_RELEASE);
  pthread_join(t, 0); /* SIGUSR2 is pending now */
  errno = 0;
  /* the handler installed and SIGUSR2 unblocked: it runs, in sigset()'s
   * call or right after; sigset() says the signal was held */
  const int was_held = sigset(SIGUSR2, on_usr2) == SIG_HOLD;
  wait_got(3);
  printf("signals %d hold %d\n", __atomic_load_n(&got, __ATOMIC_ACQUIRE),
         hold_was_dfl && was_held);
  return 0;
}
