/* thread_leaks.c: threads that finish but are neither joined nor detached
 * are reported once per creation site, with the number of similar leaks;
 * joined threads, threads created detached, threads detached later (before
 * or after they finish) and a thread still running at exit are not leaks.
 *
 * EXPECT: thread-leak
 * EXPECT-COUNT: 1
 * EXPECT-SIMILAR: 2
 * EXPECT-CREATION: spawn_leaky
 * EXPECT-STDOUT: settled 8
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

#include "live_tasks.h"

static sem_t forever;
static void *quick(void *arg) { return arg; }
static void *blocked(void *arg) {
  sem_wait(&forever); /* still running when main exits */
  return arg;
}

__attribute__((noinline)) void spawn_leaky(pthread_t *t) { pthread_create(t, 0, quick, 0); }

int main(void) {
  sem_init(&forever, 0, 0);
  pthread_t leaky[3], joined, detached_attr, detached_early, detached_late, running;
  volatile int nleaky = 3; /* one call site: a loop the compiler keeps */
  for (int i = 0; i < nleaky; i++) spawn_leaky(&leaky[i]);
  pthread_create(&detached_early, 0, blocked, 0);
  pthread_detach(detached_early); /* detached while it runs (blocked) */
  pthread_create(&running, 0, blocked, 0);
  pthread_create(&detached_late, 0, quick, 0);
  pthread_create(&joined, 0, quick, 0);
  /* created last: no thread's memory (its pthread_t) is free for reuse
   * before every thread is created, so no entry can stand for another */
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&detached_attr, &attr, quick, 0);
  /* main, the two blocked threads: everything else has finished */
  wait_tasks(3);
  pthread_detach(detached_late); /* detached after it finished */
  pthread_join(joined, 0);
  printf("settled %d\n", 8 - (live_tasks() - 3));
  return 0;
}
