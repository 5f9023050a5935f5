/* mutex_misuse_unlock.c: unlocks of locks the unlocking thread does not
 * hold, one per kind of lock: a pthread mutex never locked, one another
 * thread holds, one unlocked twice; a spinlock, an rwlock and a C11 mtx_t
 * never locked.  Each is reported once, at its call, as
 * ThreadSanitizer's "unlock of an unlocked mutex (or by a wrong thread)".
 *
 * EXPECT: mutex-misuse
 * EXPECT-MISUSE: unlock-not-held
 * EXPECT-COUNT: 6
 * EXPECT-EVERY: 6 unlock
 * EXPECT-STDOUT: done
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <threads.h>

static pthread_mutex_t never = PTHREAD_MUTEX_INITIALIZER, foreign = PTHREAD_MUTEX_INITIALIZER,
                       twice = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static mtx_t cm;
static sem_t held, released;

__attribute__((noinline)) static void unlock_0(void) { pthread_mutex_unlock(&never); }
__attribute__((noinline)) static void unlock_1(void) { pthread_mutex_unlock(&foreign); }
__attribute__((noinline)) static void unlock_2(void) {
  pthread_mutex_lock(&twice);
  pthread_mutex_unlock(&twice);
  pthread_mutex_unlock(&twice);
}
__attribute__((noinline)) static void unlock_3(void) { pthread_spin_unlock(&spin); }
__attribute__((noinline)) static void unlock_4(void) { pthread_rwlock_unlock(&rw); }
__attribute__((noinline)) static void unlock_5(void) { mtx_unlock(&cm); }

/* holds `foreign` while main unlocks it */
static void *holder(void *arg) {
  pthread_mutex_lock(&foreign);
  sem_post(&held);
  sem_wait(&released);
  return arg;
}

int main(void) {
  pthread_spin_init(&spin, 0);
  mtx_init(&cm, mtx_plain);
  sem_init(&held, 0, 0);
  sem_init(&released, 0, 0);
  pthread_t t;
  pthread_create(&t, 0, holder, 0);
  sem_wait(&held);
  unlock_1();
  sem_post(&released);
  pthread_join(t, 0);
  unlock_0();
  unlock_2();
  unlock_3();
  unlock_4();
  unlock_5();
  puts("done");
  return 0;
}
