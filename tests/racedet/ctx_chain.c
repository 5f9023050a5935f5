/* ctx_chain.c: more contexts under one ccStack node than its chain keeps.
 * A node's first 8 contexts are found from the node, the rest through the
 * global index (racedet/rd_thread.c, intern_ctx).  Main first runs the
 * recursion below many times (on an array of its own, each time after a
 * release, so that its stores capture their contexts and make the lazy
 * pushes), so that the encoder re-encodes: the calls to the leaves are
 * encoded, and only the recursion's own calls push the ccStack.  Then two
 * threads each recurse to the same depth and at the bottom call twelve
 * leaves, each writing a variable of its own: twelve contexts under one
 * ccStack node, made by whichever thread comes first and found by the
 * other, some in the chain, some in the index.
 * Each of the twelve races must be reported with its own leaf and its
 * caller on top of both stacks, and the whole recursion below them.
 *
 * EXPECT: race
 * EXPECT-EVERY: 12 leaf via
 * EXPECT-COUNT: 12
 * EXPECT-CURRENT: rec rec rec rec rec rec rec worker
 * EXPECT-PREVIOUS: rec rec rec rec rec rec rec worker
 */
#include <pthread.h>

#define DEPTH 6
#define LEAVES 12

long shared[LEAVES], own[LEAVES];

/* leaf_<i>'s context under the recursion's node is rec -> via_<i> ->
 * leaf_<i>: another leaf's record would put another via_ under it (the
 * innermost frame is the pc's own function, whatever the record says) */
#define LEAF(i)                                                          \
  __attribute__((noinline)) void leaf_##i(long *v) { v[i] = i + 1; }     \
  __attribute__((noinline)) void via_##i(long *v) {                      \
    leaf_##i(v);                                                         \
    __asm__ volatile("" ::: "memory");                                   \
  }
LEAF(0) LEAF(1) LEAF(2) LEAF(3) LEAF(4) LEAF(5)
LEAF(6) LEAF(7) LEAF(8) LEAF(9) LEAF(10) LEAF(11)

__attribute__((noinline)) void rec(int d, long *v) {
  if (d) {
    rec(d - 1, v);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return;
  }
  via_0(v); via_1(v); via_2(v); via_3(v); via_4(v); via_5(v);
  via_6(v); via_7(v); via_8(v); via_9(v); via_10(v); via_11(v);
}

__attribute__((noinline)) static void *worker(void *arg) {
  rec(DEPTH, arg);
  return 0;
}

int main(void) {
  static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  for (int i = 0; i < 2000; i++) { /* each round after a release: its stores are captured */
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
    rec(DEPTH, own);
  }
  pthread_t a, b;
  pthread_create(&a, 0, worker, shared);
  pthread_create(&b, 0, worker, shared);
  pthread_join(a, 0);
  pthread_join(b, 0);
  return own[LEAVES - 1] != LEAVES;
}
