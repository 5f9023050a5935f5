/* straddle_pieces_first.c: straddle_pieces.c with the loads the other way
 * round: bytes 7-10 (the first granule's 7, the second's 0-2), then bytes
 * 6-9 (6-7, and 0-1).  The second load's second piece is recorded by the
 * first load, and its first piece is not: byte 6 is new, and the reader's
 * write of byte 6 races with the second load only.  A check whose mask of
 * the first piece were one byte short (byte 7) would lose the report.
 *
 * EXPECT: race
 * EXPECT-PREVIOUS: read_6_to_9 writer
 * EXPECT-CURRENT: write_new_byte reader
 * EXPECT-LOCATION: global buf
 */
#define FIRST_PIECE_NEW 1
#include "straddle_pieces.c"
