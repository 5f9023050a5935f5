/* taken_back_aside.c: once another thread has read a mutex's clock other
 * than by taking the mutex, the mutex's releases are not taken back.
 *
 * A takes and drops mutex m; B acquires what m released by annotation
 * (__tsan_acquire: a clock read, not a lock).  A takes m again, drops it
 * (a release nobody sees at first) and takes it once more, and writes y
 * while it holds m (a_write).  B then reads m's clock by annotation again,
 * which holds that last release, and reads y (b_read): ordered after the
 * release, but not after the write, which came after it (the relaxed turns
 * order nothing for the detector): a race.  Had A taken that release back
 * when it took m once more (racedet/sync.c, take_back; checked by leaving
 * read_aside out of it), its write would be stamped with an epoch from
 * before the release, which B's clock covers, and B would find nothing.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: b_read
 * EXPECT-PREVIOUS: a_write
 */
#include <pthread.h>
#include <stdio.h>

#include "turns.h"

void __tsan_acquire(void *addr);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long y;

__attribute__((noinline)) static void a_write(void) { y = 1; }
__attribute__((noinline)) static long b_read(void) { return y; }

static void *a(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  next_turn(); /* 1: B reads m's clock */
  wait_turn(2);
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  pthread_mutex_lock(&m);
  a_write();
  next_turn(); /* 3: B reads m's clock again, and y */
  wait_turn(4);
  pthread_mutex_unlock(&m);
  return 0;
}

static void *b(void *arg) {
  (void)arg;
  wait_turn(1);
  __tsan_acquire(&m);
  next_turn();
  wait_turn(3);
  __tsan_acquire(&m);
  long v = b_read();
  next_turn();
  return (void *)v;
}

int main(void) {
  printf("y %ld\n", run_pair(a, b));
  return 0;
}
