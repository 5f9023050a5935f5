/* ancestry_subtrees.c: two threads race from different subtrees of the
 * thread tree, each four creations below main:
 *
 *   main ─ left_level1 ─ left_level2 ─ left_level3 ─ leaf (x2)
 *        └ right_level1 ─ right_level2 ─ right_level3 ─ leaf (x2)
 *
 * The two leaves of a side serialise their writes with that side's mutex,
 * and nothing orders the two sides until main joins them, so every race is
 * between a left leaf and a right leaf.  The report must name both racing
 * threads' whole ancestry (4 + 4 threads) with the creation site at every
 * level.  (tests/racedet/
 * ancestry.c has the racing threads in one subtree, as siblings.)
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump_shared leaf
 * EXPECT-PREVIOUS: bump_shared leaf
 * EXPECT-THREADS: 8
 * EXPECT-CREATION: spawn_two_leaves left_level2|right_level2 left_level1|right_level1 main
 */
#include <pthread.h>
#include <stdio.h>

long shared_counter;
static pthread_mutex_t side_lock[2] = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_MUTEX_INITIALIZER};

__attribute__((noinline)) void bump_shared(void) { shared_counter += 1; }

void *leaf(void *side) {
  pthread_mutex_t *m = &side_lock[*(const char *)side == 'r'];
  pthread_mutex_lock(m);
  bump_shared();
  pthread_mutex_unlock(m);
  return side;
}

__attribute__((noinline)) void spawn_two_leaves(void *side) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, leaf, side);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
}

__attribute__((noinline)) void *left_level3(void *a) { spawn_two_leaves(a); return a; }
__attribute__((noinline)) void *left_level2(void *a) {
  pthread_t t;
  pthread_create(&t, 0, left_level3, a);
  pthread_join(t, 0);
  return a;
}
__attribute__((noinline)) void *left_level1(void *a) {
  pthread_t t;
  pthread_create(&t, 0, left_level2, a);
  pthread_join(t, 0);
  return a;
}
__attribute__((noinline)) void *right_level3(void *a) { spawn_two_leaves(a); return a; }
__attribute__((noinline)) void *right_level2(void *a) {
  pthread_t t;
  pthread_create(&t, 0, right_level3, a);
  pthread_join(t, 0);
  return a;
}
__attribute__((noinline)) void *right_level1(void *a) {
  pthread_t t;
  pthread_create(&t, 0, right_level2, a);
  pthread_join(t, 0);
  return a;
}

int main(void) {
  pthread_t l, r;
  pthread_create(&l, 0, left_level1, "left");
  pthread_create(&r, 0, right_level1, "right");
  pthread_join(l, 0);
  pthread_join(r, 0);
  printf("%ld\n", shared_counter);
  return 0;
}
