/* children_prog.c: the instrumented program that the commands of
 * test_trace_children.py start (scripts, a Python runner), several at once.
 *
 *   children_prog a N   N races (at most 8), on the globals v0 .. v<N-1>,
 *                       whose current access is in race_a(): 2N reports
 *                       (the read and the write of each v++)
 *   children_prog b N   the same in race_b()
 *   children_prog late S the race of "a 1", after S seconds (its command
 *                       may have ended by then)
 *   children_prog clean threads that synchronise properly
 *
 * Each race's second access waits for the first (a relaxed atomic flag, as
 * in race_prog.c), so every run reports all N.  Prints "ran MODE" at its
 * end; exits 0 (the runtime changes that when races are reported).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_RACES 8
int v0, v1, v2, v3, v4, v5, v6, v7; /* @vars */
static int first_done;
static int n_races;
static void (*race_fn)(int);
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int guarded;

/* a line of its own for each variable: each race is a report of its own
 * (reports are one per pair of racing call paths) */
#define BUMP(i) \
  case i:       \
    v##i++;     \
    break;
#define BUMPS BUMP(0) BUMP(1) BUMP(2) BUMP(3) BUMP(4) BUMP(5) BUMP(6) BUMP(7)
__attribute__((noinline)) static void race_a(int i) {
  switch (i) {
    BUMPS /* @race-a */
  }
}
__attribute__((noinline)) static void race_b(int i) {
  switch (i) {
    BUMPS /* @race-b */
  }
}

static void *first(void *arg) {
  for (int i = 0; i < n_races; i++) {
    race_fn(i);
    __atomic_store_n(&first_done, i + 1, __ATOMIC_RELAXED);
  }
  return arg;
}

static void *second(void *arg) {
  for (int i = 0; i < n_races; i++) {
    while (__atomic_load_n(&first_done, __ATOMIC_RELAXED) <= i) usleep(500);
    race_fn(i);
  }
  return arg;
}

static void *clean(void *arg) {
  pthread_mutex_lock(&lock);
  guarded++;
  pthread_mutex_unlock(&lock);
  return arg;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "clean";
  pthread_t t1, t2;
  if (!strcmp(mode, "late")) { /* the race of "a 1", S seconds from now */
    sleep(argc > 2 ? (unsigned)atoi(argv[2]) : 1);
    mode = "a", argc = 2;
  }
  if (!strcmp(mode, "a") || !strcmp(mode, "b")) {
    n_races = argc > 2 ? atoi(argv[2]) : 1;
    if (n_races < 1 || n_races > MAX_RACES) return 2;
    race_fn = mode[0] == 'a' ? race_a : race_b;
    pthread_create(&t1, NULL, first, NULL);
    pthread_create(&t2, NULL, second, NULL);
  } else {
    pthread_create(&t1, NULL, clean, NULL);
    pthread_create(&t2, NULL, clean, NULL);
  }
  pthread_join(t1, NULL);
  pthread_join(t2, NULL);
  printf("ran %s\n", mode);
  return 0;
}
