/* heap.c MODE MAX N: two threads, each making and freeing N heap blocks of
 * 16 to MAX + 15 bytes (a pseudo-random size each), with 256 of them alive
 * per thread at any time: the cost of the allocator's interceptors, of
 * each new block's shadow and of each free's mark and check.  Each block is
 * written (its first 16 bytes) and read once.  Prints "heap MODE MAX N
 * checksum".
 *   plain   just the block
 *   locked  a block that starts with a mutex, made, taken once around the
 *           write and destroyed before the free (objects with a lock of
 *           their own, each taken under no other: a new held set each)
 *   hold    every block kept until all N are made, then all freed (the
 *           memory of many live blocks: MAX 1 makes them all 16 bytes) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LIVE = 256 };
static long n, max;
static int locked, hold;

static void *run(void *arg) {
  unsigned x = (unsigned)(long)arg * 7919u + 1;
  long sum = 0;
  if (hold) {
    char **all = malloc(n * sizeof *all);
    if (!all) exit(1);
    for (long i = 0; i < n; i++) {
      x = x * 1103515245u + 12345u;
      if (!(all[i] = malloc(16 + (x >> 8) % (unsigned)max))) exit(1);
      memset(all[i], (int)i, 16);
    }
    for (long i = 0; i < n; i++) {
      sum += all[i][i % 16];
      free(all[i]);
    }
    free(all);
    return (void *)sum;
  }
  char *live[LIVE] = {0};
  for (long i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    const size_t size = (locked ? sizeof(pthread_mutex_t) : 0) + 16 + (x >> 8) % (unsigned)max;
    char *p = malloc(size);
    if (!p) exit(1);
    char *data = p + (locked ? sizeof(pthread_mutex_t) : 0);
    if (locked) {
      pthread_mutex_init((pthread_mutex_t *)p, 0);
      pthread_mutex_lock((pthread_mutex_t *)p);
    }
    memset(data, (int)i, 16);
    if (locked) pthread_mutex_unlock((pthread_mutex_t *)p);
    sum += data[x % 16];
    const unsigned k = (x >> 4) % LIVE;
    if (live[k] && locked) pthread_mutex_destroy((pthread_mutex_t *)live[k]);
    free(live[k]);
    live[k] = p;
  }
  for (int k = 0; k < LIVE; k++) {
    if (live[k] && locked) pthread_mutex_destroy((pthread_mutex_t *)live[k]);
    free(live[k]);
  }
  return (void *)sum;
}

int main(int argc, char **argv) {
  if (argc != 4 || (strcmp(argv[1], "plain") && strcmp(argv[1], "locked") && strcmp(argv[1], "hold")) ||
      (max = atol(argv[2])) < 1 || (n = atol(argv[3])) < 1) {
    fprintf(stderr, "usage: heap plain|locked|hold MAX N\n");
    return 2;
  }
  locked = !strcmp(argv[1], "locked");
  hold = !strcmp(argv[1], "hold");
  pthread_t t[2];
  for (long i = 0; i < 2; i++) pthread_create(&t[i], 0, run, (void *)i);
  long sum = 0;
  for (int i = 0; i < 2; i++) {
    void *r;
    pthread_join(t[i], &r);
    sum += (long)r;
  }
  printf("heap %s %ld %ld %ld\n", argv[1], max, n, sum);
  return 0;
}
