/* finalize_prog.c MODE STATUS: a program with ThreadSanitizer's exit hook,
 * __tsan_on_finalize, for test_exit_status.py.  MODE race makes one data
 * race, clean none; the program exits with STATUS.  The hook prints the
 * verdict it was given and returns what FINALIZE_VERDICT says: 0, 1, or
 * the verdict unchanged (unset). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int __tsan_on_finalize(int failed) {
  const char *v = getenv("FINALIZE_VERDICT");
  fprintf(stderr, "on_finalize(%d)\n", failed);
  return v ? atoi(v) : failed;
}

static int shared;
static void *writer(void *arg) {
  shared++;
  return arg;
}

int main(int argc, char **argv) {
  const int race = argc > 1 && !strcmp(argv[1], "race");
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  if (!race) pthread_join(t, 0);
  shared++;
  if (race) pthread_join(t, 0);
  return argc > 2 ? atoi(argv[2]) : 0;
}
