/* renewed_flag.h: what moved_in_incarnation.c and taken_back_renewed.c
 * share.  The writer (each test's own) writes flag through touch, and
 * fills its table of sites with walk (every path of a binary recursion to
 * 2^DEPTH leaves, each leaf writing a granule of its own: 32,768 contexts,
 * and a new incarnation: racedet/site.c); second_write is the write whose
 * stack the report must name.  Then the reader reads flag (read_flag),
 * ordered with the writer by nothing but a relaxed turn. */
#include <pthread.h>
#include <stdio.h>

#include "turns.h"

#define DEPTH 15

static long flag;
static long cells[1 << DEPTH]; /* one granule per leaf */

__attribute__((noinline)) static void touch(long v) { flag = v; }
__attribute__((noinline)) static void second_write(void) { touch(2); }

/* every path to a leaf is a context of its own */
__attribute__((noinline)) static void walk(int d, long *p) {
  if (!d) {
    *p = 1;
    return;
  }
  walk(d - 1, p);
  walk(d - 1, p + (1 << (d - 1)));
}

__attribute__((noinline)) static long read_flag(void) { return flag; }

static void *reader(void *arg) {
  (void)arg;
  wait_turn(1);
  return (void *)read_flag();
}

static void *writer(void *arg); /* the test's */

int main(void) {
  printf("flag %ld\n", run_pair(writer, reader));
  return 0;
}
