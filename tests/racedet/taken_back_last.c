/* taken_back_last.c: only the thread's last release is taken back.
 *
 * A writes y under mutex m2 and releases it (epoch e1), then takes and
 * drops mutex m1 (epoch e2, its last release), which B then takes: B sees
 * A's accesses up to e2 as ordered before it.  A takes m2 again, which
 * nobody else took, and writes y again; B then reads y, ordered with that
 * second write by nothing but a relaxed flag: a race with it.  The release
 * into m2 is not A's last (m1's came after it and was seen), so it stays:
 * taken back, it would make A's cells since e1 cover again (the first
 * write's among them), the second write would not be stored, and B, whose
 * clock covers e2, would find nothing (checked by letting take_back ignore
 * the count of releases).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: b_read
 * EXPECT-PREVIOUS: a_second
 */
#include <pthread.h>
#include <stdio.h>

#include "turns.h"

static pthread_mutex_t m1 = PTHREAD_MUTEX_INITIALIZER, m2 = PTHREAD_MUTEX_INITIALIZER;
static long y;

__attribute__((noinline)) static void a_first(void) { y = 1; }
__attribute__((noinline)) static void a_second(void) { y = 2; }
__attribute__((noinline)) static long b_read(void) { return y; }

static void *a(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m2);
  a_first();
  pthread_mutex_unlock(&m2);
  pthread_mutex_lock(&m1);
  pthread_mutex_unlock(&m1);
  next_turn(); /* 1: B takes m1 */
  wait_turn(2);
  pthread_mutex_lock(&m2);
  a_second();
  pthread_mutex_unlock(&m2);
  next_turn(); /* 3: B reads */
  return 0;
}

static void *b(void *arg) {
  (void)arg;
  wait_turn(1);
  pthread_mutex_lock(&m1);
  pthread_mutex_unlock(&m1);
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
