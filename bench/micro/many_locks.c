/* many_locks.c MODE N: N objects, each with its own mutex, and two threads
 * that go over all of them, each object under its own lock (MODE each: a
 * table with a lock per entry) or hand over hand, holding an object's lock
 * until the next one's is taken (MODE coupling: a list walked with lock
 * coupling, one lock-order edge per pair of neighbours).  Every access
 * holds a different set of mutexes.  Exits 1 when the counts are wrong. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct object {
  pthread_mutex_t m;
  long v;
} object;
static object *objs;
static long n;
static int coupling;

static void *walk(void *arg) {
  (void)arg;
  if (!coupling) {
    for (long i = 0; i < n; i++) {
      pthread_mutex_lock(&objs[i].m);
      objs[i].v++;
      pthread_mutex_unlock(&objs[i].m);
    }
    return 0;
  }
  pthread_mutex_lock(&objs[0].m);
  objs[0].v++;
  for (long i = 1; i < n; i++) {
    pthread_mutex_lock(&objs[i].m);
    objs[i].v++;
    pthread_mutex_unlock(&objs[i - 1].m);
  }
  pthread_mutex_unlock(&objs[n - 1].m);
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "each") && strcmp(argv[1], "coupling")) ||
      (n = atol(argv[2])) < 1) {
    fprintf(stderr, "usage: many_locks each|coupling N\n");
    return 2;
  }
  coupling = !strcmp(argv[1], "coupling");
  objs = malloc((size_t)n * sizeof *objs);
  if (!objs) return 2;
  for (long i = 0; i < n; i++) {
    pthread_mutex_init(&objs[i].m, 0);
    objs[i].v = 0;
  }
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, walk, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  long sum = 0;
  for (long i = 0; i < n; i++) {
    sum += objs[i].v;
    pthread_mutex_destroy(&objs[i].m);
  }
  free(objs);
  printf("%s %ld sum %ld\n", argv[1], n, sum);
  return sum != 2 * n;
}
