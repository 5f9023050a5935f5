/* signal_semantics.c: the runtime's signal trampoline changes nothing a
 * program can see (racedet/intercept_signal.c).
 *
 * - sigaction() hands back the handler and flags the program installed,
 *   with and without SA_SIGINFO, never the trampoline; signal() returns the
 *   previous handler, and refuses SIG_ERR and a bad signal number with
 *   EINVAL as glibc does (the disposition unchanged).
 * - SA_RESETHAND: the handler runs once, then the disposition is SIG_DFL.
 * - 2000 realtime signals, each with its own si_value, sent to a thread that
 *   spends its time in the runtime (allocating, locking: many arrive there
 *   and are deferred until it leaves), each arrive exactly once, with their
 *   value, and with the signal blocked while the handler runs.
 * Prints "signals ok", or what went wrong and exits 1.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: signals ok
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 2000
static unsigned char seen[N];
static volatile int bad_value, bad_mask, got_oneshot;
static volatile int stop;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static int fails;
static void check(int ok, const char *what) {
  if (!ok) {
    printf("FAIL: %s\n", what);
    fails++;
  }
}

static void on_rt(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  int v = si->si_value.sival_int;
  if (v < 0 || v >= N) {
    bad_value = 1;
    return;
  }
  __atomic_fetch_add(&seen[v], 1, __ATOMIC_RELAXED);
  sigset_t now;
  pthread_sigmask(SIG_BLOCK, 0, &now);
  if (!sigismember(&now, sig)) bad_mask = 1;
}

static void on_usr1(int sig) { (void)sig; }
static void on_usr2(int sig) { (void)sig; }
static void on_oneshot(int sig) {
  (void)sig;
  got_oneshot++;
}

void *busy(void *arg) {
  while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
    void *p = malloc(64);
    pthread_mutex_lock(&m);
    free(p);
    pthread_mutex_unlock(&m);
  }
  return arg;
}

int main(void) {
  /* what sigaction hands back */
  struct sigaction a, old;
  memset(&a, 0, sizeof a);
  a.sa_handler = on_usr1;
  a.sa_flags = SA_RESTART;
  sigemptyset(&a.sa_mask);
  sigaddset(&a.sa_mask, SIGUSR2);
  check(sigaction(SIGUSR1, &a, 0) == 0, "sigaction(SIGUSR1)");
  check(sigaction(SIGUSR1, 0, &old) == 0, "sigaction query");
  check(old.sa_handler == on_usr1, "sigaction returns the program's handler");
  check(!(old.sa_flags & SA_SIGINFO), "sigaction returns the program's flags (no SA_SIGINFO)");
  check((old.sa_flags & SA_RESTART) != 0, "sigaction keeps SA_RESTART");
  check(sigismember(&old.sa_mask, SIGUSR2) == 1, "sigaction returns the program's mask");
  memset(&a, 0, sizeof a);
  a.sa_sigaction = on_rt;
  a.sa_flags = SA_SIGINFO;
  check(sigaction(SIGRTMIN, &a, 0) == 0, "sigaction(SIGRTMIN)");
  check(sigaction(SIGRTMIN, 0, &old) == 0 && old.sa_sigaction == on_rt &&
            (old.sa_flags & SA_SIGINFO),
        "sigaction returns the SA_SIGINFO handler");
  check(signal(SIGUSR2, on_usr2) == SIG_DFL, "signal() returns SIG_DFL first");
  check(signal(SIGUSR2, SIG_IGN) == on_usr2, "signal() returns the previous handler");
  check(signal(SIGUSR2, SIG_DFL) == SIG_IGN, "signal() returns SIG_IGN");
  errno = 0;
  check(signal(SIGUSR2, SIG_ERR) == SIG_ERR && errno == EINVAL, "signal(SIG_ERR) is EINVAL");
  check(sigaction(SIGUSR2, 0, &old) == 0 && old.sa_handler == SIG_DFL,
        "signal(SIG_ERR) leaves the disposition");
  errno = 0;
  check(signal(0, on_usr2) == SIG_ERR && errno == EINVAL, "signal(0) is EINVAL");
  errno = 0;
  check(signal(NSIG, on_usr2) == SIG_ERR && errno == EINVAL, "signal(NSIG) is EINVAL");

  /* SA_RESETHAND */
  memset(&a, 0, sizeof a);
  a.sa_handler = on_oneshot;
  a.sa_flags = SA_RESETHAND;
  check(sigaction(SIGURG, &a, 0) == 0, "sigaction(SIGURG, SA_RESETHAND)");
  raise(SIGURG);
  check(got_oneshot == 1, "the one-shot handler ran");
  check(sigaction(SIGURG, 0, &old) == 0 && old.sa_handler == SIG_DFL,
        "after SA_RESETHAND the disposition is SIG_DFL");
  raise(SIGURG); /* default action of SIGURG: ignored */
  check(got_oneshot == 1, "the one-shot handler ran once");

  /* realtime signals into a thread that is mostly inside the runtime */
  pthread_t t;
  pthread_create(&t, 0, busy, 0);
  for (int i = 0; i < N; i++) {
    union sigval v = {.sival_int = i};
    while (pthread_sigqueue(t, SIGRTMIN, v) != 0) usleep(100); /* EAGAIN: queue full */
    if (i % 64 == 63) usleep(200);
  }
  /* let the last ones arrive */
  for (int tries = 0; tries < 2000; tries++) {
    int all = 1;
    for (int i = 0; i < N && all; i++) all = __atomic_load_n(&seen[i], __ATOMIC_RELAXED) != 0;
    if (all) break;
    usleep(1000);
  }
  __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
  pthread_join(t, 0);
  int missing = 0, twice = 0;
  for (int i = 0; i < N; i++) missing += !seen[i], twice += seen[i] > 1;
  if (missing || twice) printf("FAIL: %d of %d signals missing, %d twice\n", missing, N, twice);
  check(!missing && !twice, "every realtime signal once");
  check(!bad_value, "every si_value as sent");
  check(!bad_mask, "the signal is blocked while its handler runs");
  if (fails) return 1;
  printf("signals ok\n");
  return 0;
}
