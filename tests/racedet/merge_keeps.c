/* merge_keeps.c: a merge must not clear another thread's concurrent cell
 * that the merged cell now covers.  The reader reads byte 1 of x; main then
 * reads bytes 0-3 one at a time in one function (byte 0 takes a cell, each
 * next byte is merged into it, check_store_in): the merged cell covers the
 * reader's byte, but the reader's read does not happen before main's, so
 * it stays.  The writer then writes byte 1: it races with
 * both reads, two reports.  Relaxed flags order the three and nothing for
 * the detector.  If the merge cleared the reader's cell (clearing what it
 * covers without asking happens-before), the race with read_0 is lost.
 *
 * EXPECT: race
 * EXPECT-CURRENT: write_byte writer
 * EXPECT-EVERY: 2 read
 * EXPECT-COUNT: 2
 */
#include <stdio.h>

#include "turns.h"

static char x[8] __attribute__((aligned(8)));

__attribute__((noinline)) long read_0(void) { return x[1]; }
__attribute__((noinline)) long read_1(const char *p) {
  long s = p[0];
  s = s * 3 + p[1];
  s = s * 3 + p[2];
  return s * 3 + p[3];
}
__attribute__((noinline)) void write_byte(void) { x[1] = 7; }

static void *reader(void *a) {
  (void)a;
  long v = read_0();
  next_turn();
  return (void *)v;
}

static void *writer(void *a) {
  (void)a;
  wait_turn(2);
  write_byte(); /* races with read_0 and read_1: nothing orders them */
  return 0;
}

int main(void) {
  pthread_t r, w;
  pthread_create(&w, 0, writer, 0); /* before main's reads: creation orders nothing after */
  pthread_create(&r, 0, reader, 0);
  wait_turn(1);
  long v = read_1(x);
  next_turn();
  pthread_join(r, 0);
  pthread_join(w, 0);
  printf("read %ld\n", v);
  return 0;
}
