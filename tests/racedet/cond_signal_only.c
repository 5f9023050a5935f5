/* cond_signal_only.c: the producer sets the flag under the mutex, then
 * writes the data after unlocking and signals.  A wait may return
 * spuriously as soon as the flag is set, so the consumer's read races with
 * the write: only the mutex orders, a signal orders nothing by itself (as
 * in ThreadSanitizer; racedet/intercept_pthread.c).  A model in which the
 * signal released to the woken waiter hid this race whenever the consumer
 * was already waiting, which the sleep below makes the usual case.
 *
 * EXPECT: race
 * EXPECT-CURRENT: consume|produce
 * EXPECT-PREVIOUS: consume|produce
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ready, data;

__attribute__((noinline)) void produce(void) {
  pthread_mutex_lock(&m);
  ready = 1;
  pthread_mutex_unlock(&m);
  data = 5; /* after the unlock: ordered by nothing */
  pthread_cond_signal(&cv);
}
__attribute__((noinline)) int consume(void) {
  pthread_mutex_lock(&m);
  while (!ready) pthread_cond_wait(&cv, &m);
  pthread_mutex_unlock(&m);
  return data;
}
static void *consumer(void *arg) {
  printf("%d\n", consume());
  return arg;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, consumer, 0);
  usleep(100000); /* the consumer is waiting by now */
  produce();
  pthread_join(t, 0);
  return 0;
}
