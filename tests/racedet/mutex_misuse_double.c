/* mutex_misuse_double.c: a thread locks a normal mutex it holds already,
 * through a helper: the call never returns (glibc's normal mutex waits
 * for itself).  The report comes before the hang, with where the thread
 * had taken the mutex; a watchdog thread then ends the process, as a CI
 * job's timeout would.
 *
 * EXPECT: mutex-misuse
 * EXPECT-MISUSE: double-lock
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: guard update_stats worker
 * EXPECT-HELD: guard apply worker
 * EXPECT-CREATION: main
 * EXPECT-MUTEX-CREATION: main
 * EXPECT-STDOUT: watchdog
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_mutex_t stats_lock;
static long applied;

__attribute__((noinline)) static void guard(void) { pthread_mutex_lock(&stats_lock); }
__attribute__((noinline)) static void update_stats(void) {
  guard(); /* the lock apply holds already */
  applied++;
  pthread_mutex_unlock(&stats_lock);
}
__attribute__((noinline)) static void apply(void) {
  guard();
  update_stats();
  pthread_mutex_unlock(&stats_lock);
}

static void *worker(void *arg) {
  apply();
  return arg;
}
static void *watchdog(void *arg) {
  sleep(1);
  puts("watchdog");
  fflush(stdout);
  _exit(0);
  return arg;
}

int main(void) {
  pthread_mutex_init(&stats_lock, 0);
  pthread_t w, d;
  pthread_create(&d, 0, watchdog, 0);
  pthread_create(&w, 0, worker, 0);
  pthread_join(w, 0);
  return 1;
}
