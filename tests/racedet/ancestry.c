/* ancestry.c: the racing threads are four levels below main; the report
 * names every ancestor with the place it was created.
 *
 * EXPECT: race
 * EXPECT-CURRENT: touch leaf_worker
 * EXPECT-PREVIOUS: touch leaf_worker
 * EXPECT-THREADS: 4
 * EXPECT-CREATION: spawn_level3 spawn_level2 spawn_level1 main
 */
#include <pthread.h>
#include <stdio.h>

int shared_total;
__attribute__((noinline)) void touch(void) { shared_total += 1; }
void *leaf_worker(void *a) { touch(); return a; }
void *spawn_level3(void *a) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, leaf_worker, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return a;
}
void *spawn_level2(void *a) {
  pthread_t t;
  pthread_create(&t, 0, spawn_level3, 0);
  pthread_join(t, 0);
  return a;
}
void *spawn_level1(void *a) {
  pthread_t t;
  pthread_create(&t, 0, spawn_level2, 0);
  pthread_join(t, 0);
  return a;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, spawn_level1, 0);
  pthread_join(t, 0);
  printf("%d\n", shared_total);
  return 0;
}
