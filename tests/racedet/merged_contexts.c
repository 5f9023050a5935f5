/* merged_contexts.c: the same function writes the two 4-byte fields of a
 * struct (one granule) from two different call paths, in one epoch: the
 * same instruction-level pattern as merged_fields.c, but two calling
 * contexts, which must not share a site (they share a cell whose site is
 * split: split_contexts.c).  The reader then reads the second field after
 * a relaxed flag (which orders nothing): the report's previous access must
 * be the write made through path_b, with an exact line, of its 4 bytes,
 * not the one through path_a.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_b reader
 * EXPECT-PREVIOUS: set_field path_b writer
 * EXPECT-EXACT: set_field
 * EXPECT-PREVIOUS-AT: 4 4
 */
struct pair {
  int a, b;
};
struct pair s __attribute__((aligned(8))); /* one granule; not static: not split */

__attribute__((noinline)) void set_field(int *f, int v) { *f = v; }
__attribute__((noinline)) void path_a(void) { set_field(&s.a, 1); }
__attribute__((noinline)) void path_b(void) { set_field(&s.b, 2); }
__attribute__((noinline)) int read_b(void) { return s.b; }

__attribute__((noinline)) static void writer_work(void) {
  path_a();
  path_b();
}
__attribute__((noinline)) static int reader_work(void) { return read_b(); }

#include "relaxed_handoff.h"
