/* racers.h: two threads, named racer-a and racer-b, that write `victim`
 * from write_victim without synchronisation: one race, for tests whose
 * point is that it is still found after what came before it (their
 * EXPECT-CURRENT, EXPECT-PREVIOUS: write_victim; EXPECT-NAMES: racer-a
 * racer-b).  The includer defines _GNU_SOURCE first (pthread_setname_np). */
#ifndef RACERS_H
#define RACERS_H
#include <pthread.h>

long victim;

__attribute__((noinline)) void write_victim(long v) { victim = v; }

static void *racer(void *arg) {
  pthread_setname_np(pthread_self(), arg ? "racer-b" : "racer-a");
  write_victim((long)arg);
  return 0;
}

/* start both racers and join them */
static void race_two(void) {
  pthread_t a, b;
  pthread_create(&a, 0, racer, (void *)0);
  pthread_create(&b, 0, racer, (void *)1);
  pthread_join(a, 0);
  pthread_join(b, 0);
}
#endif
