/* signal_nested_errno.c: errno changed by a handler that nests in another.
 *  - a SIGUSR1 from another thread, whose handler changes errno and puts it
 *    back, then lets in a SIGTERM (its mask held it) whose handler leaves
 *    errno changed, as SIGTERM's may: the SIGUSR1 handler returns with
 *    errno changed, but not by its own code, and is not reported (before,
 *    it was; a SIGTERM that came just after the handler returned, before
 *    the runtime read errno, did the same in signal_clean.c, now and then);
 *  - then a SIGUSR2 whose handler leaves errno changed itself: reported.
 *
 * EXPECT: signal-errno
 * EXPECT-COUNT: 1
 * EXPECT-SIGNAL: SIGUSR2
 * EXPECT-ERRNO: 0 9
 * EXPECT-CURRENT: on_usr2 wait_got main
 * EXPECT-STDOUT: signals 3
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int got;      /* atomic: the sender reads it */
static int in_usr1;  /* atomic */
static int errno_reset; /* atomic */

static void on_usr1(int sig) {
  (void)sig;
  const int saved = errno;
  (void)write(-1, "x", 1); /* EBADF */
  errno = saved;
  __atomic_store_n(&in_usr1, 1, __ATOMIC_RELEASE);
  sigset_t pending, term;
  do sigpending(&pending);
  while (!sigismember(&pending, SIGTERM));
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  pthread_sigmask(SIG_UNBLOCK, &term, 0); /* on_term runs here */
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}
static void on_term(int sig) {
  (void)sig;
  close(-1); /* EBADF, left */
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}
static void on_usr2(int sig) {
  (void)sig;
  close(-1); /* EBADF, left */
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}

/* With reset, errno is cleared and the sender told so here, so that the
 * SIGUSR2 it then sends arrives in this function (when main cleared it
 * before the call, the signal could come in between: on_usr2 over main
 * alone, one run in a few hundred). */
__attribute__((noinline)) static void wait_got(int n, int reset) {
  if (reset) {
    errno = 0;
    __atomic_store_n(&errno_reset, 1, __ATOMIC_RELEASE);
  }
  while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) < n) usleep(1000);
}
static void wait_flag(int *f) {
  while (!__atomic_load_n(f, __ATOMIC_ACQUIRE)) usleep(1000);
}

static void *sender(void *arg) {
  pthread_t to = *(pthread_t *)arg;
  pthread_kill(to, SIGUSR1);
  wait_flag(&in_usr1);
  pthread_kill(to, SIGTERM);
  wait_flag(&errno_reset);
  pthread_kill(to, SIGUSR2);
  return 0;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaction(SIGUSR1, &sa, 0);
  sigemptyset(&sa.sa_mask);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, 0);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, 0);

  pthread_t self = pthread_self(), t;
  errno = 0;
  pthread_create(&t, 0, sender, &self);
  wait_got(2, 0); /* SIGUSR1, SIGTERM */
  wait_got(3, 1); /* SIGUSR2 */
  pthread_join(t, 0);
  printf("signals %d\n", __atomic_load_n(&got, __ATOMIC_ACQUIRE));
  return 0;
}
