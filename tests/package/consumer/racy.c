/* racy.c: two workers bump `hits` without synchronisation; dacce-race reports
 * the race (both stacks, the location, where each thread was created) and
 * exits 66, so the ctest test fails. */
#include <pthread.h>
#include <stdio.h>

long hits; /* BUG: no lock */

__attribute__((noinline)) static void record_hit(void) { hits++; }

static void *worker(void *arg) {
  for (int i = 0; i < 1000; i++) record_hit();
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, worker, NULL);
  pthread_create(&b, NULL, worker, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("hits %ld\n", hits);
  return 0;
}
