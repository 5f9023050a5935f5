/* misuse_prog.c: a thread destroys a mutex it holds, then unlocks a mutex
 * it never locked, which the main thread holds.  Built with -DDEFAULT_OFF,
 * the program's __tsan_default_options turns mutex misuse reports off. */
#include <pthread.h>
#include <stdio.h>

#ifdef DEFAULT_OFF
const char *__tsan_default_options(void) { return "report_mutex_bugs=0"; }
#endif

static pthread_mutex_t job = PTHREAD_MUTEX_INITIALIZER, spare = PTHREAD_MUTEX_INITIALIZER;

__attribute__((noinline)) void start_job(void) {
  pthread_mutex_lock(&job); /* @lock */
}
__attribute__((noinline)) void close_job(void) {
  pthread_mutex_destroy(&job); /* @destroy */
}
__attribute__((noinline)) void release_spare(void) {
  pthread_mutex_unlock(&spare); /* @unlock */
}

static void *worker(void *arg) {
  start_job();
  close_job();
  release_spare();
  return arg;
}

int main(void) {
  pthread_mutex_lock(&spare);
  pthread_t t;
  pthread_create(&t, 0, worker, 0); /* @spawn */
  pthread_join(t, 0);
  puts("finished");
  return 0;
}
