/* taken_back.c: a thread that takes its own lock again and again has its
 * releases taken back (racedet/sync.c), and a race with what it does under
 * the lock is still found.
 *
 * A takes a mutex that nobody else takes 1,000 times and updates a record
 * under it each time, the first time from first_turn, then from
 * later_turns.  Each release is taken back when A takes the lock again, so
 * the cells of the first turn's update cover the later ones, which are not
 * stored: the record's cell keeps the first turn's context (the statistics
 * line is printed only when some release was taken back).  B then reads
 * the record, ordered after A's updates by nothing but a relaxed flag: a
 * race, reported with the first turn's update as the earlier access.
 * Without releases taken back (take_back leaving the floor as it is), the
 * earlier access is the last update, from later_turns.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: b_read
 * EXPECT-PREVIOUS: a_update first_turn
 * EXPECT-OPTIONS: --stats=1
 * EXPECT-STDERR: releases taken back
 */
#include <pthread.h>
#include <stdio.h>

#include "turns.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static struct {
  long count, last;
} record;

__attribute__((noinline)) static void a_update(long i) {
  record.count++;
  record.last = i;
}

__attribute__((noinline)) static void first_turn(void) {
  pthread_mutex_lock(&m);
  a_update(0);
  pthread_mutex_unlock(&m);
}

__attribute__((noinline)) static void later_turns(void) {
  for (long i = 1; i < 1000; i++) {
    pthread_mutex_lock(&m);
    a_update(i);
    pthread_mutex_unlock(&m);
  }
}

static void *a(void *arg) {
  (void)arg;
  first_turn();
  later_turns();
  next_turn();
  return 0;
}

__attribute__((noinline)) static long b_read(void) { return record.count; }

static void *b(void *arg) {
  (void)arg;
  wait_turn(1);
  return (void *)b_read();
}

int main(void) {
  printf("count %ld\n", run_pair(a, b));
  return 0;
}
