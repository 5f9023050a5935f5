/* signal_unsafe_call.c: a worker's SIGUSR1 handler logs through a helper
 * that allocates and frees (not async-signal-safe: a signal that arrives
 * inside the worker's own malloc deadlocks it on the allocator's lock).
 * The signal comes from another thread while the worker computes; each
 * call is reported once, with the handler's frames over the function the
 * signal interrupted, and the worker's creation.
 *
 * EXPECT: signal-unsafe-call
 * EXPECT-COUNT: 2
 * EXPECT-SIGNAL: SIGUSR1
 * EXPECT-CALLED: malloc|free
 * EXPECT-CURRENT: log_event on_usr1 crunch worker
 * EXPECT-CREATION: start_worker
 * EXPECT-STDOUT: handled 3
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int handled; /* atomic: the sending thread reads it */
static char *volatile last;

__attribute__((noinline)) static void log_event(int sig) {
  char *msg = malloc(64);
  snprintf(msg, 64, "signal %d", sig);
  free(last);
  last = msg;
}

static void on_usr1(int sig) {
  log_event(sig);
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELEASE);
}

__attribute__((noinline)) static void crunch(void) {
  while (__atomic_load_n(&handled, __ATOMIC_ACQUIRE) < 3) {
    for (volatile int i = 0; i < 10000; i++) {
    }
  }
}

static void *worker(void *arg) {
  (void)arg;
  crunch();
  return 0;
}

__attribute__((noinline)) static pthread_t start_worker(void) {
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  return t;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, 0);
  pthread_t t = start_worker();
  for (int i = 0; i < 3; i++) {
    usleep(20000);
    pthread_kill(t, SIGUSR1);
    while (__atomic_load_n(&handled, __ATOMIC_ACQUIRE) <= i) usleep(1000);
  }
  pthread_join(t, 0);
  printf("handled %d\n", handled);
  free(last);
  return 0;
}
