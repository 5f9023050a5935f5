/* merged_fields.c: one function sets the two 4-byte fields of a struct,
 * one statement each, in one granule: the detector merges the two writes
 * into one shadow cell (same thread, epoch, kind and calling context; a
 * different instruction each).  The reader then reads the second field
 * after a relaxed flag, which orders nothing: the race with the second
 * write must still be found through the merged cell, and the report must
 * say that its previous access's top frame is the first of the merged
 * writes (the line marked MERGED-FIRST), not pass it off as exact.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_b reader
 * EXPECT-PREVIOUS: set_fields writer
 * EXPECT-MERGED: set_fields
 */
struct pair {
  int a, b;
};
struct pair s __attribute__((aligned(8))); /* one granule; not static: not split */

__attribute__((noinline)) void set_fields(void) {
  s.a = 1; /* MERGED-FIRST */
  __asm__ volatile("" ::: "memory"); /* two stores, not one 8-byte store */
  s.b = 2;
}
__attribute__((noinline)) int read_b(void) { return s.b; }

__attribute__((noinline)) static void writer_work(void) {
  set_fields();
}
__attribute__((noinline)) static int reader_work(void) { return read_b(); }

#include "relaxed_handoff.h"
