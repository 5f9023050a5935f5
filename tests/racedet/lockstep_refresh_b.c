/* lockstep_refresh_b.c: lockstep_refresh.c with plane B in use, for the
 * refresh of an own cell among four (rd_access_more, refresh_in with n = 4).
 *
 * The reader reads bytes 0-3 here, as the writer writes them.  A third
 * thread, the bystander, reads bytes 4-7 of every x[i] after the writer and
 * the reader (in turn, under the mutex): a third cell, which shares no byte
 * with the other two (nothing to trim) and goes to plane B.  As the writer's cell happens before it, that cell moves
 * to plane B and the bystander's read takes its place in plane A
 * (keep_a_live), so the writer refreshes a plane-B cell and the reader a
 * plane-A one, each with all four cells to check.  The bystander then waits
 * at the barrier and leaves; it touches no byte the writer writes.  Every
 * one of the 64 rounds' collisions must still be reported.
 *
 * EXPECT: race
 * EXPECT-EVERY: 64 wround
 */
#define BYSTANDER 1
#define READ i
#include "lockstep_refresh.c"
