/* taken_back_renewed.c: a release taken back after the thread's table of
 * sites was renewed.  A thread's accesses are stamped with the later of its
 * floor and its incarnation's first epoch (racedet.h, rd_restamp), not with
 * the floor alone.
 *
 * The writer takes and drops mutex m (the release: a new epoch, and the
 * floor moves up to it), then stores through 32,768 contexts (every path of
 * a binary recursion), which fills its table of sites: a new incarnation
 * and a new epoch, and no release.  It takes m again: the release is taken
 * back (nobody else touched m), and the floor goes back to before it, an
 * epoch of the first incarnation.  Under m it then writes flag
 * (second_write -> touch), a site numbered in the second incarnation's
 * table.  Stamped with the floor, the cell's epoch would name the first
 * incarnation, where that number names another context or none: the
 * reader's race with the write must name second_write (checked by
 * stamping with the floor alone: the previous stack was then one of the
 * recursion's).
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: read_flag
 * EXPECT-PREVIOUS: touch second_write
 * EXPECT-OPTIONS: --stats=1
 * EXPECT-STDERR: releases taken back
 */
#include "renewed_flag.h"

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static void *writer(void *arg) {
  (void)arg;
  pthread_mutex_lock(&m);
  pthread_mutex_unlock(&m);
  walk(DEPTH, cells);
  pthread_mutex_lock(&m);
  second_write();
  pthread_mutex_unlock(&m);
  next_turn();
  return 0;
}
