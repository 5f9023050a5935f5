/* detached_churn.c: threads started detached, whose ends nothing
 * synchronises with, all run long, then a race.
 *
 * A thread slot goes to a new thread only if the new thread's creator has
 * seen the slot's last occupant end (racedet/rd_thread.c): nobody sees a
 * detached thread's end here, so each keeps its slot.  With no other slot
 * left, a new thread now takes such a slot over (the old occupant's accesses
 * become its own past: races between the two are lost).  Before, the slots
 * ran out (here: option slots=16, so after 16 detached threads; by default
 * after 8192) and every later thread went unchecked: the race below was
 * missed.
 *
 * 200 detached threads each write their own word and count themselves out
 * (a relaxed atomic, which orders nothing); main waits for the count, then
 * starts two threads that write `victim` without synchronisation.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: write_victim
 * EXPECT-PREVIOUS: write_victim
 * EXPECT-NAMES: racer-a racer-b
 * EXPECT-OPTIONS: --slots=16 --stats=1
 * EXPECT-STDERR: thread slots taken over from threads that ended unseen
 * EXPECT-STDERR-LACKS: are not checked
 * EXPECT-STDOUT: detached 200
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

#include "racers.h"

#define DETACHED 200

static long words[DETACHED];
static atomic_int done;

static void *detached(void *arg) {
  words[(long)arg] = (long)arg;
  atomic_fetch_add_explicit(&done, 1, memory_order_relaxed);
  return 0;
}

int main(void) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (long i = 0; i < DETACHED; i++) {
    pthread_t t;
    if (pthread_create(&t, &attr, detached, (void *)i)) {
      perror("pthread_create");
      return 1;
    }
    /* a few alive at a time: the slots run out by their ends, not by
     * threads alive at once */
    while (i + 1 - atomic_load_explicit(&done, memory_order_relaxed) > 4) sched_yield();
  }
  while (atomic_load_explicit(&done, memory_order_relaxed) < DETACHED) sched_yield();
  race_two();
  printf("detached %d victim %ld\n", atomic_load(&done), victim);
  return 0;
}
