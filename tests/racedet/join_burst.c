/* join_burst.c: the first threads of a process start in a burst; each writes
 * its own slot and main reads every slot after joining them all.  Every join
 * orders its thread's writes before main's reads.
 *
 * Regression: the key whose destructor releases a thread's end was made by
 * whichever thread started first; a second thread starting at that moment
 * set the key before it existed, its end was never released, and main's read
 * of its slot was reported as a race (about once in 300 runs before the fix;
 * the ctest stress_join_burst runs this program many times).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: sum 36
 */
#include <pthread.h>
#include <stdio.h>

#define N 8
static long slot[N];

static void *worker(void *arg) {
  long i = (long)arg;
  slot[i] = i + 1;
  return NULL;
}

int main(void) {
  pthread_t th[N];
  for (long i = 0; i < N; i++) pthread_create(&th[i], NULL, worker, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(th[i], NULL);
  long sum = 0;
  for (int i = 0; i < N; i++) sum += slot[i];
  printf("sum %ld\n", sum);
  return 0;
}
