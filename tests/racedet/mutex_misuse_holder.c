/* mutex_misuse_holder.c: a thread unlocks a mutex that another thread
 * holds: the report names the holder (glibc's owner of the mutex), with
 * its creation, where ThreadSanitizer says "(or by a wrong thread)".
 *
 * EXPECT: mutex-misuse
 * EXPECT-MISUSE: unlock-not-held
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: release_for_owner cleaner
 * EXPECT-HOLDER: spawn_owner
 * EXPECT-CREATION: main
 * EXPECT-STDOUT: done
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>

static pthread_mutex_t table = PTHREAD_MUTEX_INITIALIZER;
static sem_t held, released;

static void *owner(void *arg) {
  pthread_mutex_lock(&table);
  sem_post(&held);
  sem_wait(&released);
  return arg;
}

__attribute__((noinline)) static void release_for_owner(void) { pthread_mutex_unlock(&table); }

static void *cleaner(void *arg) {
  sem_wait(&held);
  release_for_owner();
  sem_post(&released);
  return arg;
}

__attribute__((noinline)) static void spawn_owner(pthread_t *t) { pthread_create(t, 0, owner, 0); }

int main(void) {
  sem_init(&held, 0, 0);
  sem_init(&released, 0, 0);
  pthread_t a, b;
  spawn_owner(&a);
  pthread_create(&b, 0, cleaner, 0);
  pthread_join(b, 0);
  pthread_join(a, 0);
  puts("done");
  return 0;
}
