/* second_write.h: the two threads of taken_back_seen.c and
 * taken_back_last.c.  A writes y under mutex m (a_first) and releases it,
 * does AFTER_FIRST, and lets B go; B does OBSERVE and lets A go; A takes m
 * again and writes y again (a_second); then B reads y (b_read), ordered
 * with the second write by nothing but a relaxed flag: a race with it,
 * which a release of A's taken back when it should not be loses. */
#include <pthread.h>
#include <stdio.h>

#include "turns.h"

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
  AFTER_FIRST();
  next_turn(); /* 1: B observes */
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
  OBSERVE();
  next_turn();
  wait_turn(3);
  return (void *)b_read();
}

int main(void) {
  printf("y %ld\n", run_pair(a, b));
  return 0;
}
