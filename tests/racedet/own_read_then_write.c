/* own_read_then_write.c: the first thread reads a[1..7]; the second,
 * ordered with none of those reads (a relaxed flag), then reads and writes
 * each of a[0..7] in turn, in one epoch.  Each of its writes finds its own
 * read of the element, which the write makes redundant, and the first
 * thread's read, concurrent with it, in the granule's two cells: it takes
 * its own read's cell with the other cell's conflicts checked first
 * (access.c: replace_or_check hands such a granule to replace_in, as it
 * does one without a cell of the thread's), and races with the first
 * thread's read.  Element 0, which the first thread does not touch, puts
 * the loop's two pcs in the site caches, so that the later elements' reads
 * and writes take the paths without a frame, which check no cell they take
 * over: taking the other thread's read's cell there, for the read or the
 * write, loses the report.
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump reader
 * EXPECT-PREVIOUS: peek writer
 * EXPECT-COUNT: 1
 * EXPECT-LOCATION: global a
 */
#include <stdint.h>

_Alignas(8) volatile uint64_t a[8];

__attribute__((noinline)) uint64_t peek(void) {
  uint64_t sum = 0;
  for (int i = 1; i < 8; i++) sum += a[i];
  return sum;
}
__attribute__((noinline)) void bump(void) {
  for (int i = 0; i < 8; i++) a[i] = a[i] + 1;
}

__attribute__((noinline)) static void writer_work(void) { (void)peek(); }
__attribute__((noinline)) static int reader_work(void) {
  bump();
  return 0;
}

#include "relaxed_handoff.h"
