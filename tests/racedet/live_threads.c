/* live_threads.c: 4,500 threads alive at once, and a race between the first
 * and the last of them.
 *
 * A shadow cell names its thread by a slot, and a slot is reused only by a
 * thread whose creator has seen its last occupant end (racedet/rd_thread.c):
 * threads alive together each need a slot of their own.  With 12-bit slots
 * the 4,097th thread alive got none, and detection was off for it and every
 * later thread (a warning, and this race went unreported); 13 bits give
 * 8,192 (clang's TSan checks 6,000 live threads too).
 *
 * Every thread writes its own word, then waits on a barrier with main.  The
 * first and the last thread also write `victim` before the barrier, which
 * nothing orders: main creates the last thread without having synchronised
 * with the first.
 *
 * EXPECT: race
 * EXPECT-CURRENT: write_victim
 * EXPECT-PREVIOUS: write_victim
 * EXPECT-NAMES: first last
 * EXPECT-STDOUT: live 4500
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 4500

static pthread_barrier_t barrier;
static int words[THREADS];
long victim; /* global and printed: the writes stay */

__attribute__((noinline)) void write_victim(long i) { victim = i; }

static void *run(void *arg) {
  const long i = (long)arg;
  words[i] = 1;
  if (i == 0 || i == THREADS - 1) {
    pthread_setname_np(pthread_self(), i ? "last" : "first");
    write_victim(i);
  }
  pthread_barrier_wait(&barrier);
  return 0;
}

int main(void) {
  static pthread_t t[THREADS];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 16);
  pthread_barrier_init(&barrier, 0, THREADS + 1);
  for (long i = 0; i < THREADS; i++)
    if (pthread_create(&t[i], &attr, run, (void *)i)) {
      perror("pthread_create");
      return 1;
    }
  pthread_barrier_wait(&barrier);
  int sum = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], 0);
    sum += words[i];
  }
  printf("live %d victim %ld\n", sum, victim);
  return 0;
}
