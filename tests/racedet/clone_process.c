/* clone_process.c: a process started with clone() called directly (no
 * CLONE_VM) creates two threads that race.  The report's ancestry runs from
 * the racing thread through the cloned child back to main's clone call.
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump racer
 * EXPECT-PREVIOUS: bump racer
 * EXPECT-CREATION: child_main main
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

int tally;
__attribute__((noinline)) void bump(void) { tally++; }
void *racer(void *a) {
  bump();
  return a;
}
int child_main(void *arg) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, racer, arg);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return tally == 2 ? 0 : 3;
}
int main(void) {
  size_t size = 1 << 20;
  char *stack = malloc(size);
  pid_t pid = clone(child_main, stack + size, SIGCHLD, 0);
  if (pid < 0) return 1;
  int st;
  waitpid(pid, &st, 0);
  printf("child exit %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
  free(stack);
  return 0;
}
