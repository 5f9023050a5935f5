/* exit_flushes_stdout.c: when races were reported, the runtime replaces the
 * exit status (66) with _exit, which skips stdio's flush; it must flush
 * first, or a program's buffered output (here redirected, so fully
 * buffered) is lost.  (Found by the random program generator.)
 *
 * EXPECT: race
 * EXPECT-CURRENT: inc
 * EXPECT-PREVIOUS: inc
 * EXPECT-STDOUT: result 2
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static int counter;
static void *inc(void *arg) {
  if (arg) usleep(100 * 1000); /* one after the other, but unsynchronised */
  counter++;
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, inc, NULL);
  pthread_create(&b, NULL, inc, (void *)1);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("result %d\n", counter);
  return 0;
}
