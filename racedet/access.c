/* access.c: the per-access check over the four cells of a granule.
 *
 * Each cell is one earlier access (thread, epoch, bytes, read/write/atomic,
 * site: context and pc).  The current access races with a cell from another
 * thread when the bytes overlap, one of them writes, not both are atomic,
 * and the cell's epoch is not covered by the current thread's clock.  Then
 * it is stored: into this thread's cell of the same epoch and kind on
 * adjacent bytes (merged: the same context, or for a write another one,
 * under a split site), else over a cell it subsumes
 * (same thread and same bytes, or a cell that happens before it, whose bytes
 * it covers, and that is a read or it is a write, so no later access can
 * race with that cell but not with this one; such a cell with other bytes
 * too keeps only those), else into an empty cell, else over a cell chosen
 * by a rotating victim (the only place history is lost, as in
 * ThreadSanitizer: more than four concurrent distinct accesses to one
 * granule).  Same thread and epoch, a cell with these bytes or more and a
 * kind that covers this one (sh_covers): nothing to do, the common case in
 * loops.  Cells are stored with a locked exchange and looked at again after
 * it (recheck); no other lock. */
#include <string.h>

#include "racedet.h"

static inline int conflicts(const rd_thread *r, uint64_t prev, uint64_t cur);

/* Report the race of the current access with the previous one, whose cell
 * held prev. */
DC_COLD static void race_with(dc_thread *t, uintptr_t addr, uint64_t cur, uintptr_t pc,
                              uint64_t prev) {
  uint32_t prev_ctx = 0, prev_held = 0;
  uintptr_t prev_pc = 0;
  int prev_merged = 0;
  unsigned prev_bytes = (unsigned)(prev & cur & 0xffu); /* of a split cell, its part here */
  rd_cell_site(prev, &prev_bytes, &prev_ctx, &prev_held, &prev_pc, &prev_merged);
  const uint32_t ctx = rd_ctx_handle(t); /* (first: it settles the held set) */
  uintptr_t base = addr & ~(uintptr_t)7;
  rd_access_desc c = {.tid = t->serial, .is_write = !!(cur & SH_WRITE),
                      .is_atomic = !!(cur & SH_ATOMIC), .freed = !!(cur & SH_FREED),
                      .size = sh_size(cur), .addr = addr, .pc = pc,
                      .ctx = ctx, .held = t->rd.lockset, .is_vptr = t->rd.in_vptr};
  rd_access_desc p = {.tid = rd_slot_serial(SH_TID(prev), rd_ext(prev)),
                      .is_write = !!(prev & SH_WRITE),
                      .is_atomic = !!(prev & SH_ATOMIC),
                      .freed = !!(prev & SH_FREED),
                      .size = sh_size(prev_bytes), .addr = base + sh_off(prev_bytes),
                      .pc = prev_pc, .ctx = prev_ctx, .held = prev_held, .pc_merged = prev_merged};
  rd_report_race(&c, &p);
}

static int restore(dc_thread *t, sh_granule *g, uint64_t *c, unsigned keep, uint64_t old,
                   uint64_t cur);

/* Store w into cell i of granule g, which the first look saw as c[i];
 * c[i] becomes w, what the second look expects there.  When the cell held
 * something else by then, another thread stored there since we looked and
 * did not see us: its access is checked here, as the second look checks
 * the other cells (sh_swap), and put back into the granule unless ours
 * makes it redundant (restore), into none of the cells in keep (a mask:
 * cell i, and any the caller is about to store into). */
static inline void publish_keeping(dc_thread *t, sh_granule *g, uint64_t *c, int i, uint64_t w,
                                   uintptr_t addr, uint64_t cur, uintptr_t pc, unsigned keep) {
  const uint64_t was = c[i];
  const uint64_t old = sh_swap(sh_cell_at(g, i), w);
  c[i] = w;
  if (dc_unlikely(old != was)) {
    if (conflicts(&t->rd, old, cur)) race_with(t, addr, cur, pc, old);
    restore(t, g, c, keep, old, cur);
  }
}
static inline void publish(dc_thread *t, sh_granule *g, uint64_t *c, int i, uint64_t w,
                           uintptr_t addr, uint64_t cur, uintptr_t pc) {
  publish_keeping(t, g, c, i, w, addr, cur, pc, 1u << i);
}

/* Does the access recorded in cell p happen before the current thread's
 * present (its epoch covered by the thread's clock)? */
static inline int happened_before(const rd_thread *r, uint64_t p) {
  return rd_ext(p) <= rd_vc_get(&r->vc, SH_TID(p));
}

/* Does the previous access prev conflict with cur and not happen before it? */
static inline int conflicts(const rd_thread *r, uint64_t prev, uint64_t cur) {
  /* the cheap tests first, each on the words as they are: overlap (an
   * empty cell has no bytes), a write, not both atomic, another slot */
  if (!sh_overlap(prev, cur)) return 0;
  if (dc_unlikely(prev & SH_FREED)) return 1; /* use after free */
  if (!((prev | cur) & SH_WRITE) || (prev & cur & SH_ATOMIC)) return 0;
  if (!((prev ^ cur) & ((uint64_t)SH_MAX_TID << SH_TID_SHIFT))) return 0; /* this thread's */
  return !happened_before(r, prev);
}

/* On the bytes they share, does the current access make cell p redundant:
 * p happens before it (or is this thread's), and it is at least p's kind?
 * Then a later access that races with p there races with it too. */
static inline int dominated(const rd_thread *r, uint64_t p, uint64_t cur) {
  if ((p & SH_WRITE) && !(cur & SH_WRITE)) return 0;
  if ((p & SH_ATOMIC) != (cur & SH_ATOMIC)) return 0;
  return SH_TID(p) == r->tid || happened_before(r, p);
}

/* Can cell p be overwritten by the current access without losing a race
 * that only p could show? */
static inline int subsumed(const rd_thread *r, uint64_t p, uint64_t cur) {
  return !p || (sh_within(p, cur) && dominated(r, p, cur));
}

/* Or only on some of its bytes, leaving one run of others to p?  Freed
 * marks stay whole. */
static inline int trimmable(const rd_thread *r, uint64_t p, uint64_t cur) {
  return sh_overlap(p, cur) && !(p & SH_FREED) && sh_contiguous(p & ~(cur & 0xff)) &&
         dominated(r, p, cur);
}

/* Is p another thread's access that happens before the current one (and
 * no freed mark): settled history this thread has already seen? */
static inline int settled(const rd_thread *r, uint64_t p) {
  return p && !(p & SH_FREED) && SH_TID(p) != r->tid && happened_before(r, p);
}

/* All four cells are live and none is subsumed: one must go.  Prefer a cell
 * of another thread that happens before the current access: it is settled
 * history that the current thread has already seen, while a concurrent cell is
 * the evidence of a race still to come.  Several readers of data written
 * before they started then settle into the cells instead of evicting each
 * other forever (which costs a store, and a cache line bouncing between
 * cores, on every access).  Otherwise a pseudo-random victim, as TSan. */
static inline int oldest_settled(const rd_thread *r, const uint64_t *c, unsigned skip) {
  int best = -1;
  uint32_t best_epoch = UINT32_MAX;
  for (int i = 0; i < SH_CELLS; i++)
    if (!(skip >> i & 1) && settled(r, c[i]) && SH_EPOCH(c[i]) < best_epoch)
      best = i, best_epoch = SH_EPOCH(c[i]);
  return best;
}
static inline int victim(const rd_thread *r, const uint64_t *c, uintptr_t addr, uintptr_t pc) {
  const int best = oldest_settled(r, c, 0);
  if (best >= 0) return best;
  return (int)((r->epoch + (addr >> 3) + pc) & (SH_CELLS - 1));
}

/* May the access take cell p's place with nothing more to check than the
 * other cells' conflicts: p is empty, dead (floor.c), or subsumed by it
 * (the thread's own cell of these bytes and kind, from an earlier epoch,
 * among them), and no freed mark (which conflicts with every access)?
 * None of these can conflict with it. */
static inline int replaceable(const rd_thread *r, uint64_t p, uint64_t cur) {
  return !p || (!(p & SH_FREED) && (rd_dead(p) || subsumed(r, p, cur)));
}

/* Put back into granule g the access old, which another thread stored into
 * the cell we stored the current access cur into, after our first look:
 * our exchange gave it back (publish, refresh_rest).  Unless cur makes it
 * redundant (replaceable), it takes an empty or dead cell (plane B's too),
 * else a cell of another thread that happens before cur (victim's choice);
 * only with four cells live and concurrent with cur is it lost, as an
 * evicted access is.  Without this, it was lost whenever two threads
 * stored into one granule at the same moment: a write of one variable,
 * displaced by a read of another variable in the same granule (a flag that
 * a thread spins on), was then missing when the racing read came
 * (tests/racedet/displaced_store.c).  c: the cells as the caller expects
 * them (the second look's), updated for the cell taken; or 0.  keep: the
 * cells it may not take (a mask): the one we stored into, and in
 * keep_a_live the one our access is to take next (its settled cell, copied
 * to plane B, would otherwise look like a victim). */
DC_COLD static int restore(dc_thread *t, sh_granule *g, uint64_t *c, unsigned keep, uint64_t old,
                           uint64_t cur) {
  const rd_thread *r = &t->rd;
  if (replaceable(r, old, cur)) return -1;
  for (int round = 0; round < 4; round++) {
    uint64_t p[SH_CELLS];
    int best = -1;
    const int b = sh_b_used(g);
    for (int i = 0; i < SH_CELLS; i++) {
      p[i] = i < SH_CELLS_A || b ? sh_load(sh_cell_at(g, i)) : 0;
      if (best < 0 && !(keep >> i & 1) && (!p[i] || rd_dead(p[i]))) best = i;
    }
    if (best < 0) best = oldest_settled(r, p, keep); /* (victim's rule) */
    if (best < 0) return -1;
    uint64_t seen = p[best];
    if (best >= SH_CELLS_A) sh_b_mark(g);
    if (atomic_compare_exchange_strong_explicit(&sh_cell_at(g, best)->w, &seen, old,
                                                memory_order_seq_cst, memory_order_relaxed)) {
      if (c) c[best] = old;
      return best;
    }
  }
  return -1;
}

/* This access is to go to plane B, cell b, where the inline fast path finds
 * it only after reading plane A, the plane-B bit and plane B: three cache
 * lines on every later access of this thread.  If plane A holds a settled
 * cell (another thread's access that happens before this one: main's
 * initialisation of data that workers now read), that cell moves to b and
 * this access takes its place.  The copy lands before the overwrite, so
 * another thread looking meanwhile sees the settled cell at least once; and
 * it is made only if the cell did not change since we read it.  Returns the
 * cell to store into. */
static int keep_a_live(dc_thread *t, sh_granule *g, uint64_t *c, int b, uintptr_t addr,
                       uint64_t cur, uintptr_t pc) {
  for (int i = 0; i < SH_CELLS_A; i++) {
    uint64_t p = c[i];
    if (!settled(&t->rd, p) || sh_load(sh_cell_at(g, i)) != p) continue;
    publish_keeping(t, g, c, b, p, addr, cur, pc, 1u << b | 1u << i);
    return i;
  }
  return b;
}

/* Replace a cell seen as *seen with w (fewer bytes, or empty) if nobody
 * stored there since.  *seen becomes w only when it did, so that a store
 * that got in between is new to the second look (recheck). */
static inline void clear_if(sh_cell *cell, uint64_t *seen, uint64_t w) {
  uint64_t expect = *seen;
  if (atomic_compare_exchange_strong_explicit(&cell->w, &expect, w, memory_order_relaxed,
                                              memory_order_relaxed))
    *seen = w;
}

/* The second look's rare part: cells that changed since the first look
 * (now), other than the one we stored into (its new occupant got our
 * access back from its exchange and checked it). */
DC_COLD static void recheck_changed(dc_thread *t, uintptr_t addr, uint64_t cur, uintptr_t pc,
                                    const uint64_t *c, const uint64_t *now, int n, int slot) {
  for (int i = 0; i < n; i++)
    if (i != slot && now[i] != c[i] && conflicts(&t->rd, now[i], cur))
      race_with(t, addr, cur, pc, now[i]);
}

/* Another thread may have stored a conflicting access between our first
 * look and our store, having looked before we stored: look again, after
 * our store (a full barrier, sh_swap).  Of two racing threads, the one that
 * stores last sees the other: in another cell here, in the same cell as
 * the access its store displaced (publish).  c: the cells as we left them
 * (publish updates the one we stored into); plane B's as 0 if its bit was
 * clear.  Nearly always nothing changed: one comparison of all cells. */
DC_INLINE void recheck(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur, uintptr_t pc,
                       const uint64_t *c, int slot) {
  uint64_t now[SH_CELLS];
  now[0] = sh_load(&g->c[0]);
  now[1] = sh_load(&g->c[1]);
  uint64_t diff = (now[0] ^ c[0]) | (now[1] ^ c[1]);
  int n = SH_CELLS_A;
  if (sh_b_used(g)) {
    now[2] = sh_load(sh_cell_at(g, 2));
    now[3] = sh_load(sh_cell_at(g, 3));
    diff |= (now[2] ^ c[2]) | (now[3] ^ c[3]);
    n = SH_CELLS;
  }
  if (dc_unlikely(diff)) recheck_changed(t, addr, cur, pc, c, now, n, slot);
}

/* Merge the current access into this thread's cell p (same epoch and kind,
 * adjacent bytes: sh_same_kind, sh_contiguous): returns the merged cell, or
 * 0 when the access covers p (it takes p's cell whole: subsumed).  No race
 * is lost: a later access that races with either races with the union.
 * - The same context: the cell keeps its first pc; when another
 *   instruction's access joins it, its site is the first one's marked
 *   merged, and a report says that this pc is the first of several.  The
 *   same context handle means the same function, except under
 *   capture=stackwalk (a frame-pointer walk from a leaf that keeps no frame
 *   is its caller's): there only the same pc merges.
 * - Another context, for writes: a split site (rd_site_split) keeps both,
 *   each for its side of a byte boundary, so a report still names the
 *   access to the bytes it raced on.  Two cells, before: a granule whose
 *   halves two functions wrote (the ends of two of mergesort's blocks) then
 *   had no cell left for a third thread's read, which went to plane B;
 *   such granules, scattered, committed all of plane B (119 of mergesort's
 *   643 MB at its peak).  Reads do not split: they cost calltree 3% of
 *   its wall time, for a reason not found (docs/architecture.md, Merging).
 * p is of this thread's epoch, so its site is of the current incarnation. */
static inline uint64_t merged(rd_thread *r, uint64_t p, uint64_t cur, uint32_t site) {
  const uint32_t had = SH_SITE(p);
  if (had == site) return p | (cur & 0xff);
  if (dc_capture_mode != DC_CAPTURE_STACKWALK && rd_site_same_ctx(r, had, site))
    return sh_with_site(p | (cur & 0xff), rd_site_merged(had));
  if (sh_within(p, cur) || !(cur & SH_WRITE)) return 0; /* (reads: above) */
  return sh_with_site(p | (cur & 0xff), rd_site_split(r, p, cur, site));
}

/* The access just merged into cell i made it adjacent to this thread's cell
 * k of the same epoch and kind (the middle field of three, written last):
 * cell k joins it as the access did, and leaves its cell empty. */
DC_COLD static void join(dc_thread *t, sh_granule *g, uint64_t *c, int i, int k, uintptr_t addr,
                         uint64_t cur, uintptr_t pc) {
  const uint64_t m = merged(&t->rd, c[i], c[k], SH_SITE(c[k]));
  if (!m) return;
  publish(t, g, c, i, m, addr, cur, pc);
  clear_if(sh_cell_at(g, k), &c[k], 0);
}

/* A new incarnation of the thread (rd_sites_renew), and the access cur
 * in its epoch. */
DC_COLD static uint64_t renew(rd_thread *r, uint64_t cur) {
  rd_sites_renew(r);
  return r->self | (cur & (0xffu | SH_WRITE | SH_ATOMIC | SH_FREED));
}

/* The rest of check_store, for what no shortcut settled, over the n live
 * cells (plane A's two, or all four).  Inlined twice, so that each copy
 * knows n: with plane B unused (rwhash: four of these in five; SQLite: one
 * in eight) its cells are not looked at. */
DC_INLINE int check_store_in(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                             uintptr_t pc, uint64_t *c, int own, const int n) {
  rd_thread *r = &t->rd;
  /* recorded by several cells together (sh_covered_bytes): a read of a
   * granule whose halves this thread wrote in two cells that did not merge
   * (epochs apart, a new table of sites in between) stored a third cell, in
   * plane B; before split sites (merged) two functions' halves were such
   * cells too, and mergesort's memcpy over them held 127 of its 712 MB */
  unsigned got = 0;
#pragma GCC unroll 4
  for (int i = 0; i < n; i++) got |= sh_covered_bytes(c[i], cur, r->floorw);
  if (!((unsigned)cur & 0xffu & ~got)) return -1;
#pragma GCC unroll 4
  for (int i = 0; i < n; i++)
    if (dc_unlikely(conflicts(r, c[i], cur))) race_with(t, addr, cur, pc, c[i]);
  const uint32_t site = rd_site_of(t, pc);
  const uint64_t w = cur | (uint64_t)site << SH_SITE_SHIFT;
  if (own >= 0) { /* as above, with plane B in use */
    publish(t, g, c, own, w, addr, cur, pc);
    return own;
  }
  /* This thread's access in this epoch, of this kind and in this calling
   * context, on bytes next to a cell's (a loop over an array of ints; a
   * function that sets a struct's fields one statement at a time): merge
   * it into that cell (merged).  The merged cell may now cover others of
   * this thread's, which it clears: each held cell is a cell that a third
   * access will not find free. */
#pragma GCC unroll 4
  for (int i = 0; i < n; i++)
    if (sh_same_kind(c[i], cur) && sh_contiguous(c[i] | cur)) {
      const uint64_t m = merged(r, c[i], cur, site);
      if (!m) continue;
      publish(t, g, c, i, m, addr, cur, pc);
      for (int k = 0; k < n; k++)
        if (k != i && c[k]) {
          if (subsumed(r, c[k], c[i]))
            clear_if(sh_cell_at(g, k), &c[k], 0);
          else if (dc_unlikely(sh_same_kind(c[k], c[i]) && sh_contiguous(c[k] | c[i])))
            join(t, g, c, i, k, addr, cur, pc);
        }
      return i;
    }
  /* prefer a subsumed cell; among empty ones (or dead: no thread can race
   * with them any more, floor.c) those of plane A (shadow.h), and in each
   * plane start at a per-thread index, so that two threads storing at the
   * same moment take different cells */
  int slot = -1;
  const int flip = (int)(r->tid & 1);
#pragma GCC unroll 4
  for (int k = 0; k < n; k++) {
    const int i = k ^ flip;
    const uint64_t p = c[i];
    if (!p || rd_dead(p)) {
      if (slot < 0) slot = i;
    } else if (subsumed(r, p, cur)) {
      if (slot < 0 || !c[slot])
        slot = i;
      else /* a second subsumed cell is dead weight */
        clear_if(sh_cell_at(g, i), &c[i], 0);
    } else if (trimmable(r, p, cur)) {
      /* cur subsumes the bytes it shares with p: keep p for the rest, so
       * that it may be subsumed whole later instead of holding a cell, and
       * plane B, for bytes that have newer history */
      clear_if(sh_cell_at(g, i), &c[i], p & ~(uint64_t)(cur & 0xff));
    }
  }
  if (n == SH_CELLS_A && slot < 0) slot = SH_CELLS_A ^ flip; /* plane B, unused: empty */
  const int evict = slot < 0;
  if (evict) slot = victim(r, c, addr, pc);
  /* cells run short (an eviction, or plane B): a new floor soon */
  if (evict || slot >= SH_CELLS_A) rd_floor_count(r);
  if (slot >= SH_CELLS_A) {
    sh_b_mark(g);
    slot = keep_a_live(t, g, c, slot, addr, cur, pc);
  }
  publish(t, g, c, slot, w, addr, cur, pc);
  return slot;
}

/* Is cell p this thread's with cur's bytes and kind, from an earlier epoch
 * (the first access after a release)? */
static inline int is_own(uint64_t p, uint64_t cur) {
  return !((p ^ cur) & ~(SH_EPOCH_FIELD | SH_SITE_FIELD));
}

/* Check the access cur against granule g (c: the cells as seen; plane B's as 0
 * when its bit is clear) and store it: returns the cell it went into, or -1
 * when there was nothing to store.  The store (publish) is a full barrier;
 * the caller then looks again at the other cells (recheck).  This is the
 * slow path of every access that is the first of its kind on its bytes in
 * this thread's epoch, which after each release is most of them (a lock per
 * call in SQLite): loops stay unrolled over the cells (check_store_in) and
 * plane B's address is computed once.  b_used: -1, or plane B's bit as the caller saw
 * it, having found no cell that covers the access (rd_access_granule, after
 * rd_access_fast and rd_access_more looked at both planes): then nothing is
 * asked again (only this thread stores cells of its own epoch, and it has
 * stored none since). */
DC_INLINE int check_store(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                          uintptr_t pc, uint64_t *c, int b_used) {
  rd_thread *r = &t->rd;
  const int looked = b_used >= 0;
  /* already recorded in this epoch: nothing can change.  Plane B only when
   * its bit says it may hold something (shadow.h) */
  c[0] = sh_load(&g->c[0]);
  c[1] = sh_load(&g->c[1]);
  if (!looked && (sh_covers(c[0], cur, r->floorw) || sh_covers(c[1], cur, r->floorw))) return -1;
  /* This thread's own cell in plane A with these bytes and this kind, from
   * an earlier epoch (the first access after a release), and plane B empty.
   * Only the other plane-A cell can conflict; the store refreshes ours (the
   * rules below would give it this cell too: it is subsumed; only their
   * tidying of other cells is skipped).  rd_access_more hands the common
   * case to refresh_in; what comes here is a range's granule, an access
   * out of line (rd_access), or a refresh that found a conflict. */
  const int own = is_own(c[0], cur) ? 0 : is_own(c[1], cur) ? 1 : -1;
  if (!looked) b_used = sh_b_used(g);
  if (own >= 0 && !b_used) {
    c[2] = c[3] = 0;
    if (dc_unlikely(conflicts(r, c[own ^ 1], cur))) race_with(t, addr, cur, pc, c[own ^ 1]);
    const uint32_t site = rd_site_of(t, pc);
    publish(t, g, c, own, cur | (uint64_t)site << SH_SITE_SHIFT, addr, cur, pc);
    return own;
  }
  if (!(c[0] | c[1])) {
    sh_touch_ahead(g);
    /* The next most common case: the first access to the granule in a
     * while (fresh memory, or cells that tidying emptied) with plane B
     * empty.  Nothing to check; the cell is the one the rules below would
     * take (the first empty one in the thread's order). */
    if (!b_used) {
      const int i = (int)(r->tid & 1);
      c[2] = c[3] = 0;
      publish(t, g, c, i, cur | (uint64_t)rd_site_of(t, pc) << SH_SITE_SHIFT, addr, cur, pc);
      return i;
    }
  }
  c[2] = c[3] = 0;
  if (b_used) {
    c[2] = sh_load(sh_cell_at(g, 2));
    c[3] = sh_load(sh_cell_at(g, 3));
    if (!looked && (sh_covers(c[2], cur, r->floorw) || sh_covers(c[3], cur, r->floorw)))
      return -1;
    return check_store_in(t, g, addr, cur, pc, c, own, SH_CELLS);
  }
  return check_store_in(t, g, addr, cur, pc, c, own, SH_CELLS_A);
}

/* The whole check of one granule's bytes: first look and store, then the
 * second look.  (A variant that handled the commonest case, the refresh of
 * the thread's own plane-A cell, apart from the rest, with the rest as a
 * call, saved 15 of its 218 instructions but cost the other cases 35-60:
 * bench/micro/slowpath modes 2 and 0-1.  That case is now taken before this
 * function's frame is set up, by a function with tail calls only:
 * refresh_in.) */
DC_INLINE void check_granule(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                             uintptr_t pc, int b_used) {
  /* the table of sites is nearly full: a new incarnation first (a new
   * epoch, not a release: what this thread recorded since its last release
   * still covers what it did, sh_covers) */
  if (dc_unlikely(t->rd.sites_full)) cur = renew(&t->rd, cur);
  uint64_t c[SH_CELLS];
  int slot = check_store(t, g, addr, cur, pc, c, b_used);
  if (slot >= 0) recheck(t, g, addr, cur, pc, c, slot);
}

/* One access within a granule, straight to the full check: a lock's byte
 * (rd_object_access), an atomic operation's own access.  (Through the
 * inline check and rd_access_more, as small_access goes, a lock's access
 * cost rwhash more than it saved: its granule is shared by every thread
 * that takes the lock, so the access is seldom covered, and the layers in
 * between came on top of the full check: a read lock's 368 -> 420
 * instructions, its unlock's 100 either way.) */
static inline void access_one(dc_thread *t, uintptr_t addr, unsigned size, uint64_t flags,
                              uintptr_t pc) {
  sh_granule *g = sh_granule_of(addr);
  if (dc_likely(g != 0))
    check_granule(t, g, addr, t->rd.self | sh_bytes(addr & 7, size) | flags, pc, -1);
}

/* One granule of a range: already recorded (a buffer copied back and forth
 * in one epoch), or the full check, told what was seen of plane B; a_looked:
 * the caller found plane A's cells not covering it already.  Returns
 * whether the full check ran (it may have started a new epoch,
 * rd_sites_renew, so that the caller's access word is stale). */
DC_INLINE int range_granule(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                           uint64_t floorw, uintptr_t pc, int a_looked) {
  const int b = a_looked ? sh_recorded_in_b(g, cur, floorw) : sh_recorded_b(g, cur, floorw);
  if (dc_likely(b < 0)) return 0;
  check_granule(t, g, addr, cur, pc, b);
  return 1;
}

static void refresh_rest(dc_thread *t, uintptr_t gown, uintptr_t addr, uint64_t cur,
                         uintptr_t pc, uint64_t old);

/* Can cell p go for the access cur without a full check: empty, or one it
 * subsumes that is no freed mark (a free's mark conflicts with every later
 * access, whatever the order)? */
static inline int quick_subsumed(const rd_thread *r, uint64_t p, uint64_t cur) {
  return !p || (!(p & SH_FREED) && subsumed(r, p, cur));
}

/* A whole granule of a range that range_quick's cases do not settle: plane
 * B in use, or plane A holding cells of other kinds (SQLite's pwrite reads
 * a page buffer whose granules hold this thread's earlier writes of it;
 * its pread writes over this thread's earlier reads and writes, in both
 * planes).  When no cell conflicts and a plane-A cell can take the access
 * (one it subsumes, else an empty or dead one, in the thread's order), the
 * access goes there and every other cell it subsumes is emptied, as the
 * full check does it, without its frame, its site lookup per granule and
 * its rules for merging, trimming and eviction; anything else goes to the
 * full check.  Counted at size 8000, SQLite's ranges sent 11.9 million
 * whole-granule writes and 14.0 million reads to the full check; 16,000
 * go there now.  a0, a1: the plane-A cells as seen; w: as in range_quick.
 * Returns whether the granule is done. */
static DC_NOINLINE int range_store(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                   uintptr_t pc, uint64_t a0, uint64_t a1, uint64_t *w) {
  rd_thread *r = &t->rd;
  const int b = sh_b_used(g);
  const int n = b ? SH_CELLS : SH_CELLS_A;
  uint64_t c[SH_CELLS] = {a0, a1, b ? sh_load(sh_cell_at(g, 2)) : 0,
                          b ? sh_load(sh_cell_at(g, 3)) : 0};
  unsigned sub = 0; /* the cells it subsumes (a freed mark conflicts) */
#pragma GCC unroll 4
  for (int k = 0; k < n; k++) {
    if (conflicts(r, c[k], cur)) return 0;
    if (c[k] && subsumed(r, c[k], cur)) sub |= 1u << k;
  }
  const int f = (int)(r->tid & 1);
  int i;
  if (sub >> f & 1) i = f;
  else if (sub >> (f ^ 1) & 1) i = f ^ 1;
  else if (!c[f] || rd_dead(c[f])) i = f;
  else if (!c[f ^ 1] || rd_dead(c[f ^ 1])) i = f ^ 1;
  else return 0;
  if (!*w) {
    if (r->sites_full) return 0; /* the full check renews first */
    *w = cur | (uint64_t)rd_site_of(t, pc) << SH_SITE_SHIFT;
  }
#pragma GCC unroll 4
  for (int k = 0; k < n; k++)
    if (k != i && (sub >> k & 1)) clear_if(sh_cell_at(g, k), &c[k], 0);
  if (!c[i]) sh_touch_ahead(g);
  /* the second look: every other cell as left (a clear that failed left a
   * cell changed since: refresh_rest checks it), plane B's bit as seen */
  const uint64_t old = sh_swap(&g->c[i], *w);
  uint64_t diff = old ^ c[i];
#pragma GCC unroll 4
  for (int k = 0; k < n; k++)
    if (k != i) diff |= sh_load(sh_cell_at(g, k)) ^ c[k];
  if (dc_unlikely(diff | (uint64_t)(sh_b_used(g) != b)))
    refresh_rest(t, (uintptr_t)g | (uintptr_t)i, addr, cur, pc, old);
  return 1;
}

/* A whole granule of a range that plane A does not cover (a0, a1: its
 * cells as seen), with plane B unused, in one of three cases that need no
 * rule of check_store_in: fresh (both cells empty: memory just allocated,
 * a buffer's new tail; the store takes the cell the thread's order takes
 * first), this thread's own cell of an earlier epoch with the whole
 * granule and this kind (refreshed; the other cell not conflicting), or
 * every cell empty or one the access subsumes (below).  check_store does
 * the same in each case, a frame and a site lookup later: w, the access
 * word with its site, is made once a range (0 until then), since every
 * granule of it has the same pc and context.  Counted before the third
 * case was added, the first two were 70% of the full checks of ranges in
 * SQLite (5.9 million fresh and 3.9 million own at size 8000, against 2.9
 * million others) and in the LevelDB workload (29 and 11 million, 17
 * others), where memcpy into a growing std::string is most of them.
 * After the store, refresh_rest unless the granule is still as seen.
 * plain (a free's mark: mark_freed): plain stores and no second look.
 * Returns whether the granule is done. */
DC_INLINE int range_quick(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                          uintptr_t pc, uint64_t a0, uint64_t a1, uint64_t *w, int plain) {
  rd_thread *r = &t->rd;
  int i;
  uint64_t seen, other;
  if (!(a0 | a1))
    i = (int)(r->tid & 1), seen = other = 0;
  else if (is_own(a0, cur))
    i = 0, seen = a0, other = a1;
  else if (is_own(a1, cur))
    i = 1, seen = a1, other = a0;
  else if (quick_subsumed(r, a0, cur) && quick_subsumed(r, a1, cur))
    /* the third case: every cell one that the access subsumes or empty
     * (a free's mark over what the thread or others before it did; a
     * buffer written again).  It goes into the first such cell in the
     * thread's order, as check_store_in puts it, and the other, if it
     * holds one, is emptied (there, a second subsumed cell is dead
     * weight); seen as empty from then on */
    i = !a0 ? 1 : !a1 ? 0 : (int)(r->tid & 1), seen = i ? a1 : a0, other = 0;
  else
    return range_store(t, g, addr, cur, pc, a0, a1, w);
  if (sh_b_used(g) || conflicts(r, other, cur)) return range_store(t, g, addr, cur, pc, a0, a1, w);
  if (!*w) {
    if (r->sites_full) return 0; /* the full check renews first */
    *w = cur | (uint64_t)rd_site_of(t, pc) << SH_SITE_SHIFT;
  }
  uint64_t gone = i ? a0 : a1;
  if (plain) { /* a free's mark (mark_freed) */
    if (!other && gone) atomic_store_explicit(&g->c[i ^ 1].w, 0, memory_order_relaxed);
    atomic_store_explicit(&g->c[i].w, *w, memory_order_relaxed);
    return 1;
  }
  if (!other && gone) clear_if(&g->c[i ^ 1], &gone, 0);
  if (!seen) sh_touch_ahead(g);
  const uint64_t old = sh_swap(&g->c[i], *w);
  if (dc_unlikely(old != seen || sh_load(&g->c[i ^ 1]) != other || sh_b_used(g)))
    refresh_rest(t, (uintptr_t)g | (uintptr_t)i, addr, cur, pc, old);
  return 1;
}

/* The walks over a range go one shadow region at a time, whose granules'
 * shadow is consecutive: addr's granule (0 when its region has no shadow)
 * and in *stop the end of its part of [addr, end). */
static inline sh_granule *region_part(uintptr_t addr, uintptr_t end, uintptr_t *stop) {
  const uintptr_t rend = ((addr >> SH_REGION_BITS) + 1) << SH_REGION_BITS;
  *stop = end < rend ? end : rend;
  return sh_granule_of(addr);
}

/* Ranges and unaligned accesses: granule by granule, clipped (one cell per
 * granule with the bytes touched there). */
static void range_flags(dc_thread *t, uintptr_t addr, uintptr_t size, uint64_t flags,
                        uintptr_t pc) {
  const uintptr_t end = addr + size;
  while (addr < end) {
    uintptr_t stop_r;
    sh_granule *g = region_part(addr, end, &stop_r);
    if (!g) {
      addr = stop_r;
      continue;
    }
    const rd_thread *r = &t->rd;
    if (addr & 7) { /* a first granule in part */
      const uintptr_t stop = stop_r < (addr | 7) + 1 ? stop_r : (addr | 7) + 1;
      range_granule(t, g++, addr,
                    r->self | sh_bytes(addr & 7, (unsigned)(stop - addr)) | flags, r->floorw,
                    pc, 0);
      addr = stop;
    }
    /* whole granules, most of a range: the access word is built once and
     * built again only after a full check; plane A is asked inline */
    uint64_t cur = r->self | 0xffu | flags, floorw = r->floorw, w = 0;
    const uint64_t keep = sh_whole_keep(cur);
    for (; stop_r - addr >= 8; addr += 8, g++) {
      const uint64_t a0 = sh_load(&g->c[0]), a1 = sh_load(&g->c[1]);
      if (sh_covers_whole(a0, cur, keep, floorw) || sh_covers_whole(a1, cur, keep, floorw) ||
          range_quick(t, g, addr, cur, pc, a0, a1, &w, 0))
        continue;
      if (range_granule(t, g, addr, cur, floorw, pc, 1))
        cur = r->self | 0xffu | flags, floorw = r->floorw, w = 0;
    }
    if (addr < stop_r) { /* a last granule in part */
      range_granule(t, g, addr, r->self | sh_bytes(0, (unsigned)(stop_r - addr)) | flags,
                    r->floorw, pc, 0);
      addr = stop_r;
    }
  }
}

static inline int ignored(const dc_thread *t, int is_write) {
  return t->rd.ignore_accesses | t->in_runtime |
         (is_write ? t->rd.ignore_writes : t->rd.ignore_reads);
}

DC_NOINLINE void rd_access_granule(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                   int b_used, uintptr_t pc) {
  if (dc_unlikely(ignored(t, (cur & SH_WRITE) != 0))) return;
  check_granule(t, g, addr, cur, pc, b_used);
}

/* The end of a refresh's check when it did not end as expected: the cell
 * it stored into held old instead of our own cell (another thread's access
 * since, which did not see ours), or its second look found another cell
 * changed or plane B's bit changed.  Checks old, then every other cell as
 * it is now: the second look against no cells, as range_check makes it (a
 * cell that did not change was checked already and does not conflict;
 * checking it again changes nothing).  gown: the granule's address, with
 * the index of the cell stored into in its low two bits (granules are
 * 16-byte aligned), so that the call has six arguments and stays a tail
 * call. */
static DC_NOINLINE void refresh_rest(dc_thread *t, uintptr_t gown, uintptr_t addr,
                                     uint64_t cur, uintptr_t pc, uint64_t old) {
  static const uint64_t none[SH_CELLS];
  sh_granule *g = (sh_granule *)(gown & ~(uintptr_t)3);
  const int own = (int)(gown & 3);
  if (conflicts(&t->rd, old, cur)) race_with(t, addr, cur, pc, old);
  recheck(t, g, addr, cur, pc, none, own);
  restore(t, g, 0, 1u << own, old, cur); /* (after the second look, which would report it again) */
}

static DC_NOINLINE void refresh_sited(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                      uintptr_t pc, int own_n);

/* The most common slow path, the refresh of this thread's own cell (index
 * own: the first access after a release) over n live cells (2: plane B
 * unused; 4), done as check_store and recheck do it when nothing conflicts
 * (of the accesses that no cell covers, SQLite's: two in three; rwhash's:
 * five in six).  With cached, the site
 * comes from the caches alone and every call is a tail call: no frame, no
 * saved registers (the full check's set-up was 20 of its 120 instructions),
 * and own is a constant (a copy per cell: the other cells' loads, checks
 * and second look unrolled around it).  A miss there (the first slow access
 * of a function's invocation: 40% of SQLite's refreshes) goes to the copy
 * that asks rd_site_of, with a frame (refresh_sited).  The cached copies
 * take the own cell as the caller saw it (seen) and store over it only if
 * the exchange gives that back; before b475bc5 they read it again and took
 * what they found for their own, so that another thread's access stored
 * there in between was overwritten unchecked.  Anything else goes, before
 * the store, to the full check from the start (which reports what
 * conflicts); after it, to refresh_rest. */
DC_INLINE void refresh_in(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                          uintptr_t pc, uint64_t seen, const int own, const int n,
                          const int cached) {
  rd_thread *r = &t->rd;
  /* the site first: a miss hands over before anything is done twice (and
   * rd_site_of may append to the table of sites only where it is not
   * nearly full: site.c's reserve).  An ignored access takes no context
   * either: the full check ignores it.  Such is every access of a thread
   * past its end (dc_dead_thread: a program's thread-specific-data
   * destructor that runs after ours, whose cells of a slot-0 thread look
   * like its own), which has no context to take
   * (tests/racedet/key_destructor_late.c).  The cached copies get here with
   * no context handle, and ask ignored() before they store. */
  if (!cached && dc_unlikely(r->sites_full | ignored(t, (cur & SH_WRITE) != 0))) {
    rd_access_granule(t, g, addr, cur, n > SH_CELLS_A, pc);
    return;
  }
  const uint32_t site = cached ? rd_site_cached(t, pc) : rd_site_of(t, pc);
  if (cached && dc_unlikely(site == RD_SITE_NONE)) {
    refresh_sited(t, g, addr, cur, pc, own << 4 | n);
    return;
  }
  uint64_t c[SH_CELLS];
  int hit = 0;
#pragma GCC unroll 4
  for (int i = 0; i < n; i++) {
    if (i == own) continue;
    c[i] = sh_load(sh_cell_at(g, i));
    hit |= conflicts(r, c[i], cur);
  }
  /* the cell as the caller saw it (the exchange then tells whether it
   * changed since), or looked at again after rd_site_of, and asked again */
  c[own] = cached ? seen : sh_load(sh_cell_at(g, own));
  if (!cached) hit |= !replaceable(r, c[own], cur);
  /* (the framed copy asked ignored() above; rd_site_of may have filled the
   * table of sites since) */
  if (dc_unlikely(hit | (cached && ignored(t, (cur & SH_WRITE) != 0)) | r->sites_full)) {
    rd_access_granule(t, g, addr, cur, n > SH_CELLS_A, pc);
    return;
  }
  const uint64_t old = sh_swap(sh_cell_at(g, own), cur | (uint64_t)site << SH_SITE_SHIFT);
  uint64_t diff = old ^ c[own];
#pragma GCC unroll 4
  for (int i = 0; i < n; i++)
    if (i != own) diff |= sh_load(sh_cell_at(g, i)) ^ c[i];
  if (dc_likely(!diff && sh_b_used(g) == (n > SH_CELLS_A))) return;
  refresh_rest(t, (uintptr_t)g | (uintptr_t)own, addr, cur, pc, old);
}
/* own_n: own << 4 | n (six arguments: tail calls) */
static DC_NOINLINE void refresh_sited(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                      uintptr_t pc, int own_n) {
  if ((own_n & 15) > SH_CELLS_A)
    refresh_in(t, g, addr, cur, pc, 0, own_n >> 4, SH_CELLS, 0);
  else
    refresh_in(t, g, addr, cur, pc, 0, own_n >> 4, SH_CELLS_A, 0);
}
#define RD_REFRESH(n, own)                                                                   \
  static DC_NOINLINE void refresh_##n##_##own(dc_thread *t, sh_granule *g, uintptr_t addr, \
                                              uint64_t cur, uintptr_t pc, uint64_t seen) { \
    refresh_in(t, g, addr, cur, pc, seen, own, n, 1);                                      \
  }
RD_REFRESH(2, 0)
RD_REFRESH(2, 1)
RD_REFRESH(4, 0)
RD_REFRESH(4, 1)
RD_REFRESH(4, 2)
RD_REFRESH(4, 3)

/* Is cell p the thread's (of access cur), of any epoch, bytes or kind? */
static inline int of_thread(uint64_t p, uint64_t cur) {
  return p && !((p ^ cur) & ((uint64_t)SH_MAX_TID << SH_TID_SHIFT));
}

/* Plane B unused and no cell of the thread's in plane A that the access
 * would merge with or trim (replace_or_check looked, and hands over the
 * cells c0 and c1 as it read them; only the thread itself stores its
 * cells, and one of its own that the access subsumes is replaceable like
 * another thread's).  If one plane-A cell is replaceable and the other is
 * not (another thread's live cell, or one of the thread's own that the
 * access leaves as it is), or empty, the access takes the first as a
 * refresh takes the thread's own cell
 * (refresh_in: the site from the caches, the other cell's conflicts, the
 * exchange, the second look), and leaves an empty cell empty.  Two
 * replaceable cells (the full check keeps one of them) and a granule that
 * needs plane B go to the full check.  Both empty: the thread's first cell,
 * as the full check takes it, so that two threads storing into an empty
 * granule at the same moment take different cells.  (A copy of the full
 * check's choice instead, which takes the first replaceable cell in the
 * thread's order, empty or not, and clears a second subsumed one: rwhash
 * 6.08 G instructions against 5.75 G, mergesort 10.66 against 10.31 G.) */
static DC_NOINLINE void replace_in(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                   uintptr_t pc, uint64_t c0, uint64_t c1) {
  const rd_thread *r = &t->rd;
  const int r0 = replaceable(r, c0, cur), r1 = replaceable(r, c1, cur);
  int i;
  if (r0 && r1) {
    if (c0 && c1) goto full;
    i = c0 ? 0 : c1 ? 1 : (int)(r->tid & 1);
    if (!(c0 | c1)) sh_touch_ahead(g); /* (fresh memory, as check_store) */
  } else if (r0 || r1) {
    i = r1;
  } else {
    goto full;
  }
  (i ? refresh_2_1 : refresh_2_0)(t, g, addr, cur, pc, i ? c1 : c0);
  return;
full:
  rd_access_granule(t, g, addr, cur, 0, pc);
}

/* Plane B unused and no cell of the thread's with the access's bytes and
 * kind.  A cell of the thread's that the full check would merge the access
 * into (same epoch and kind, bytes next to or over the access's: SQLite's
 * usual case) or trim (the access takes some of its bytes, check_store_in's
 * trimmable) is for the full check, sent on without a frame; otherwise
 * replace_in, where a cell of the thread's that the access subsumes is
 * replaceable.  In the rwhash kernel (four threads reading shared nodes,
 * each read after a release), two plane-A cells among four readers keep
 * whichever two stored last: the readers' dead or subsumed cells are taken
 * over by each other's next reads, and 8.2 of its 20.6 million slow paths
 * (size 300000) were such full checks, at 242 instructions.  Until
 * 2026-12-02 any cell of the thread's sent the access to the full check:
 * argon2's fill_block reads a block and then writes it (its own read of
 * this epoch, subsumed by the write, beside an empty cell: 39 of its 62
 * million full checks from here, counted at full size), and reads blocks
 * that its slot wrote in an earlier epoch (a write that does not cover the
 * read, and that a read neither joins nor trims: 12 million more); 9.24 ->
 * 8.87 G instructions at size 8192 (callgrind). */
/* (For a cell of the thread's, check_store_in's tests spelled out by kind:
 * the merge's sh_same_kind and sh_contiguous, then trimmable and not
 * subsumed, whose dominated needs no clock for it.  Calling subsumed and
 * trimmable instead cost argon2 177 million more instructions in
 * replace_or_check at size 8192, 8.36 -> 8.58 G in all.) */
static inline int tidied(uint64_t p, uint64_t cur) {
  if (sh_same_kind(p, cur)) return sh_contiguous(p | cur);
  if ((p & ~cur & SH_WRITE) || ((p ^ cur) & SH_ATOMIC) || !sh_overlap(p, cur) || sh_within(p, cur))
    return 0; /* (not dominated, disjoint, or subsumed: replaceable) */
  return !(p & SH_FREED) && sh_contiguous(p & ~(cur & 0xffu));
}
static DC_NOINLINE void replace_or_check(dc_thread *t, sh_granule *g, uintptr_t addr,
                                         uint64_t cur, uintptr_t pc) {
  const uint64_t c0 = sh_load(&g->c[0]), c1 = sh_load(&g->c[1]);
  if ((of_thread(c0, cur) && tidied(c0, cur)) || (of_thread(c1, cur) && tidied(c1, cur)))
    rd_access_granule(t, g, addr, cur, 0, pc);
  else
    replace_in(t, g, addr, cur, pc, c0, c1);
}

/* The inline check missed in plane A, and plane B does not cover the access
 * either (b: plane B's bit): the refresh of an own cell, the take-over of a
 * replaceable one, or the full check. */
DC_INLINE void refresh_or_check(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                uintptr_t pc, int b) {
  uint64_t p = sh_load(&g->c[0]);
  if (is_own(p, cur)) {
    (b ? refresh_4_0 : refresh_2_0)(t, g, addr, cur, pc, p);
    return;
  }
  p = sh_load(&g->c[1]);
  if (is_own(p, cur)) {
    (b ? refresh_4_1 : refresh_2_1)(t, g, addr, cur, pc, p);
    return;
  }
  if (b && is_own(p = sh_load(sh_cell_at(g, 2)), cur)) {
    refresh_4_2(t, g, addr, cur, pc, p);
    return;
  }
  if (b && is_own(p = sh_load(sh_cell_at(g, 3)), cur)) {
    refresh_4_3(t, g, addr, cur, pc, p);
    return;
  }
  if (!b)
    replace_or_check(t, g, addr, cur, pc);
  else
    rd_access_granule(t, g, addr, cur, b, pc);
}

/* What the inline check left (rd_access_more): the inline check looked for
 * a plane-A cell of the thread's stamp (rd_restamp: the later of its floor
 * and its incarnation's first epoch); where the thread's epoch moved past
 * its floor (a new table of sites; a release taken back, after which the
 * cells stored since the release carry a later epoch than the stamp),
 * cells of the other epochs since the floor still cover (sh_covers), and a
 * program with many contexts renews often enough that losing them cost
 * mergesort 20% more instructions (a full check for each location again).
 * That case is a function of its own (more_renewed): inline, its registers
 * made the common one save and restore one on every call.
 * A plane-A cell that covers is moved to the stamp (the thread's
 * epochs since the floor are interchangeable: sh_covers), so
 * that the thread's next accesses there pass the inline check; only within
 * the incarnation (incw), whose table of sites names the cell's site.  The
 * exchange is a compare-and-swap, which leaves a cell that changed since
 * it was read as it is (a call of its own, move_epoch).  SQLite at size
 * 500, whose releases are mostly taken back: 3.05 million calls here, 1.49
 * million with the move, and 1.041 -> 0.971 G instructions in all.  The
 * cost: mergesort, whose covering cells are mostly of earlier
 * incarnations, 24 -> 27 instructions a call here (6.8 million calls at
 * size 800,000: +0.5% in all).  Since the stamp, a release taken back
 * leaves the cells stored before it matching the inline check, and few are
 * moved (SQLite at size 1000: 1.8 million moves -> 0.08 million, 7.1 ->
 * 5.0 million calls of rd_access_more). */
static DC_NOINLINE void move_epoch(sh_cell *c, uint64_t p, uint64_t cur) {
  atomic_compare_exchange_strong_explicit(&c->w, &p, (p & ~SH_EPOCH_FIELD) | (cur & SH_EPOCH_FIELD),
                                          memory_order_relaxed, memory_order_relaxed);
}
static DC_NOINLINE void more_renewed(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                     uintptr_t pc) {
  const rd_thread *r = &t->rd;
#pragma GCC unroll 2
  for (int i = 0; i < SH_CELLS_A; i++) {
    const uint64_t p = sh_load(&g->c[i]);
    if (sh_covers(p, cur, r->floorw)) {
      if (p >= r->incw) move_epoch(&g->c[i], p, cur);
      return;
    }
  }
  const int b = sh_recorded_in_b(g, cur, r->floorw);
  if (b >= 0) refresh_or_check(t, g, addr, cur, pc, b);
}

void rd_access_more(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur, uintptr_t pc) {
  const rd_thread *r = &t->rd;
  if (dc_unlikely(sh_ro_page(addr)) && !(cur & SH_WRITE)) return; /* (shadow.h) */
  /* the epoch, not the stamp, past the floor */
  if (dc_unlikely((uint64_t)r->epoch << SH_EPOCH_SHIFT > r->floorw)) {
    more_renewed(t, g, addr, cur, pc);
    return;
  }
  const int b = sh_recorded_now_in_b(g, cur);
  if (b >= 0) refresh_or_check(t, g, addr, cur, pc, b);
}

/* An access of at most 16 bytes within one region, granule g's bytes
 * first, that the inline check did not settle.  Each granule's piece is an
 * access of its own: the inline check's test of plane A, then what an
 * access within one granule takes (rd_access_more: plane B, the refresh of
 * the thread's own cell, the full check).  These took the range's path
 * before, which asks plane B and the site for each granule again: argon2's
 * SSE fill_block ran at 4x clang TSan's time. */
DC_INLINE void pieces(dc_thread *t, sh_granule *g, uintptr_t addr, unsigned size, uint64_t flags,
                      uintptr_t pc) {
  unsigned off = (unsigned)addr & 7, left = size;
  for (;;) {
    const unsigned n = 8 - off < left ? 8 - off : left;
    /* (built again for each piece: a slow path may have begun an epoch) */
    const uint64_t kind = sh_bytes(off, n) | flags, cur = t->rd.self | kind;
    const uint64_t differ = sh_differ(kind);
    if (!sh_covered_now_a(g, cur, differ)) rd_access_more(t, g, addr, cur, pc);
    if (!(left -= n)) return;
    g++, off = 0, addr = (addr | 7) + 1;
  }
}

/* The same, found from the address (rd_access): unaligned, a vector load or
 * store (SSE), a small range (clang instruments an under-aligned vector,
 * _mm_loadu_si128's, and some 8-byte loads through memcpy as
 * __tsan_read_range of 16 or 8 bytes), or memory that the inline check
 * found no shadow for yet. */
static void small_access(dc_thread *t, uintptr_t addr, unsigned size, uint64_t flags,
                         uintptr_t pc) {
  sh_granule *g = 0;
  if (!((addr ^ (addr + size - 1)) >> SH_REGION_BITS)) g = sh_granule_of(addr);
  if (!g) { /* (no shadow there: range_flags knows what to skip) */
    range_flags(t, addr, size, flags, pc);
    return;
  }
  pieces(t, g, addr, size, flags, pc);
}

/* An access or range of size bytes by a thread that does not ignore it. */
static void access_sized(dc_thread *t, uintptr_t addr, uintptr_t size, int is_write,
                         uintptr_t pc) {
  if (!is_write && dc_unlikely(sh_ro_range(addr, size))) return; /* (shadow.h: sh_ro_page) */
  const uint64_t flags = is_write ? SH_WRITE : 0;
  if (size <= 16)
    small_access(t, addr, (unsigned)size, flags, pc);
  else
    range_flags(t, addr, size, flags, pc);
}

/* Accesses over two or three granules of one region that the inline
 * check sends on: a 16-byte vector on a granule boundary that plane A does
 * not cover (rd_access_pair, with its granules), an unaligned access of up
 * to 16 bytes across a boundary (__tsan_unaligned_*: zstd's MEM_read32/64
 * at any byte of its window and its 16-byte wildcopy, a packed struct's
 * field).  Each piece goes on as an access within one granule goes from
 * the inline check (plane A, then rd_access_more), without rd_access's
 * thread state, read-only test and lookup of the granule (the pieces'
 * rd_access_more makes the read-only test as the one granule's does):
 * about 115 instructions an access.  argon2's fill_block misses plane A
 * with 11.5 million 16-byte accesses at size 8192: 8.87 -> 8.36 G
 * instructions in all (callgrind).  Before, an unaligned access that
 * plane A covered ended before rd_access (3.9 of zstd's 7.2 million at
 * size 1,000,000: 4.518 -> 4.465 G then), and the rest went through it. */
void rd_access_pair(dc_thread *t, sh_granule *g, uintptr_t addr, int is_write, uintptr_t pc) {
  pieces(t, g, addr, 16, is_write ? SH_WRITE : 0, pc);
}

void rd_access_unaligned(uintptr_t addr, unsigned size, int is_write, uintptr_t pc) {
  if (size <= 16 && !(addr >> SH_ADDR_BITS) && !((addr ^ (addr + size - 1)) >> SH_REGION_BITS)) {
    sh_granule *region =
        atomic_load_explicit(&sh_regions[addr >> SH_REGION_BITS], memory_order_relaxed);
    if (region) {
      pieces(dc_tls, sh_in_region(region, addr), addr, size, is_write ? SH_WRITE : 0, pc);
      return;
    }
  }
  rd_access(addr, size, is_write, pc);
}

void rd_access(uintptr_t addr, unsigned size, int is_write, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (dc_unlikely(!t) || dc_unlikely(ignored(t, is_write))) return;
  access_sized(t, addr, size, is_write, pc);
}

void rd_vptr_more(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur, uintptr_t pc) {
  t->rd.in_vptr = 1;
  rd_access_more(t, g, addr, cur, pc);
  t->rd.in_vptr = 0;
}

void rd_vptr_access(uintptr_t addr, unsigned size, int is_write, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (t) t->rd.in_vptr = 1;
  rd_access(addr, size, is_write, pc);
  if (t) t->rd.in_vptr = 0;
}

void rd_range(uintptr_t addr, uintptr_t size, int is_write, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (!t || ignored(t, is_write) || !size) return;
  access_sized(t, addr, size, is_write, pc);
}

void rd_object_access(uintptr_t obj, int kind, uintptr_t pc) {
  dc_thread *t = dc_self();
  const int is_write = kind == RD_OBJ_WRITE;
  if (!t || ignored(t, is_write)) return;
  access_one(t, obj, 1,
             is_write ? SH_WRITE : kind == RD_OBJ_READ_ATOMIC ? SH_ATOMIC : 0, pc);
}

/* Can cell p conflict with some access of this thread (mine: the thread's
 * slot field)?  Not when it is empty, or the thread's own and no freed
 * mark (conflicts: a thread's accesses never race with each other; a freed
 * mark races with every access).  1 or 0, without a branch. */
static inline uint64_t noisy(uint64_t p, uint64_t mine) {
  const uint64_t who = ((uint64_t)SH_MAX_TID << SH_TID_SHIFT) | SH_FREED;
  return (uint64_t)(p != 0) & (uint64_t)(((p ^ mine) & who) != 0);
}

/* The granules from g (at addr) to stop, in g's region, that share g's word
 * of plane B's bitmap: their number, and their bits in *b (bit k: g + k). */
static inline unsigned b_run(const sh_granule *g, uintptr_t addr, uintptr_t stop, uint64_t *b) {
  uint64_t bit;
  const _Atomic uint64_t *word = sh_b_word(g, &bit);
  const unsigned first = (unsigned)__builtin_ctzll(bit);
  const uintptr_t left = (stop - (addr & ~(uintptr_t)7) + 7) / 8;
  const unsigned n = 64 - first < left ? 64 - first : (unsigned)left;
  *b = atomic_load_explicit(word, memory_order_relaxed) >> first &
       (n == 64 ? ~0ull : (1ull << n) - 1);
  return n;
}

/* A granule of mark_freed that it leaves to range_flags' way.  w as in
 * range_quick; returns it as it is after (0 after a renewal). */
static DC_NOINLINE uint64_t mark_other(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur,
                                       uintptr_t pc, uint64_t a0, uint64_t a1, uint64_t w) {
  if (!range_quick(t, g, addr, cur, pc, a0, a1, &w, 1) &&
      range_granule(t, g, addr, cur, t->rd.floorw, pc, 1))
    return 0;
  return w;
}

/* The freed mark on [addr, addr + size): a write of every byte, as
 * range_flags makes it, but where the granule's cells are empty or this
 * thread's and plane B is unused (nearly always: the thread that frees a
 * block is most often the one that used it last), with plain stores and
 * no second look.  Any access of another thread there that the mark's
 * store could erase unseen is one that stored between this thread's load
 * and its store, nanoseconds apart, so it races with the free: a race that
 * is then reported only if that thread touches the block again (its next
 * access meets the mark), as ThreadSanitizer, which stores every access
 * that way, reports it.  The locked exchange per granule was 78% of a
 * program that frees blocks of up to 1 KiB (bench/micro/heap.sh);
 * other granules go the way of range_flags. */
static DC_NOINLINE void mark_freed(dc_thread *t, uintptr_t addr, uintptr_t size, uintptr_t pc) {
  const uint64_t fl = SH_WRITE | SH_FREED;
  rd_thread *r = &t->rd;
  const uint64_t mine = r->self & ((uint64_t)SH_MAX_TID << SH_TID_SHIFT);
  const int own = (int)(r->tid & 1);
  const uintptr_t end = addr + size, whole = end & ~(uintptr_t)7;
  if ((addr & 7) || whole <= addr) { /* not a whole granule at the start */
    range_flags(t, addr, size, fl, pc);
    return;
  }
  uint64_t cur = 0, w = 0;
  while (addr < whole) {
    uintptr_t stop_r;
    sh_granule *g = region_part(addr, whole, &stop_r);
    if (!g) {
      addr = stop_r;
      continue;
    }
    while (addr < stop_r) {
      uint64_t b;
      const unsigned n = b_run(g, addr, stop_r, &b);
      for (unsigned k = 0; k < n; k++, g++, addr += 8) {
        const uint64_t a0 = sh_load(&g->c[0]), a1 = sh_load(&g->c[1]);
        if (dc_unlikely(!w)) { /* the first granule, or the first after a renewal */
          cur = r->self | 0xffu | fl;
          if (!r->sites_full) w = cur | (uint64_t)rd_site_of(t, pc) << SH_SITE_SHIFT;
        }
        if (dc_likely(w && !(b >> k & 1) && !(noisy(a0, mine) | noisy(a1, mine)))) {
          if (!(a0 | a1)) sh_touch_ahead(g);
          atomic_store_explicit(&g->c[own].w, w, memory_order_relaxed);
          if (own ? a0 : a1) atomic_store_explicit(&g->c[own ^ 1].w, 0, memory_order_relaxed);
          continue;
        }
        w = mark_other(t, g, addr, cur, pc, a0, a1, w);
      }
    }
  }
  if (whole < end) range_flags(t, whole, end - whole, fl, pc);
}

/* Check a write of [addr, addr + size) against the cells there, and store
 * nothing: loads only, no locked exchange per granule (a freed block past
 * its marks: rd_free_range).  One region at a time, as range_flags goes; a
 * granule whose plane-A cells are quiet and whose plane B is unused costs
 * two loads and a test, any other the second look's check against no
 * cells, which would find nothing in the first kind either.  (Each granule
 * through the second look, its region looked up again, made SQLite's
 * frees cost 2.32 G of its 44.4 G instructions at size 8000; 1.22 G
 * since.) */
static void range_check(dc_thread *t, uintptr_t addr, uintptr_t size, uintptr_t pc) {
  static const uint64_t none[SH_CELLS];
  const rd_thread *r = &t->rd;
  const uint64_t mine = r->self & ((uint64_t)SH_MAX_TID << SH_TID_SHIFT);
  const uintptr_t end = addr + size;
  while (addr < end) {
    uintptr_t stop_r;
    sh_granule *g = region_part(addr, end, &stop_r);
    if (!g) {
      addr = stop_r;
      continue;
    }
    while (addr < stop_r) {
      /* the granules of one word of plane B's bitmap: first their bits and
       * the quiet test over all their cells, without a branch per granule
       * (the loop that tested each granule, its bit looked up again, was
       * 25 instructions a granule) */
      uint64_t loud, any = 0;
      const unsigned n = b_run(g, addr, stop_r, &loud);
      /* first whether they hold anything at all, two loads and an OR a
       * granule: most granules of a large block past its first KiB were
       * never touched, and the full test over them was most of a free's
       * time (bench/micro/heap.sh, blocks of up to 8 KiB: 1.49 -> 1.10 s,
       * clang TSan 0.98 s) */
      for (unsigned k = 0; k < n; k++) any |= sh_load(&g[k].c[0]) | sh_load(&g[k].c[1]);
      for (unsigned k = 0; any && k < n; k++)
        loud |= noisy(sh_load(&g[k].c[0]), mine) | noisy(sh_load(&g[k].c[1]), mine);
      if (!loud) {
        const uintptr_t past = (addr & ~(uintptr_t)7) + 8 * (uintptr_t)n;
        addr = past < stop_r ? past : stop_r;
        g += n;
        continue;
      }
      for (unsigned k = 0; k < n; k++, g++) {
        const uintptr_t stop = stop_r < (addr | 7) + 1 ? stop_r : (addr | 7) + 1;
        if (noisy(sh_load(&g->c[0]), mine) | noisy(sh_load(&g->c[1]), mine) || sh_b_used(g))
          recheck(t, g, addr, r->self | sh_bytes(addr & 7, (unsigned)(stop - addr)) | SH_WRITE,
                  pc, none, -1);
        addr = stop;
      }
    }
  }
}

void rd_free_range(uintptr_t addr, uintptr_t size, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (!t || t->rd.ignore_accesses | t->in_runtime || !size) return;
  /* Large blocks come from mmap and their pages go back to the kernel: the
   * range may be mapped again for anything, so forget it instead of marking
   * it (no use-after-free reports there, and no false ones). */
  if (size >= RD_FREE_MARK_MAX) {
    sh_forget(addr, size);
    return;
  }
  /* The free is a write of the whole block, checked against every earlier
   * access; the freed mark, which makes any later access a use after free,
   * goes on the first RD_FREE_MARK bytes, as ThreadSanitizer's does.  A mark
   * is a locked store per granule: SQLite frees its 4 KiB page buffers by
   * the thousand, and marking them whole was 42% of the samples of its
   * build without events (interceptors only). */
  uintptr_t mark = size < RD_FREE_MARK ? size : RD_FREE_MARK;
  mark_freed(t, addr, mark, pc);
  if (size > mark) range_check(t, addr + mark, size - mark, pc);
}

/* ------------------------------------------------------------ atomics */
/* An atomic operation that may synchronise runs between rd_atomic_pre and
 * rd_atomic_post, with its location's sync object locked, so the order in
 * which clocks are released and acquired is the order in which the memory
 * operations really happened (otherwise a later acquire could run before the
 * release whose value it read, and report a race that is not there). */
static int is_acquire(int mo) {
  return mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_CONSUME || mo == __ATOMIC_ACQ_REL ||
         mo == __ATOMIC_SEQ_CST;
}
static int is_release(int mo) {
  return mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_SEQ_CST;
}

rd_sync *rd_atomic_pre(uintptr_t addr) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return 0;
  rd_thread *r = &t->rd;
  if (r->ignore_sync || r->disabled) return 0;
  /* stores and read-modify-writes may release: the object is made */
  return rd_sync_get(addr, 1);
}

/* Atomic loads without the object's locks.  A load that acquires what
 * nobody released since the thread last acquired it there changes no
 * clock, yet took the bucket's lock and the object's: the LevelDB
 * workload's readers, walking one skiplist, did so at every step, and those
 * two locked instructions, bouncing between the cores, were most of
 * rd_sync_get's 5.5% of its cycles.  So a thread keeps, per address, the
 * object and its version when it last joined its clock (rd_aload, filled
 * by the locked path), and a load whose object shows that version, even,
 * both before and after the load (the seqlock's reader; rd_sync_get is the
 * writer) takes nothing: no store under the lock came in between (else the
 * version would have moved), so whatever it read, the clock it would join
 * is the one already joined.  When the version moved between the two
 * looks, the load is done again under the lock: joining the object's clock
 * after the load, without knowing whether the load read the store that
 * changed it, could order the thread after a release it did not see.
 * The object may have gone (a free, rd_sync_forget) and its memory serve
 * another: its uid tells (unique, never 0 in a live object; the memory of
 * the runtime's objects stays mapped, so reading it is safe). */
static inline rd_aload *aload_of(rd_thread *r, uintptr_t addr) {
  return &r->aload[(addr * 0x9E3779B97F4A7C15ull) >> (64 - RD_ALOAD_BITS)];
}

/* Is e's object still at e's address, at the version e joined into the
 * clock k (0: the thread's, 1: the acquire fences')? */
static inline int aload_current(const rd_aload *e, uintptr_t addr, int k) {
  if (e->addr != addr) return 0;
  const rd_sync *s = e->s;
  const uint32_t v = atomic_load_explicit(&s->seq, memory_order_acquire);
  return !(v & 1) && v == e->seq[k] && __atomic_load_n(&s->addr, __ATOMIC_RELAXED) == addr &&
         __atomic_load_n(&s->uid, __ATOMIC_RELAXED) == e->uid;
}

rd_sync *rd_atomic_load_pre(uintptr_t addr, int mo, int locked) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return 0;
  rd_thread *r = &t->rd;
  if (r->ignore_sync || r->disabled) return 0;
  if (!locked && aload_current(aload_of(r, addr), addr, !is_acquire(mo))) return RD_SYNC_JOINED;
  uint64_t none = 0;
  rd_sync *s = rd_sync_find(addr, &none);
  return s ? s : (rd_sync *)(uintptr_t)(none << 2 | 2);
}

/* After a locked load joined s's clock into clock k: remember its version
 * (stable: only holders that asked with create change it, and this one did
 * not; a failed compare-and-swap did, and is not remembered). */
static void aload_joined(rd_thread *r, const rd_sync *s, uintptr_t addr, int k) {
  const uint32_t v = atomic_load_explicit(&s->seq, memory_order_relaxed);
  if (v & 1) return;
  rd_aload *e = aload_of(r, addr);
  if (e->addr != addr || e->s != s || e->uid != s->uid)
    *e = (rd_aload){.addr = addr, .s = (rd_sync *)s, .uid = s->uid};
  e->seq[k] = v;
}

int rd_atomic_post(rd_sync *s, uintptr_t addr, unsigned size, int kind, int mo, uintptr_t pc) {
  dc_thread *t = dc_self();
  if ((uintptr_t)s & 3) { /* a load that took no lock (rd_atomic_load_pre) */
    /* the second look, after the load (the seqlock reader's) */
    atomic_thread_fence(memory_order_acquire);
    if (s == RD_SYNC_JOINED ? !aload_current(aload_of(&t->rd, addr), addr, !is_acquire(mo))
                            : !rd_sync_none_since(addr, (uintptr_t)s >> 2))
      return 0;
    s = 0;
  }
  if (!t || t->in_runtime) {
    if (s) rd_sync_unlock(s);
    return 1;
  }
  rd_thread *r = &t->rd;
  /* the access itself, in the epoch it releases (its own acquire does not
   * order it after earlier conflicting plain accesses) */
  if (!r->ignore_accesses) {
    uint64_t fl = SH_ATOMIC | (kind == RD_LOAD ? 0 : SH_WRITE);
    if ((addr & 7) + size <= 8)
      access_one(t, addr, size, fl, pc);
    else /* 16 bytes and generic sizes: granule by granule */
      range_flags(t, addr, size, fl, pc);
  }
  int released = 0;
  if (s) {
    rd_sync_touched(s); /* (sync.c: no release into it is taken back) */
    if (kind != RD_STORE) {
      if (is_acquire(mo))
        rd_vc_join(&r->vc, &s->vc);
      else /* relaxed read: an acquire fence later makes it synchronise */
        rd_vc_join(&r->acq_fence, &s->vc);
      if (kind == RD_LOAD) aload_joined(r, s, addr, !is_acquire(mo));
    }
    if (kind != RD_LOAD) {
      if (is_release(mo)) {
        rd_vc_join(&s->vc, &r->vc);
        released = 1;
      } else if (r->has_rel_fence) { /* relaxed write after a release fence */
        rd_vc_join(&s->vc, &r->rel_fence);
      }
    }
    rd_sync_unlock(s);
  }
  if (released) rd_tick(r);
  return 1;
}

/* Fences (ThreadSanitizer ignores them).  An acquire fence makes earlier
 * relaxed loads acquire; a release fence makes later relaxed stores release. */
void rd_fence(int mo) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return;
  rd_thread *r = &t->rd;
  if (r->ignore_sync || r->disabled) return;
  if (mo == __ATOMIC_ACQUIRE || mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_SEQ_CST)
    rd_vc_join(&r->vc, &r->acq_fence);
  if (mo == __ATOMIC_RELEASE || mo == __ATOMIC_ACQ_REL || mo == __ATOMIC_SEQ_CST) {
    rd_vc_copy(&r->rel_fence, &r->vc);
    r->has_rel_fence = 1;
    rd_tick(r);
  }
}
