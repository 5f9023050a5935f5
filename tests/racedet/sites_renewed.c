/* sites_renewed.c: a context stored before its thread's table of sites was
 * renewed, and again after.  A table holds 16,383 contexts (racedet/site.c);
 * the writer stores through 32,768 contexts (every path of a binary
 * recursion, each leaf writing a granule of its own: the encoder adapts to
 * the recursion meanwhile, and the table is renewed), then once through
 * writer_work -> touch, then through 16,384 of the recursion's contexts
 * (other granules: the table is renewed again, and holds fewer entries
 * than the earlier one did at touch), then through writer_work -> touch
 * again, at the same call site: the same context, whose record still names
 * its entry in the earlier table.  The
 * store after the renewal must be given an entry of the new table, not
 * that number (which there names one of the recursion's leaves): the
 * report of its race with the reader must name touch and writer_work.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_flag reader_work
 * EXPECT-PREVIOUS: touch writer_work
 * EXPECT-COUNT: 1
 */
#define DEPTH 15

long warm, flag;
static long cells[2][1 << DEPTH]; /* one granule per leaf and round */

__attribute__((noinline)) void touch(long *p, long v) { *p = v; }

/* every path to a leaf is a context of its own */
__attribute__((noinline)) static void walk(int d, long *p) {
  if (!d) {
    *p = 1;
    return;
  }
  walk(d - 1, p);
  walk(d - 1, p + (1 << (d - 1)));
}

__attribute__((noinline)) static void writer_work(void) {
  /* a volatile count: no unrolled copy with call sites of its own */
  for (volatile int i = 0; i < 2; i++) {
    walk(DEPTH - i, cells[i]);
    touch(i ? &flag : &warm, i + 1); /* one call site: one context */
  }
}
__attribute__((noinline)) long read_flag(void) { return flag; }
__attribute__((noinline)) static int reader_work(void) { return (int)read_flag(); }

#include "relaxed_handoff.h"
