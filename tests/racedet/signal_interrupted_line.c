/* signal_interrupted_line.c: a race made inside a signal handler shows,
 * below the handler's frames, the line the signal interrupted; and one
 * race, made again at signals that interrupted other lines, is one report.
 *
 * The worker spins in crunch, in one of three assembly loops (each on one
 * line, with no memory access, so that a signal nearly always arrives
 * there, not in the runtime), the one that `phase` names.  Main sends it
 * SIGUSR1 three times; each handler moves the worker on to the next loop.
 * The first handler writes `warm`, which nothing else touches; the next
 * two write `noted`, which main writes after each.  The counters are
 * relaxed atomics, which order nothing, so these writes race.  The context
 * of an access says which functions are on the stack, not where in the
 * interrupted one the signal came: the runtime keeps that pc from the
 * signal's ucontext with the context (rd_ctxaux.sig), so the report's
 * crunch frame is the second loop's line (the first race), not the
 * function's first, nor the first loop's, where the first handler's same
 * context was made.  The last two handlers' contexts differ only in that
 * pc, and their races with main's writes are one report.  (The worker
 * releases before each loop, so that the third handler's write, in a new
 * epoch, is not taken as recorded by the second's, and is checked.)
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: main
 * EXPECT-PREVIOUS: on_usr1 crunch worker
 * EXPECT-INTERRUPTED: crunch
 * EXPECT-STDOUT: handled 3
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int handled, phase; /* relaxed atomics: no happens-before */
static int beat; /* the worker's loop: released by it, acquired by no one */
static int noted, warm;

static void on_usr1(int sig) {
  if (!__atomic_load_n(&phase, __ATOMIC_RELAXED))
    warm = sig;
  else
    noted = sig;
  __atomic_fetch_add(&phase, 1, __ATOMIC_RELAXED);
  __atomic_fetch_add(&handled, 1, __ATOMIC_RELAXED);
}

/* (the loops' counts differ, so that no compiler merges them; each runs
 * about 60 ms, long against main's 5 ms wait: with 20 million turns, about
 * 6 ms, a loop could end before the signal came, and the signal then
 * landed between two loops, in the worker's atomic load of phase: a
 * second report, its interrupted line not one of the loops'.  Seen on a
 * loaded machine in one of 40 runs made two at a time, with a32af63's
 * runtime too, and in one run of the whole suite) */
__attribute__((noinline)) static void crunch(void) {
  for (;;) {
    const int p = __atomic_load_n(&phase, __ATOMIC_RELAXED);
    __atomic_store_n(&beat, p, __ATOMIC_RELEASE); /* a new epoch for each handler */
    if (p == 0)
      __asm__ volatile("mov $200000000, %%ecx\n1: dec %%ecx\njnz 1b" ::: "ecx", "cc");
    else if (p == 1)
      __asm__ volatile("mov $200000001, %%ecx\n1: dec %%ecx\njnz 1b" ::: "ecx", "cc"); /* INTERRUPTED-HERE */
    else if (p == 2)
      __asm__ volatile("mov $200000002, %%ecx\n1: dec %%ecx\njnz 1b" ::: "ecx", "cc"); /* INTERRUPTED-HERE */
    else
      return;
  }
}

static void *worker(void *arg) {
  (void)arg;
  crunch();
  return 0;
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, 0);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  for (int i = 0; i < 3; i++) {
    /* the worker is in loop i: it announces each loop in beat, and a
     * handler's phase takes effect only when the loop it interrupted ends
     * (on a loaded machine, later than a fixed sleep: the second signal
     * then came in the first loop) */
    while (__atomic_load_n(&beat, __ATOMIC_RELAXED) != i) usleep(1000);
    usleep(5000);
    pthread_kill(t, SIGUSR1);
    while (__atomic_load_n(&handled, __ATOMIC_RELAXED) <= i) usleep(1000);
    if (i) noted = 0;
  }
  pthread_join(t, 0);
  printf("handled %d noted %d warm %d beat %d\n", handled, noted, warm, beat);
  return 0;
}
