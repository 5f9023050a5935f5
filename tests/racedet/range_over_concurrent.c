/* range_over_concurrent.c: a copy over another thread's concurrent write
 * races with it.  main fills a record before it starts the two threads;
 * the writer then writes one field of it; the reader, after a relaxed flag
 * only (relaxed_handoff.h), copies over the whole record.  Every granule
 * but the field's holds main's cell, which the copy subsumes (ordered
 * before it: racedet/access.c, range_quick's third case takes them); the
 * field's holds the writer's, which it does not, so that granule takes the
 * full check and the race is reported there, once.  Had the quick path
 * taken the writer's cell for subsumed too, there would be no report.
 *
 * EXPECT: race
 * EXPECT-CURRENT: copy_record reader_work reader
 * EXPECT-PREVIOUS: write_field writer_work writer
 * EXPECT-LOCATION: global rec
 * EXPECT-COUNT: 1
 */
#include <string.h>

struct record {
  long f[8];
} rec;
static const struct record proto = {{1, 2, 3, 4, 5, 6, 7, 8}};

__attribute__((noinline)) void write_field(void) { rec.f[5] = 42; }
/* the size through a volatile, so that the compiler calls memcpy (gcc
 * expands a constant-size copy into stores it does not instrument) */
static volatile size_t rec_size = sizeof rec;
__attribute__((noinline)) void copy_record(void) { memcpy(&rec, &proto, rec_size); }

__attribute__((noinline)) void writer_work(void) { write_field(); }
static void fill(void) { memset(&rec, 1, sizeof rec); }
#define HANDOFF_BEFORE fill

__attribute__((noinline)) int reader_work(void) {
  copy_record();
  return (int)rec.f[0];
}

#include "relaxed_handoff.h"
