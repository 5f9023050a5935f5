/* thread_churn.c: 66,048 threads over a run, a few alive at a time, and a
 * race found after them between the right two threads.
 *
 * Shadow cells name a thread by a 16-bit slot.  A thread's slot goes to a
 * later thread only when that thread's creator has seen the first one end
 * (racedet/rd_thread.c): here every batch is joined before the next, so
 * slots are reused and detection stays on past 65,535 threads (the old
 * runtime turned it off for later threads and missed this race; each new
 * thread also copied a clock as long as all threads ever created).
 *
 * Then old_writer writes `victim` and ends; main joins it and starts
 * new_thread, which takes old_writer's slot (the most recently freed) and
 * makes accesses there too.  late_reader, started at the beginning and
 * ordered with neither, reads `victim`: the report must name old_writer,
 * the thread whose access the cell holds, not its slot's new occupant.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_victim late_reader
 * EXPECT-PREVIOUS: write_victim old_writer
 * EXPECT-NAMES: late-reader old-writer
 * EXPECT-STDOUT: threads 66048
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define THREADS 66048 /* 1032 batches of 64, past 65,535 */
#define ALIVE 64

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static long started;
static long victim, other[64];
static int go; /* relaxed: orders nothing */

static void *short_lived(void *arg) {
  pthread_mutex_lock(&m);
  started++;
  pthread_mutex_unlock(&m);
  return arg;
}

__attribute__((noinline)) void write_victim(void) { victim = 1; }
__attribute__((noinline)) long read_victim(void) { return victim; }

void *old_writer(void *arg) {
  pthread_setname_np(pthread_self(), "old-writer");
  write_victim();
  return arg;
}
void *new_thread(void *arg) {
  pthread_setname_np(pthread_self(), "new-thread");
  for (int i = 0; i < 64; i++) other[i] = i; /* accesses in the reused slot */
  return arg;
}
void *late_reader(void *arg) {
  pthread_setname_np(pthread_self(), "late-reader");
  while (!__atomic_load_n(&go, __ATOMIC_RELAXED)) sched_yield();
  return (void *)read_victim();
}

int main(void) {
  pthread_t reader, t[ALIVE];
  pthread_create(&reader, 0, late_reader, 0);
  for (int done = 0; done < THREADS; done += ALIVE) {
    for (int i = 0; i < ALIVE; i++) pthread_create(&t[i], 0, short_lived, 0);
    for (int i = 0; i < ALIVE; i++) pthread_join(t[i], 0);
  }
  pthread_create(&t[0], 0, old_writer, 0);
  pthread_join(t[0], 0);
  pthread_create(&t[0], 0, new_thread, 0);
  pthread_join(t[0], 0);
  __atomic_store_n(&go, 1, __ATOMIC_RELAXED);
  pthread_join(reader, 0);
  printf("threads %ld\n", started);
  return 0;
}
