/* refresh_conflict_b.c: refresh_conflict.c with plane B in use and both
 * cells of the race in it, for the refresh of an own cell among four
 * (rd_access_more, refresh_in with n = 4): the refresh must check the
 * plane-B cell next to its own before it stores.
 *
 * The race is on bytes 0-3 here.  Two bystanders read bytes 6 and 7 of x
 * first: plane A's two cells, of accesses that nothing orders with what
 * follows (relaxed flags) and that share no byte with it, so that no later
 * access may take their cells.
 * main then writes bytes 0-3 (first_write), which goes to plane B, and
 * hands over to the reader through a mutex; the reader's read of bytes 0-3
 * is ordered after that write, races with nothing then, and takes plane
 * B's other cell.  main then writes bytes 0-3 again after a relaxed flag:
 * its own plane-B cell from the earlier epoch is refreshed, and the
 * reader's read, in the other plane-B cell, races with this write.
 *
 * EXPECT: race
 * EXPECT-CURRENT: second_write main
 * EXPECT-PREVIOUS: read_x reader
 * EXPECT-COUNT: 1
 */
#define BYSTANDERS 2
#define X i /* bytes 0-3 */
#include "refresh_conflict.c"
