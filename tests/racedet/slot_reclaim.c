/* slot_reclaim.c: thread slots whose epochs are used up serve again.
 *
 * A cell names its thread by a slot and an epoch of 20 bits; a thread
 * moves to a fresh slot after a million releases, and a used-up slot is
 * swept out of the shadow and serves again a generation on, behind every
 * clock that saw it before (racedet/rd_thread.c, reclaim).  Without that,
 * a process had about eight billion releases (a thread locking a mutex in a
 * loop spends them in some 19 minutes), and detection then stopped for
 * every thread that needed a slot.
 *
 * Here the runtime has 32 slots of 64 epochs (options slot_epochs, slots):
 * 2,048 releases use up every slot.  Four threads lock a mutex 12,000 times
 * each (48,000 releases: the slots are used up and reclaimed over and
 * over), passing a counter and a record between them under it: no report
 * may come of that (a clock that confused a slot's generations would see
 * the other threads' accesses as unordered).  Then two new threads race on
 * `victim`: it must be reported, which needs slots for them.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: write_victim
 * EXPECT-PREVIOUS: write_victim
 * EXPECT-NAMES: racer-a racer-b
 * EXPECT-OPTIONS: --slot-epochs=64 --slots=32 --stats=1
 * EXPECT-STDERR: thread slots reclaimed
 * EXPECT-STDERR-LACKS: race detection is off
 * EXPECT-STDOUT: counter 48000 record 48000
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>

#include "racers.h"

#define THREADS 4
#define ROUNDS 12000

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long counter;
static struct {
  long last, sum, by[THREADS];
} record;

__attribute__((noinline)) void step(long me) {
  pthread_mutex_lock(&mu);
  counter++;
  record.sum += record.last; /* the last thread's write, read by the next */
  record.last = me;
  record.by[me]++;
  pthread_mutex_unlock(&mu);
}

static void *burn(void *arg) {
  for (int i = 0; i < ROUNDS; i++) step((long)arg);
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], 0, burn, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  long by = 0;
  for (int i = 0; i < THREADS; i++) by += record.by[i];
  race_two();
  printf("counter %ld record %ld victim %ld\n", counter, by, victim);
  return 0;
}
