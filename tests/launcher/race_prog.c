/* race_prog.c: the program the dacce-race launcher tests run.
 *
 *   race_prog race      one race on the global shared_counter: writer()
 *                       writes it through bump_counter(), then reader()
 *                       reads it through read_counter(), unsynchronised
 *   race_prog chain     a race between two workers created by spawner(),
 *                       itself created by main (ancestors in the report)
 *   race_prog heap      a race on a heap block allocated in main
 *   race_prog two       the races of "race" and "heap": two reports
 *   race_prog same      the race of "race", then the same write reached
 *                       through writer_again(): two reports on one address
 *   race_prog uaf       a thread frees a heap block main then uses, unsynchronised
 *   race_prog segv      the race of "race", then a SIGSEGV
 *   race_prog clean N   threads that synchronise properly; exits with N
 *
 * The tests find lines by the @markers, never by number.  The second access
 * of each race waits until the first is done, spinning on a relaxed atomic
 * flag: relaxed atomics order nothing for the detector (the race stays a
 * race), but the order of the accesses (which one is "current") is the same
 * on every run however loaded the machine, and the detector, whose shadow
 * memory is updated without locks as in ThreadSanitizer, never sees two
 * accesses at the very same moment (it may miss such a race).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int shared_counter; /* @global */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int *heap_block;
static int first_done; /* relaxed atomic: see above */

static void done(void) { __atomic_store_n(&first_done, 1, __ATOMIC_RELAXED); }
static void wait_first(void) {
  while (!__atomic_load_n(&first_done, __ATOMIC_RELAXED)) usleep(1000);
  __atomic_store_n(&first_done, 0, __ATOMIC_RELAXED); /* for the next race */
}

__attribute__((noinline)) void bump_counter(void) {
  shared_counter++; /* @write */
}

__attribute__((noinline)) int read_counter(void) {
  return shared_counter; /* @read */
}

void *writer(void *arg) {
  bump_counter(); /* @call-bump */
  done();
  return arg;
}

void *writer_again(void *arg) {
  bump_counter(); /* @call-bump-again */
  done();
  return arg;
}

void *reader(void *arg) {
  wait_first();
  printf("counter %d\n", read_counter()); /* @call-read */
  return arg;
}

void *spawner(void *arg) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0); /* @spawn-writer */
  pthread_create(&r, 0, reader, 0); /* @spawn-reader */
  pthread_join(w, 0);
  pthread_join(r, 0);
  return arg;
}

__attribute__((noinline)) void heap_store(int v) {
  heap_block[1] = v; /* @heap-write */
}

void *heap_worker(void *arg) {
  if (arg) wait_first();
  heap_store(7); /* @call-heap-store */
  if (!arg) done();
  return arg;
}

void *freer(void *arg) {
  free(heap_block); /* @free */
  done();
  return arg;
}

__attribute__((noinline)) int heap_load(void) {
  return heap_block[0]; /* @heap-read */
}

void *clean_worker(void *arg) {
  pthread_mutex_lock(&lock);
  shared_counter++;
  pthread_mutex_unlock(&lock);
  return arg;
}

static void heap_race(void) {
  heap_block = malloc(4 * sizeof *heap_block); /* @malloc */
  pthread_t a, b;
  pthread_create(&a, 0, heap_worker, 0);
  pthread_create(&b, 0, heap_worker, &b);
  pthread_join(a, 0);
  pthread_join(b, 0);
  free(heap_block);
}

static void race(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0); /* @create-writer */
  pthread_create(&r, 0, reader, 0); /* @create-reader */
  pthread_join(w, 0);
  pthread_join(r, 0);
}

/* (a function of its own, its calls not like race()'s: clang merged the
 * identical calls of both into one, which then had no line in main) */
__attribute__((noinline)) static void race_again(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer_again, &w);
  pthread_create(&r, 0, reader, &r);
  pthread_join(w, 0);
  pthread_join(r, 0);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "race";
  if (!strcmp(mode, "race")) {
    race();
  } else if (!strcmp(mode, "chain")) {
    pthread_t s;
    pthread_create(&s, 0, spawner, 0); /* @create-spawner */
    pthread_join(s, 0);
  } else if (!strcmp(mode, "heap")) {
    heap_race();
  } else if (!strcmp(mode, "two")) {
    race();
    heap_race();
  } else if (!strcmp(mode, "same")) {
    race();
    race_again();
  } else if (!strcmp(mode, "uaf")) {
    heap_block = calloc(4, sizeof *heap_block); /* @calloc */
    pthread_t f;
    pthread_create(&f, 0, freer, 0);
    wait_first();
    printf("value %d\n", heap_load()); /* @call-heap-load */
    pthread_join(f, 0);
  } else if (!strcmp(mode, "ordered")) { /* the report must come first */
    race();
    fprintf(stderr, "after the race\n");
  } else if (!strcmp(mode, "closefrom")) {
    /* a daemon's closefrom(3), then its own pipes on the freed numbers
     * (the launcher's channels among them): no report may land in them */
    for (int fd = 3; fd < 1024; fd++) close(fd);
    int p[80][2];
    for (int i = 0; i < 80; i++)
      if (pipe(p[i])) return 3;
    race();
    int dirty = 0;
    for (int i = 0; i < 80; i++) {
      fcntl(p[i][0], F_SETFL, O_NONBLOCK);
      char c;
      dirty += read(p[i][0], &c, 1) > 0;
    }
    printf("pipes %s\n", dirty ? "written into" : "clean");
  } else if (!strcmp(mode, "segv")) {
    race();
    fflush(stdout);
    volatile int *volatile null = 0;
    *null = 1; /* @segv */
  } else if (!strcmp(mode, "clean")) {
    pthread_t t[4];
    for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, clean_worker, 0);
    for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
    printf("counter %d\n", shared_counter);
    return argc > 2 ? atoi(argv[2]) : 0;
  } else {
    fprintf(stderr, "race_prog: unknown mode %s\n", mode);
    return 100;
  }
  return 0;
}
