/* merge_conflict_b.c: merge_conflict.c with plane B in use and both cells
 * of the race in it, for a merge into a cell among four: the merge must
 * check the plane-B cell next to its own before it stores (the shortcut of
 * b475bc5, checking plane A only, lost this race).
 *
 * Two bystanders read bytes 6 and 7 of x first: plane A's two cells, of
 * accesses that nothing orders with what follows (relaxed flags) and that
 * share no byte with it, so that no later access may take their cells.
 * The reader's read of byte 3 then goes to plane B, and main's writes of
 * bytes 0-3 to plane B's other cell, merged there byte by byte.
 *
 * EXPECT: race
 * EXPECT-CURRENT: write_bytes main
 * EXPECT-PREVIOUS: read_byte reader
 * EXPECT-COUNT: 1
 */
#define BYSTANDERS 2
#include "merge_conflict.c"
