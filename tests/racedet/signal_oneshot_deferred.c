/* signal_oneshot_deferred.c: a one-shot handler (SA_RESETHAND; it installs
 * itself again each time, as System V's signal() handlers do) whose signal
 * arrives while its thread is in the runtime.  The trampoline defers the
 * signal to the thread's way out of the runtime, and by then the kernel
 * has put the disposition back to SIG_DFL: the deferred delivery must still
 * run the handler that the signal found, once.  Before, it found SIG_DFL
 * and let the kernel apply it, and the program died of its own SIGUSR1.
 * Another thread sends 300 signals, one at a time, to a thread that
 * allocates, frees and locks in a loop (in the runtime much of its time).
 * First, the handler is installed 300,000 times over: the runtime keeps a
 * record of each distinct handler, not of each installation (which took
 * 48 MB here).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: handled 300 of 300, reinstalled in 8 MB
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N 300

static int handled; /* atomic */
static int done;    /* atomic */
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void arm(void);
static void on_usr1(int sig) {
  (void)sig;
  arm();
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELEASE);
}
static void arm(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_usr1;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGUSR1, &sa, 0);
}

static void *busy(void *arg) {
  (void)arg;
  while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
    char *volatile p = malloc(64);
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    free(p);
  }
  return 0;
}

static long resident_kb(void) {
  long size = 0, rss = 0;
  FILE *f = fopen("/proc/self/statm", "r");
  if (!f || fscanf(f, "%ld %ld", &size, &rss) != 2) rss = -1;
  if (f) fclose(f);
  return rss * 4;
}

int main(void) {
  const long before = resident_kb();
  for (int i = 0; i < 300000; i++) arm();
  const long grown = resident_kb() - before;
  pthread_t t;
  pthread_create(&t, 0, busy, 0);
  const struct timespec nap = {0, 100000};
  for (int i = 0; i < N; i++) {
    pthread_kill(t, SIGUSR1);
    while (__atomic_load_n(&handled, __ATOMIC_ACQUIRE) <= i) nanosleep(&nap, 0);
  }
  __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
  pthread_join(t, 0);
  printf("handled %d of %d, reinstalled in %s\n", __atomic_load_n(&handled, __ATOMIC_ACQUIRE), N,
         before > 0 && grown < 8192 ? "8 MB" : "more than 8 MB");
  return 0;
}
