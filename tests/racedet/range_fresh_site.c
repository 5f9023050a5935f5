/* range_fresh_site.c: a copy into fresh memory is recorded with the copy's
 * context.  The writer fills a record just allocated with memcpy (each
 * whole granule of the range is fresh: racedet/access.c, range_quick, which
 * takes the range's site once); the reader, after a relaxed flag only
 * (relaxed_handoff.h), reads a field near the record's end: a race whose
 * previous access is the copy, named with its calling context.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_field reader_work reader
 * EXPECT-PREVIOUS: fill_record writer_work writer
 * EXPECT-LOCATION: heap
 * EXPECT-COUNT: 1
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct record {
  long f[12];
};
static const struct record proto = {{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
static _Atomic(struct record *) handed; /* relaxed: orders nothing */

/* the size through a volatile, so that the compiler calls memcpy (gcc
 * expands a constant-size copy into stores it does not instrument) */
static volatile size_t record_size = sizeof(struct record);
__attribute__((noinline)) void fill_record(struct record *r) { memcpy(r, &proto, record_size); }
__attribute__((noinline)) long read_field(const struct record *r) { return r->f[10]; }

__attribute__((noinline)) void writer_work(void) {
  struct record *r = malloc(sizeof *r);
  fill_record(r);
  atomic_store_explicit(&handed, r, memory_order_relaxed);
}

__attribute__((noinline)) int reader_work(void) {
  struct record *r = atomic_load_explicit(&handed, memory_order_relaxed);
  return (int)read_field(r);
}

#include "relaxed_handoff.h"
