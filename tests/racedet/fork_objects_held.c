/* fork_objects_held.c: a fork while another thread holds a sync object.
 *
 * A fork no longer takes every sync object's lock (racedet/sync.c: with
 * 100,000 mutexes alive that cost 134 ms a fork).  An object whose lock a
 * thread of the parent held at the fork (it was in the middle of an atomic
 * operation on the location) is adopted by the child at its first use: the
 * lock is freed, and the clocks, which may have been half changed, are
 * dropped (the child's thread has every thread's clock already).
 *
 * A thread adds to an atomic counter without pause while main forks 300
 * times; each child adds to it too, reads what main wrote before the fork,
 * and forks a grandchild that does the same (a generation of its own).
 * A child that found the object held forever would wait for it (until its
 * alarm); one that lost the fork's clocks would report a race on `before`.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: forks 300 ok
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORKS 300

static atomic_long counter;
static atomic_int stop;
static long before;

static void *adder(void *arg) {
  while (!atomic_load_explicit(&stop, memory_order_relaxed))
    atomic_fetch_add_explicit(&counter, 1, memory_order_acq_rel);
  return arg;
}

/* in a child: the counter's object, as the parent left it */
static int use(long want) {
  atomic_fetch_add_explicit(&counter, 1, memory_order_acq_rel);
  return atomic_load_explicit(&counter, memory_order_acquire) > 0 && before == want;
}

int main(void) {
  pthread_t t;
  if (pthread_create(&t, 0, adder, 0)) return 1;
  int ok = 0;
  for (long i = 0; i < FORKS; i++) {
    before = i;
    const pid_t p = fork();
    if (p < 0) return 1;
    if (p == 0) {
      alarm(10); /* (a child stuck on the object fails, rather than hangs) */
      if (!use(i)) _exit(1);
      const pid_t q = fork();
      if (q == 0) _exit(use(i) ? 0 : 1);
      int st;
      _exit(q > 0 && waitpid(q, &st, 0) == q && WIFEXITED(st) && !WEXITSTATUS(st) ? 0 : 1);
    }
    int st;
    if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st)) break;
    ok++;
  }
  atomic_store_explicit(&stop, 1, memory_order_relaxed);
  pthread_join(t, 0);
  if (ok == FORKS) printf("forks %d ok\n", ok);
  else printf("forks: %d of %d children ok\n", ok, FORKS);
  return 0;
}
