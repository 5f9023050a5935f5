/* fork.c: the cost of fork() in a process with many synchronisation
 * objects.  N mutexes are made and each locked once (each is then a sync
 * object of the race detector, racedet/sync.c), then the process forks 200
 * times, each child exiting at once and the parent waiting for it.  Prints
 * "fork N ns-per-fork checksum". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define FORKS 200

int main(int argc, char **argv) {
  const long n = argc > 1 ? atol(argv[1]) : 0;
  if (n < 0) return 2;
  pthread_mutex_t *ms = malloc((size_t)(n ? n : 1) * sizeof *ms);
  if (!ms) return 2;
  for (long i = 0; i < n; i++) {
    pthread_mutex_init(&ms[i], 0);
    pthread_mutex_lock(&ms[i]);
    pthread_mutex_unlock(&ms[i]);
  }
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  long sum = 0;
  for (int i = 0; i < FORKS; i++) {
    const pid_t p = fork();
    if (p < 0) return 1;
    if (p == 0) _exit(i & 1);
    int st;
    if (waitpid(p, &st, 0) != p) return 1;
    sum += WEXITSTATUS(st);
  }
  clock_gettime(CLOCK_MONOTONIC, &b);
  const double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / FORKS;
  printf("fork %ld %.0f %ld\n", n, ns, sum);
  for (long i = 0; i < n; i++) pthread_mutex_destroy(&ms[i]);
  free(ms);
  return 0;
}
