/* merge_conflict.c: a race found when the later access is merged into
 * the thread's cell of the same epoch (check_store_in's merge; a shortcut
 * for merges, b475bc5, was taken out again, and one may come back).  The
 * reader reads byte 3 of x.  main then writes bytes 0, 1, 2 and 3 one at a
 * time in one function, after a relaxed flag (which orders nothing): byte
 * 0 takes a cell of its own, and each next byte is merged into it.  The
 * write of byte 3 races with the reader's read, and nothing else looks at
 * that pair: the race is lost if a merge skips checking the other cells
 * (as the shortcut's mutation without that check showed).
 * merge_conflict_b.c makes the same race with plane B in use.
 *
 * EXPECT: race
 * EXPECT-CURRENT: write_bytes main
 * EXPECT-PREVIOUS: read_byte reader
 * EXPECT-COUNT: 1
 */
#include <stdio.h>

#ifndef BYSTANDERS
#define BYSTANDERS 0 /* merge_conflict_b.c: two threads that read bytes 6 and 7 first */
#endif
static char x[8] __attribute__((aligned(8)));
#define BYSTANDER_BYTES x
#include "turns.h"

/* four stores of different values: the compiler keeps them four accesses */
__attribute__((noinline)) void write_bytes(char *p) {
  p[0] = 1;
  p[1] = 2;
  p[2] = 3;
  p[3] = 4;
}
__attribute__((noinline)) long read_byte(int i) { return x[i]; }

static void *reader(void *a) {
  (void)a;
  wait_turn(BYSTANDERS);
  long v = read_byte(3);
  next_turn();
  return (void *)v;
}

int main(void) {
  pthread_t th[BYSTANDERS + 1];
  start(th, reader);
  wait_turn(BYSTANDERS + 1);
  write_bytes(x); /* byte 3 races with read_byte: nothing orders them */
  printf("read %ld\n", join_all(th) + x[0]);
  return 0;
}
