/* many_threads.c N: N threads alive at once (64 KiB stacks), each writing
 * its own word of a shared array and waiting on a barrier with main, then
 * joined.  Race-free.  What it measures (many_threads.sh): the memory that
 * each live thread costs a detector. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_barrier_t barrier;
static int words[8192];

static void *run(void *arg) {
  words[(long)arg % 8192] += 1;
  pthread_barrier_wait(&barrier);
  return 0;
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000;
  if (n < 1 || n > 8192) {
    fprintf(stderr, "many_threads: N must be 1-8192\n");
    return 2;
  }
  pthread_t *t = malloc((size_t)n * sizeof *t);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 16);
  pthread_barrier_init(&barrier, 0, (unsigned)n + 1);
  for (long i = 0; i < n; i++)
    if (pthread_create(&t[i], &attr, run, (void *)i)) {
      perror("pthread_create");
      return 1;
    }
  pthread_barrier_wait(&barrier);
  for (int i = 0; i < n; i++) pthread_join(t[i], 0);
  printf("many_threads %d\n", n);
  return 0;
}
