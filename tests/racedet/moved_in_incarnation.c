/* moved_in_incarnation.c: a covering cell moves to the current epoch only
 * within its incarnation.
 *
 * The writer stores flag (first_write -> touch), then stores through
 * 32,768 contexts (every path of a binary recursion), which fills its
 * table of sites: a new incarnation and a new epoch, and no release, so
 * its first cell still covers its second store (second_write -> touch),
 * which is not stored (racedet/access.c, more_renewed).  The cell's site
 * is a number in the first incarnation's table: moved to the current epoch
 * it would be read in the second one's, where that number names another
 * context or none.  The reader's race with it must name the first store's
 * stack (checked by letting more_renewed move cells of any incarnation:
 * then the previous stack was one of the recursion's, or none).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: read_flag
 * EXPECT-PREVIOUS: touch first_write
 */
#include "renewed_flag.h"

__attribute__((noinline)) static void first_write(void) { touch(1); }

static void *writer(void *arg) {
  (void)arg;
  first_write();
  walk(DEPTH, cells);
  second_write();
  next_turn();
  return 0;
}
