/* straddle_pieces.c: an unaligned access across a granule boundary ends
 * early (racedet/access.c, rd_access_unaligned) only when each granule's
 * piece, with exactly its bytes, is already recorded.
 *
 * The writer thread makes two unaligned 4-byte loads in one epoch: bytes
 * 6-9 (the first granule's 6-7, the second's 0-1), then bytes 7-10 (7, and
 * 0-2).  The second load's first piece is recorded by the first load, and
 * its second piece is not: byte 10 is new.  Then the reader thread,
 * ordered with nothing of the writer (relaxed_handoff.h), writes byte 10,
 * which races with the second load only.  A check whose mask of the second
 * piece were one byte short (bytes 0-1) would find that piece recorded
 * too, never record byte 10, and lose the report.  straddle_pieces_first.c
 * makes the loads the other way round (FIRST_PIECE_NEW): the first piece
 * new, the second recorded.  (clang calls __tsan_unaligned_read4; gcc
 * __tsan_read_range, whose granule-by-granule check must agree.)
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: read_7_to_10 writer
 * EXPECT-CURRENT: write_new_byte reader
 * EXPECT-LOCATION: global buf
 */
#include <stdint.h>
#include <stdio.h>

#ifndef FIRST_PIECE_NEW
#define FIRST_PIECE_NEW 0
#endif
#define NEW_BYTE (FIRST_PIECE_NEW ? 6 : 10) /* read by the second load only */

struct __attribute__((packed)) at6 {
  unsigned char pad[6];
  uint32_t v; /* bytes 6-9 */
};
struct __attribute__((packed)) at7 {
  unsigned char pad[7];
  uint32_t v; /* bytes 7-10 */
};
_Alignas(8) volatile union {
  unsigned char b[16];
  struct at6 s6;
  struct at7 s7;
} buf;

__attribute__((noinline)) uint32_t read_6_to_9(void) { return buf.s6.v; }
__attribute__((noinline)) uint32_t read_7_to_10(void) { return buf.s7.v; }
__attribute__((noinline)) void write_new_byte(void) { buf.b[NEW_BYTE] = 9; }

static uint32_t sum;
__attribute__((noinline)) static void writer_work(void) { /* (one load a statement: in order) */
  if (FIRST_PIECE_NEW) {
    sum = read_7_to_10();
    sum += read_6_to_9();
  } else {
    sum = read_6_to_9();
    sum += read_7_to_10();
  }
}
__attribute__((noinline)) static int reader_work(void) {
  write_new_byte();
  printf("%d\n", buf.b[NEW_BYTE]);
  return 0;
}

#include "relaxed_handoff.h"
