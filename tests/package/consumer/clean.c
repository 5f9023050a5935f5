/* clean.c (clean_c): N workers (argv[1]) add to a counter in libtally under its mutex
 * and write their own slots of an array the main thread reads after joining:
 * no race, dacce-race exits 0. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "tally.h"

#define MAX_WORKERS 16
static long slot[MAX_WORKERS];

static void *worker(void *arg) {
  long id = (long)arg;
  for (int i = 0; i < 1000; i++) {
    tally_add(1);
    slot[id] += i;
  }
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  if (n < 1 || n > MAX_WORKERS) return 2;
  pthread_t t[MAX_WORKERS];
  for (long i = 0; i < n; i++) pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < n; i++) pthread_join(t[i], NULL);
  long sum = 0;
  for (int i = 0; i < n; i++) sum += slot[i];
  printf("total %ld sum %ld\n", tally_total(), sum);
  return tally_total() == 1000L * n ? 0 : 1;
}
