/* report_order.c: under dacce-race, a report can come out after output the
 * program wrote later.  The race happens (and is reported by the runtime)
 * before main prints "after the race", but the launcher prints the report
 * only once it has symbolised it, so the line often comes first.
 * ThreadSanitizer prints its report in-process, before the program goes on.
 * gcc's g++.dg/tsan/aligned_vs_unaligned_race.C expects the report first.
 *
 *   build/bin/dacce-cc -g -O1 report_order.c -o ro
 *   for i in $(seq 20); do build/bin/dacce-race ./ro 2>&1 | head -1; done
 *   expected: "==================" (the report) first every time
 *   actual:   "after the race" first in some runs (3 of 20 here, more under load)
 */
#include <pthread.h>
#include <stdio.h>

int shared;

void *writer(void *arg) {
  shared = 1;
  return arg;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  shared = 2; /* races with writer */
  pthread_join(t, 0);
  fprintf(stderr, "after the race\n");
  return 0;
}
