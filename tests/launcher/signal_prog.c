/* signal_prog.c: thread T1 takes a SIGUSR1 (sent by main) whose handler
 * allocates, and a SIGUSR2 whose handler leaves errno changed, both while
 * it waits in idle().  Built with
 * -DDEFAULT_OFF, the program's __tsan_default_options turns these reports
 * off. */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef DEFAULT_OFF
const char *__tsan_default_options(void) { return "report_signal_unsafe=0"; }
#endif

static int handled, started, back; /* atomic */
static void *volatile note;

__attribute__((noinline)) void remember(void) {
  note = malloc(16); /* @malloc */
}
static void on_usr1(int sig) {
  (void)sig;
  remember();
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELEASE);
}
static void on_usr2(int sig) { /* @errno */
  (void)sig;
  close(-1);
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELEASE);
}

__attribute__((noinline)) void idle(void) {
  __atomic_store_n(&started, 1, __ATOMIC_RELEASE);
  int h;
  while ((h = __atomic_load_n(&handled, __ATOMIC_ACQUIRE)) < 2) {
    /* out of the first handler (and the runtime's check of errno after
     * it): the second signal may come now without nesting in the first,
     * whose errno it would change */
    if (h == 1) __atomic_store_n(&back, 1, __ATOMIC_RELEASE);
    for (volatile int i = 0; i < 1000; i++) {
    }
  }
}
static void *worker(void *arg) {
  idle();
  return arg;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  signal(SIGUSR2, on_usr2);
  pthread_t t;
  pthread_create(&t, 0, worker, 0); /* @spawn */
  while (!__atomic_load_n(&started, __ATOMIC_ACQUIRE)) usleep(1000);
  pthread_kill(t, SIGUSR1);
  while (!__atomic_load_n(&back, __ATOMIC_ACQUIRE)) usleep(1000);
  pthread_kill(t, SIGUSR2);
  pthread_join(t, 0);
  free(note);
  puts("finished");
  return 0;
}
