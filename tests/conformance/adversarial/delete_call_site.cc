// delete_call_site.cc: the freeing access of a `delete`, whose free() is
// reached through libstdc++'s uninstrumented operator delete, must be placed
// at the delete itself.  The block is allocated in an inlined helper
// (make_block); a runtime that takes the caller's pc from its last
// interceptor call instead reports the free inside make_block, at the `new`
// (it did: gcc's g++.dg/tsan/atomic_free.C at -O2 put the delete inside
// barrier_init).  The other thread writes the block first; main then deletes
// it with no synchronisation (the flag is relaxed).
//
// EXPECT: race
// EXPECT-CURRENT: main
// EXPECT-PREVIOUS: fill_block worker
// EXPECT-ABSENT: make_block
// EXPECT-LOCATION: heap
#include <pthread.h>

static int *block;
static int filled;

static inline __attribute__((always_inline)) void make_block(void) { block = new int[4](); }

__attribute__((noinline)) void fill_block(void) { block[1] = 7; }

void *worker(void *) {
  fill_block();
  __atomic_store_n(&filled, 1, __ATOMIC_RELAXED);  // orders nothing
  return nullptr;
}

int main() {
  make_block();
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  while (!__atomic_load_n(&filled, __ATOMIC_RELAXED)) {
  }
  delete[] block;  // the free must be reported here, in main
  pthread_join(t, 0);
  return 0;
}
