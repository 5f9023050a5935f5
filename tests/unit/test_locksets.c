/* test_locksets.c: the set of held mutexes that every access's context
 * carries (reports name the mutexes each access held).  A thread keeps the
 * id of its interned set, and a cache of set changes (lock or unlock of one
 * mutex from a given set) so that taking and dropping the same mutexes over
 * and over does not intern held[] each time (rd_lockset_step).  Random lock
 * and unlock sequences over a few mutexes, some read-locked: whenever the
 * thread says its set is known, and after each resolution at an access
 * (rd_ctx_handle), the set behind the id must be exactly held[], and a
 * change that leaves nothing held must give the empty set at once.  A fixed
 * pattern repeated, as a program takes its locks: after the first round
 * the cache must answer nearly every change.  Then random sequences past
 * 16 mutexes, where only the first 16 are kept. */
#include <string.h>

#include "../../racedet/racedet.h"

#include "check.h"

static uint64_t seed = 88172645463325252ull;
static uint64_t rnd(void) {
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return seed;
}

/* Is the interned set id exactly the first min(nheld, 16) of held[]? */
static int set_is_held(const rd_thread *r, uint32_t id) {
  uint32_t n = r->nheld < 16 ? r->nheld : 16;
  if (!id) return n == 0;
  rd_lockset ls;
  return rd_lockset_read(id, &ls) && ls.n == n && !memcmp(ls.a, r->held, n * sizeof r->held[0]);
}

static int bad_known, bad_resolved, known, steps, bad_empty;

static void step(dc_thread *t, const uintptr_t *m, int nm, int maxheld) {
  rd_thread *r = &t->rd;
  if (r->nheld && (r->nheld >= (uint32_t)maxheld || rnd() % 2)) {
    /* unlock: mostly something held (any position), now and then not */
    uintptr_t a = rnd() % 8 ? r->held[rnd() % (r->nheld < 16 ? r->nheld : 16)] : m[rnd() % nm];
    rd_mutex_unlocked(a);
  } else {
    rd_mutex_locked(m[rnd() % nm], 0, 0, 0);
  }
  steps++;
  /* nothing held: the empty set at once, whatever came before */
  if (!r->nheld && (r->lockset_dirty || r->lockset)) bad_empty++;
  if (!r->lockset_dirty) {
    known++;
    if (!set_is_held(r, r->lockset)) bad_known++;
  }
  if (rnd() % 3) { /* an access now and then, so some changes come in pairs */
    rd_ctx_handle(t);
    if (r->lockset_dirty || !set_is_held(r, r->lockset)) bad_resolved++;
  }
}

int main(void) {
  dc_thread *t = dc_cur();
  /* mutex addresses; an odd one is a read lock, as rwlocks are recorded */
  static const uintptr_t m[] = {0x10000, 0x20000, 0x20001, 0x30000, 0x40008, 0x50001};
  for (int i = 0; i < 200000; i++) step(t, m, 6, 4);
  CHECK(bad_known == 0, "%d of %d known sets differ from held[]", bad_known, known);
  CHECK(bad_resolved == 0, "%d resolved sets differ from held[]", bad_resolved);
  CHECK(known > steps / 10, "the cache answered %d of %d random changes", known, steps);
  CHECK(bad_empty == 0, "%d changes to nothing held left the set unknown or not empty",
        bad_empty);

  /* a program's pattern: a, rw (read), b nested and apart, an access
   * after each change */
  static const struct {
    int unlock;
    uintptr_t m;
  } pat[] = {{0, 0x10000}, {0, 0x20001}, {1, 0x20001}, {1, 0x10000}, {0, 0x30000},
             {0, 0x10000}, {1, 0x10000}, {1, 0x30000}, {0, 0x20001}, {1, 0x20001}};
  const int npat = (int)(sizeof pat / sizeof pat[0]);
  rd_thread *r = &t->rd;
  while (r->nheld) rd_mutex_unlocked(r->held[r->nheld - 1]);
  int later = 0, later_known = 0;
  bad_known = bad_resolved = 0;
  for (int round = 0; round < 100; round++)
    for (int i = 0; i < npat; i++) {
      if (pat[i].unlock)
        rd_mutex_unlocked(pat[i].m);
      else
        rd_mutex_locked(pat[i].m, 0, 0, 0);
      if (round) later++, later_known += !r->lockset_dirty;
      if (!r->lockset_dirty && !set_is_held(r, r->lockset)) bad_known++;
      rd_ctx_handle(t);
      if (!set_is_held(r, r->lockset)) bad_resolved++;
    }
  CHECK(bad_known == 0 && bad_resolved == 0, "pattern: %d known, %d resolved sets differ",
        bad_known, bad_resolved);
  CHECK(later_known * 10 >= later * 9, "pattern: the cache answered %d of %d later changes",
        later_known, later);

  /* past 16 held: only the first 16 are the set, and the cache stays out */
  uintptr_t many[24];
  for (int i = 0; i < 24; i++) many[i] = 0x100000 + 64 * (uintptr_t)i;
  bad_known = bad_resolved = 0;
  for (int i = 0; i < 20000; i++) step(t, many, 24, 20);
  CHECK(bad_known == 0 && bad_resolved == 0, "overflow: %d known, %d resolved sets differ",
        bad_known, bad_resolved);
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
