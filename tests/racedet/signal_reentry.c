/* signal_reentry.c: a signal handler that makes racy accesses while its
 * thread is inside the runtime.
 *
 * A profiling timer interrupts the threads every 200 us of CPU time, often
 * while one of them is writing a report: the threads write `table` with no
 * lock that orders them (the mutex is each one's own) and read it at every
 * level of a recursion whose depth varies, so there are about a thousand
 * distinct pairs of stacks, each a report.  The handler then races too, and
 * its report needs the report lock its own thread holds.  The runtime
 * treats a thread that holds any of its locks as inside it and ignores what
 * a signal handler does meanwhile (encoder/internal.h, dc_lock); before
 * that, the handler waited for itself and every other thread for it (three
 * runs of three hung).  A watchdog ends the program with status 3 if it
 * has not finished in 60 s.
 *
 * EXPECT: race
 * EXPECT-CURRENT: walk on_signal
 * EXPECT-PREVIOUS: worker
 * EXPECT-STDOUT: finished
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile long hits;
static long table[4096];

__attribute__((noinline)) long walk(int n, const long *p) {
  if (!n) {
    long s = 0;
    for (int i = 0; i < 64; i++) s += p[i];
    return s;
  }
  return walk(n - 1, p + 1) + n;
}

static void on_signal(int sig) {
  (void)sig;
  char *m = malloc(64);
  if (!m) return;
  memset(m, 1, 64);
  hits += walk(5, table) + m[3];
  free(m);
}

void *worker(void *arg) {
  long s = 0;
  for (int it = 0; it < 100000; it++) {
    char *b = malloc(32 + it % 200);
    if (!b) abort();
    memset(b, 2, 32);
    s += walk(it % 40, table) + b[1];
    free(b);
    pthread_mutex_t own = PTHREAD_MUTEX_INITIALIZER; /* orders nothing */
    pthread_mutex_lock(&own);
    table[it % 4000] = it;
    pthread_mutex_unlock(&own);
  }
  return (void *)s;
}

static void *watchdog(void *arg) {
  (void)arg;
  sigset_t prof;
  sigemptyset(&prof);
  sigaddset(&prof, SIGPROF);
  pthread_sigmask(SIG_BLOCK, &prof, 0);
  for (unsigned left = 60; left;) left = sleep(left);
  static const char msg[] = "signal_reentry: hung for 60 s\n";
  if (write(2, msg, sizeof msg - 1) < 0) _exit(4);
  _exit(3);
}

int main(void) {
  pthread_t w, t[2];
  pthread_create(&w, 0, watchdog, 0);
  pthread_detach(w);
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGPROF, &sa, 0);
  struct itimerval tv = {{0, 200}, {0, 200}};
  setitimer(ITIMER_PROF, &tv, 0);
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
  worker(0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_PROF, &off, 0);
  printf("finished\n");
  return 0;
}
