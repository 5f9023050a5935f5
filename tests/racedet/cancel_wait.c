/* cancel_wait.c: threads that end by cancellation and by pthread_exit
 * deep in a call chain, with no race.
 *
 * The waiter is cancelled in pthread_cond_wait: glibc takes the mutex back
 * inside the wait and unwinds through the cleanup handler, which updates
 * `counter` under that mutex and unlocks it.  The interceptor must model
 * that lock too (racedet/intercept_pthread.c, COND_WAIT): without it the
 * handler's update raced with the other threads' locked updates (a false
 * report in every run).  The sleeper is cancelled at usleep, the exiter
 * leaves through pthread_exit 50 calls deep; their results must be
 * PTHREAD_CANCELED and 7, and main's locked updates after the joins are
 * ordered after everything the threads did.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: cancel ok
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static long shared, counter;

static void cleanup(void *arg) {
  (void)arg;
  counter++; /* the mutex is held: the wait took it back */
  pthread_mutex_unlock(&m);
}

static void *waiter(void *arg) {
  pthread_mutex_lock(&m);
  pthread_cleanup_push(cleanup, 0);
  for (;;) pthread_cond_wait(&c, &m);
  pthread_cleanup_pop(1);
  return arg;
}

__attribute__((noinline)) static void deep(int n) {
  if (n == 0) {
    shared = 42;
    pthread_exit((void *)7);
  }
  deep(n - 1);
  shared++; /* never reached */
}
static void *exiter(void *arg) {
  deep(50);
  return arg;
}

static void *sleeper(void *arg) {
  for (;;) {
    pthread_mutex_lock(&m);
    counter++;
    pthread_mutex_unlock(&m);
    usleep(100);
  }
  return arg;
}

int main(void) {
  for (int round = 0; round < 50; round++) {
    pthread_t t[3];
    pthread_create(&t[0], 0, waiter, 0);
    pthread_create(&t[1], 0, exiter, 0);
    pthread_create(&t[2], 0, sleeper, 0);
    usleep(300);
    pthread_cancel(t[0]);
    pthread_cancel(t[2]);
    void *r[3];
    for (int i = 0; i < 3; i++) pthread_join(t[i], &r[i]);
    if (r[0] != PTHREAD_CANCELED || r[1] != (void *)7 || r[2] != PTHREAD_CANCELED) {
      printf("unexpected thread results\n");
      return 1;
    }
    pthread_mutex_lock(&m);
    shared++;
    counter++;
    pthread_mutex_unlock(&m);
  }
  printf("cancel ok %ld\n", shared);
  return 0;
}
