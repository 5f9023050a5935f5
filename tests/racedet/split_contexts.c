/* split_contexts.c: three functions, reached by three call paths, write the
 * three fields of a struct that fills one granule, in one epoch: bytes 0-1,
 * then 4-7, then 2-3, between the other two.  The detector keeps them in
 * one shadow cell whose site is split twice (racedet/site.c: a split site
 * names one access for the bytes below a boundary and another for the
 * rest).  The reader then reads the middle field after a relaxed flag,
 * which orders nothing: the report's previous access must be the write of
 * that field, through path_b, of its 2 bytes at offset 2, with an exact
 * line; not the write of the first field, nor an access of 8 bytes.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_mid reader
 * EXPECT-PREVIOUS: set_short path_b writer
 * EXPECT-PREVIOUS-AT: 2 2
 * EXPECT-EXACT: set_short
 * EXPECT-COUNT: 1
 */
struct trio {
  short a, b;
  int c;
};
struct trio s __attribute__((aligned(8))); /* one granule; not static: not split */

__attribute__((noinline)) void set_short(short *f, short v) { *f = v; }
__attribute__((noinline)) void set_int(int *f, int v) { *f = v; }
__attribute__((noinline)) void path_a(void) { set_short(&s.a, 1); }
__attribute__((noinline)) void path_b(void) { set_short(&s.b, 2); }
__attribute__((noinline)) void path_c(void) { set_int(&s.c, 3); }
__attribute__((noinline)) int read_mid(void) { return s.b; }

__attribute__((noinline)) static void writer_work(void) {
  path_a();
  path_c();
  path_b();
}
__attribute__((noinline)) static int reader_work(void) { return read_mid(); }

#include "relaxed_handoff.h"
