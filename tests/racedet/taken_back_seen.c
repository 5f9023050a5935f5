/* taken_back_seen.c: a release that another thread saw is not taken back.
 *
 * A writes y, releases a mutex (epoch e) and lets B go.  B acquires what
 * the mutex released by annotation (__tsan_acquire: a clock read, not a
 * lock), so B sees A's accesses up to e as ordered before it, and lets A
 * go.  A takes the mutex again and writes y again; B then reads y, ordered
 * with that second write by nothing but a relaxed flag: a race with it.
 * Had A taken its release back when it took the mutex again (racedet/
 * sync.c, take_back; checked by making seen_by do nothing), its cell of
 * the first write (epoch e or before) would cover the second, which would
 * not be stored, and B, whose clock covers e, would find nothing.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: b_read
 * EXPECT-PREVIOUS: a_second
 */
#include <pthread.h>
#include <stdio.h>

#include "turns.h"

void __tsan_acquire(void *addr);

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long y;

__attribute__((noinline)) static void a_first(void) { y = 1; }
__attribute__((noinline)) static void a_second(void) { y = 2; }
__attribute__((noinline)) static long b_read(void) { return y; }

static void *a(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  a_first();
  pthread_mutex_unlock(&m);
  next_turn(); /* 1: B's */
  wait_turn(2);
  pthread_mutex_lock(&m);
  a_second();
  pthread_mutex_unlock(&m);
  next_turn(); /* 3: B reads */
  return 0;
}

static void *b(void *arg) {
  (void)arg;
  wait_turn(1);
  __tsan_acquire(&m);
  next_turn();
  wait_turn(3);
  return (void *)b_read();
}

int main(void) {
  pthread_t ta, tb;
  void *v;
  pthread_create(&ta, 0, a, 0);
  pthread_create(&tb, 0, b, 0);
  pthread_join(ta, 0);
  pthread_join(tb, &v);
  printf("y %ld\n", (long)v);
  return 0;
}
