/* fork_child_race.c: a thread other than main forks; in the child, that
 * thread (now the child's only thread) creates two threads that race.  The
 * child's report must come through dacce-race (exit 66), and name the racing
 * thread's ancestry across the fork: created in spawn_racers by the forking
 * thread, which main created in the parent.
 *
 * EXPECT: race
 * EXPECT-CURRENT: child_touch racer
 * EXPECT-PREVIOUS: child_touch racer
 * EXPECT-CREATION: spawn_racers main
 * EXPECT-THREADS: 3
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

long child_shared;
static long parent_only; /* written before the fork, by the parent's threads */

__attribute__((noinline)) void child_touch(void) { child_shared += 1; }

void *racer(void *arg) {
  child_touch();
  return arg;
}

__attribute__((noinline)) void spawn_racers(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, racer, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
}

void *forker(void *arg) {
  parent_only += 1;
  pid_t pid = fork();
  if (pid == 0) {
    spawn_racers();
    exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return (void *)(long)WEXITSTATUS(status);
}

int main(void) {
  pthread_t t;
  void *child_status;
  parent_only = 1;
  pthread_create(&t, 0, forker, 0);
  pthread_join(t, &child_status);
  printf("child exited %ld\n", (long)child_status);
  return 0;
}
