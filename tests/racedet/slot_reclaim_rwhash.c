/* slot_reclaim_rwhash.c: bench/kernels/rwhash.c (a hash table behind 64
 * striped rwlocks, four threads, 90% lookups) with thread slots of 64
 * epochs, so that slots are used up, swept out of the shadow and given out
 * again hundreds of times a second (racedet/rd_thread.c, reclaim): a
 * race-free program must stay without reports through it, and its own
 * check of its result must hold.  (At the benchmark's size of 1,000,000:
 * 63,444 slots reclaimed in 1,524 sweeps that cleared 39.5 million cells,
 * no report; so with SQLite and the thread pool.)
 *
 * EXPECT: clean
 * EXPECT-OPTIONS: --slot-epochs=64 --stats=1
 * EXPECT-STDERR: thread slots reclaimed
 * EXPECT-STDOUT: rwhash size 60000
 */
#define main rwhash_main
#include "../../bench/kernels/rwhash.c"
#undef main

int main(void) {
  char *argv[] = {"rwhash", "60000", 0};
  return rwhash_main(2, argv);
}
