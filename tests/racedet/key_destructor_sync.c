/* key_destructor_sync.c: what a program's thread-specific-data destructor
 * does at a thread's exit is the thread's, before its end.  The worker
 * exits holding a mutex that its key's destructor unlocks (the shape of
 * std::notify_all_at_thread_exit, key_destructor_sync's C++ twin
 * notify_at_thread_exit.cc); main takes the mutex after that unlock and
 * reads what the worker wrote, before it joins.  The runtime's own
 * destructor ran first (its key is older) and ended the thread, so the
 * unlock ordered nothing: a false race on data.  It now waits for the last
 * round of destructors.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: data 42 43
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t key;
static sem_t locked;
static int data, more;

static void unlock_at_exit(void *p) {
  more = data + 1;
  pthread_mutex_unlock(p);
}

static void *worker(void *arg) {
  pthread_mutex_lock(&m);
  sem_post(&locked); /* (orders nothing that follows) */
  data = 42;
  pthread_setspecific(key, &m);
  return arg;
}

int main(void) {
  sem_init(&locked, 0, 0);
  pthread_key_create(&key, unlock_at_exit);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  sem_wait(&locked);
  pthread_mutex_lock(&m); /* after the worker's exit unlocked it */
  printf("data %d %d\n", data, more);
  pthread_mutex_unlock(&m);
  pthread_join(t, 0);
  return 0;
}
