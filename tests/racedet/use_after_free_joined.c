/* use_after_free_joined.c: the main thread writes a block, a thread frees
 * it, and the main thread, having joined that thread (so the free happens
 * before everything it does next), writes and reads the block again.  The
 * free's marks are ordered before those accesses and are the only other
 * cells there, so every shortcut that takes over a cell ordered before the
 * access (dead, or subsumed by it) would find one; a freed mark must never
 * be taken over unchecked: each access after a free is a use after free,
 * synchronised or not (as ThreadSanitizer reports it).
 *
 * EXPECT: heap-use-after-free
 * EXPECT-CURRENT: write_again|read_again main
 * EXPECT-PREVIOUS: free_block freeing_thread
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static long *block;
enum { N = 8 };

__attribute__((noinline)) void fill(long v) {
  for (int i = 0; i < N; i++) block[i] = v + i;
}
__attribute__((noinline)) void free_block(void) { free(block); }
void *freeing_thread(void *a) {
  free_block();
  return a;
}
/* (words 2 and up: glibc keeps its free lists' links in the first two) */
__attribute__((noinline)) void write_again(void) {
  for (int i = 2; i < N; i++) block[i] = -i;
}
__attribute__((noinline)) long read_again(void) {
  long s = 0;
  for (int i = 2; i < N; i++) s += block[i];
  return s;
}
int main(void) {
  block = malloc(N * sizeof *block);
  fill(1);
  pthread_t t;
  pthread_create(&t, 0, freeing_thread, 0);
  pthread_join(t, 0);
  write_again();
  printf("sum %ld\n", read_again() != 0);
  return 0;
}
