/* own_cell_trimmed.c: a thread reads all 8 bytes of `word`, then writes
 * bytes 0-3 in the same epoch.  Its write makes its own read redundant on
 * those bytes, so the read's cell keeps bytes 4-7 only and the write takes
 * a cell of its own (access.c: check_store_in's trimmable, which
 * replace_or_check leaves to the full check: `tidied`).  Then a second
 * thread, ordered with neither access (a relaxed flag), writes bytes 0-3:
 * that races with the write, and the one report must name the write, of 4
 * bytes at offset 0.  If the write took the free cell beside the untrimmed
 * read instead, the read of bytes 0-3 would be a second previous access
 * of the same bytes, found first where its cell comes first, or reported
 * as well.
 *
 * EXPECT: race
 * EXPECT-CURRENT: write_low_again reader
 * EXPECT-PREVIOUS: write_low writer
 * EXPECT-PREVIOUS-AT: 4 0
 * EXPECT-COUNT: 1
 * EXPECT-LOCATION: global word
 */
#include <stdint.h>

_Alignas(8) volatile union {
  uint64_t all;
  uint32_t half[2];
} word;

__attribute__((noinline)) uint64_t read_all(void) { return word.all; }
__attribute__((noinline)) void write_low(void) { word.half[0] = 3; }
__attribute__((noinline)) void write_low_again(void) { word.half[0] = 4; }

__attribute__((noinline)) static void writer_work(void) {
  if (read_all() != 7) write_low();
}
__attribute__((noinline)) static int reader_work(void) {
  write_low_again();
  return 0;
}

#include "relaxed_handoff.h"
