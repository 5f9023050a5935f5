/* many_atomics.c: hundreds of thousands of atomic locations alive at once,
 * each its own synchronisation object (racedet/sync.c), so that buckets
 * hold many and spread them over more chains (chains_grow), and their
 * memory freed and used again while they are many (drop_range over every
 * chain of a bucket).
 *
 * Twice, into a block allocated anew each round: producer writes
 * data[i] and then release-stores flag[i], for 300,000 locations; consumer
 * acquire-loads each flag before it reads data[i]: ordered, no race, if
 * every acquire finds the object of its flag among the others (a lookup
 * on the wrong chain finds none, or makes a second object, and each read
 * of data[i] is then a race).  Then one race: p_late writes a variable
 * and relaxed-stores a flag that c_late acquire-loads before it reads the
 * variable (a relaxed store orders nothing).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: c_late
 * EXPECT-PREVIOUS: p_late
 * EXPECT-STDOUT: rounds 2
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 300000
static int *flag;
static long data[N];
static int late, late_flag;

static void *producer(void *arg) {
  for (int i = 0; i < N; i++) {
    data[i] = i;
    __atomic_store_n(&flag[i], 1, __ATOMIC_RELEASE);
  }
  return arg;
}

static void *consumer(void *arg) {
  long sum = 0;
  for (int i = 0; i < N; i++) {
    while (!__atomic_load_n(&flag[i], __ATOMIC_ACQUIRE)) {
    }
    sum += data[i];
  }
  return (void *)sum;
}

__attribute__((noinline)) static void *p_late(void *arg) {
  late = 1;
  __atomic_store_n(&late_flag, 1, __ATOMIC_RELAXED);
  return arg;
}

__attribute__((noinline)) static void *c_late(void *arg) {
  while (!__atomic_load_n(&late_flag, __ATOMIC_ACQUIRE)) {
  }
  return (void *)(long)late;
}

static void two(void *(*a)(void *), void *(*b)(void *)) {
  pthread_t x, y;
  pthread_create(&x, NULL, a, NULL);
  pthread_create(&y, NULL, b, NULL);
  pthread_join(x, NULL);
  pthread_join(y, NULL);
}

int main(void) {
  int rounds = 0;
  for (int r = 0; r < 2; r++, rounds++) {
    flag = calloc(N, sizeof *flag);
    if (!flag) return 1;
    two(producer, consumer);
    free(flag);
  }
  printf("rounds %d\n", rounds);
  two(p_late, c_late);
  return 0;
}
