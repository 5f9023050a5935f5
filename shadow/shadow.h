/* shadow.h: the one place that knows the shadow layout.
 *
 * Mapping (ASLR-proof): application addresses below 2^47 are split into 1 GiB
 * regions.  A region's shadow is reserved (MAP_NORESERVE) the first time an
 * access touches it, and found through a flat table of 2^17 region pointers,
 * so any layout and any mmap randomisation works: there is no fixed shadow
 * range that an application mapping could collide with.
 *
 * Cells: per 8-byte granule of application memory, four cells of 16 bytes,
 * each one access with its bytes (as ThreadSanitizer keeps four).  One
 * write cell per granule is not enough: adjacent small fields written by one
 * thread would overwrite each other's history and hide races on them.
 *
 * Planes: a granule's cells 0-1 and its cells 2-3 live in two planes, the
 * first two quarters of the region's shadow (SH_PLANE apart); a bitmap after
 * them has a bit per granule, set when its plane-B cells may hold something.
 * Most memory is only ever touched by one or two threads, or one or two kinds
 * of access, at a time: stores prefer plane A, and such granules never commit,
 * nor even read, plane B (reading untouched anonymous memory commits it on
 * kernels without the zero page).  So shadow is 32 / 8 = 4x on such memory,
 * 8x only where more accesses coexist (clang's TSan keeps 4-byte cells, 2x,
 * but no context per access; see docs).  Regions are aligned to SH_PLANE, so
 * a granule finds its bit without knowing its region.
 *
 * A cell header (w0) is one 64-bit word, read and written atomically; all
 * happens-before decisions use it alone:
 *   bits  0..7   the bytes of the granule accessed (bit i: byte i); any
 *                contiguous run, so an unaligned access is one cell per
 *                granule it touches and a range's pieces are exact
 *   bit   8      write
 *   bit   9      atomic
 *   bit  10      freed: the block was freed (any later access is a use after free)
 *   bits 11..15  checksum of w1 (detects a torn cell when reporting)
 *   bits 16..31  thread slot (reused by later threads: racedet/rd_thread.c)
 *   bits 32..63  epoch of that thread (0 = empty cell)
 * w1 holds the access's context: bits 0..31 interned context handle, bits
 * 32..63 the pc as a signed offset from the context's function pc.
 */
#ifndef DACCE_SHADOW_H
#define DACCE_SHADOW_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct sh_cell {
  _Atomic uint64_t w0;
  _Atomic uint64_t w1;
} sh_cell;

#define SH_CELLS 4
#define SH_CELLS_A 2 /* cells in plane A */
/* A granule's shadow in plane A (cells 0-1); its cells 2-3 are the same
 * place in plane B, SH_PLANE bytes on (sh_cell). */
typedef struct sh_granule {
  sh_cell c[SH_CELLS_A];
} sh_granule;

_Static_assert(sizeof(sh_cell) == 16, "shadow cell layout");
_Static_assert(sizeof(sh_granule) == 32, "32 bytes per 8-byte granule and plane");
_Static_assert(SH_CELLS == 2 * SH_CELLS_A && SH_CELLS_A == 2, "two planes of two cells");

#define SH_GRANULE 8u
#define SH_REGION_BITS 30u
#define SH_ADDR_BITS 47u
#define SH_REGIONS (1u << (SH_ADDR_BITS - SH_REGION_BITS))
#define SH_PLANE ((((uint64_t)1) << SH_REGION_BITS) / SH_GRANULE * sizeof(sh_granule))
#define SH_BITMAP ((((uint64_t)1) << SH_REGION_BITS) / SH_GRANULE / 8)
#define SH_REGION_SHADOW (2 * SH_PLANE + SH_BITMAP) /* reserved per region */

#define SH_MASK(w) ((unsigned)(w)&0xffu)
#define SH_WRITE (1ull << 8)
#define SH_ATOMIC (1ull << 9)
#define SH_FREED (1ull << 10)
#define SH_CHECK_BITS (0x1full << 11)
#define SH_CHECK(w) ((unsigned)((w) >> 11) & 0x1fu)
#define SH_TID(w) ((unsigned)((w) >> 16) & 0xffffu)
#define SH_EPOCH(w) ((uint32_t)((w) >> 32))
#define SH_EPOCH_BITS (0xffffffffull << 32)
#define SH_MAX_TID 0xffffu

/* the bytes [off, off + size) of a granule, off + size <= 8 */
static inline unsigned sh_bytes(unsigned off, unsigned size) {
  return ((1u << size) - 1) << off;
}
/* a cell's thread and epoch fields, nothing else */
static inline uint64_t sh_self(unsigned tid, uint32_t epoch) {
  return ((uint64_t)tid << 16) | ((uint64_t)epoch << 32);
}
static inline uint64_t sh_make(unsigned bytes, uint64_t flags, unsigned tid, uint32_t epoch,
                               uint64_t w1) {
  unsigned check = (unsigned)((w1 * 0x9E3779B97F4A7C15ull) >> 59);
  return (uint64_t)bytes | flags | ((uint64_t)check << 11) | ((uint64_t)tid << 16) |
         ((uint64_t)epoch << 32);
}
/* w0 with the checksum of a new w1 */
static inline uint64_t sh_with_check(uint64_t w0, uint64_t w1) {
  return sh_make(0, w0 & ~SH_CHECK_BITS, 0, 0, w1);
}
static inline int sh_check_ok(uint64_t w0, uint64_t w1) {
  return SH_CHECK(w0) == (unsigned)((w1 * 0x9E3779B97F4A7C15ull) >> 59);
}
/* Do two accesses share a byte? */
static inline int sh_overlap(uint64_t a, uint64_t b) { return (a & b & 0xffu) != 0; }
/* Are a's bytes all among b's? */
static inline int sh_within(uint64_t a, uint64_t b) { return (a & ~b & 0xffu) == 0; }
/* Are a's bytes one run (as every cell's must be)? */
static inline int sh_contiguous(uint64_t a) {
  unsigned m = SH_MASK(a);
  m >>= __builtin_ctz(m | 0x100u);
  return (m & (m + 1)) == 0;
}
/* Does cell c already record access cur for the detector's purposes: the
 * same thread and epoch, a superset of its bytes, the same atomicity, a
 * write if cur writes (a read is covered by a write too), a freed mark only
 * for a freed mark?  Then any later access that races with cur races with c
 * too, and storing cur would only cost a store.  cur carries no checksum. */
static inline int sh_covers_as(uint64_t c, uint64_t cur, int is_write) {
  uint64_t keep = ~(SH_CHECK_BITS | 0xffull | (is_write ? 0 : SH_WRITE));
  return !((c ^ cur) & keep) && !(cur & ~c & 0xffu);
}
static inline int sh_covers(uint64_t c, uint64_t cur) {
  return sh_covers_as(c, cur, (cur & SH_WRITE) != 0);
}
/* A cell as one 16-byte value: w0 in the low half, w1 in the high half. */
typedef unsigned __int128 sh_pair;
static inline uint64_t sh_pair_w0(sh_pair p) { return (uint64_t)p; }
static inline uint64_t sh_pair_w1(sh_pair p) { return (uint64_t)(p >> 64); }

/* Store (w0, w1) into cell c as one atomic step and return what the cell
 * held (lock cmpxchg16b; cells are 16-byte aligned).  seen_w0 is what the
 * caller read in w0, the first guess at the old value.  Every store of an
 * access goes through here: two threads that pick the same cell at the
 * same moment (both saw it empty) cannot both lose the other, because the
 * later one gets the earlier one's cell back and checks it.  Plain stores
 * let the later one erase the earlier one unseen.  The locked instruction
 * is also the full barrier (StoreLoad) between the store and the second
 * look at the other cells. */
static inline sh_pair sh_swap(sh_cell *c, uint64_t w0, uint64_t w1, uint64_t seen_w0) {
  volatile sh_pair *a = (volatile sh_pair *)(void *)c;
  const sh_pair want = ((sh_pair)w1 << 64) | w0;
  /* An empty cell is guessed all zero, not read: its page may never have
   * been touched (plane B), and a read there would map the kernel's zero
   * page, which the exchange then replaces: a second fault and a TLB
   * flush on every CPU.  A wrong guess costs one more exchange. */
  sh_pair old = seen_w0 ? ((sh_pair)atomic_load_explicit(&c->w1, memory_order_relaxed) << 64) |
                              seen_w0
                        : 0;
  for (;;) {
    sh_pair got = __sync_val_compare_and_swap(a, old, want);
    if (got == old) return old;
    old = got;
  }
}
/* Both words of cell c as they were at one moment (cold paths only: it is a
 * locked instruction). */
static inline sh_pair sh_load_pair(sh_cell *c) {
  return __sync_val_compare_and_swap((volatile sh_pair *)(void *)c, (sh_pair)0, (sh_pair)0);
}

/* A granule's shadow was empty when an access stored into it: if the
 * granule sits in the first or last cache line of its 4 KiB shadow page,
 * write-fault the page before or after it (in the same plane), ahead of a
 * sweep.  A page whose first touch is a read (the inline check's first
 * look) gets the kernel's shared zero page, and then, at the store, a
 * second fault that replaces it and flushes the TLB of every CPU running
 * the process (an IPI each; with transparent huge pages the huge zero page
 * is split into 512 such faults): a third of mergesort's run.  A locked
 * `or` of zero changes nothing, and on a page not yet there it is a write
 * fault, which allocates the page at once. */
static inline void sh_touch_ahead(const sh_granule *g) {
  const uintptr_t a = (uintptr_t)g, off = a & 4095;
  if (__builtin_expect(off - 64 < 4096 - 128, 1)) return;
  const uintptr_t n = off < 64 ? (a & ~(uintptr_t)4095) - 4096 : (a | 4095) + 1;
  if ((n ^ a) & ~(uintptr_t)(SH_PLANE - 1)) return; /* the plane's end */
  atomic_fetch_or_explicit((_Atomic uint64_t *)n, 0, memory_order_relaxed);
}

/* first byte and number of bytes (the bytes are contiguous) */
static inline unsigned sh_off(uint64_t w) { return (unsigned)__builtin_ctz(SH_MASK(w) | 0x100u); }
static inline unsigned sh_size(uint64_t w) { return (unsigned)__builtin_popcount(SH_MASK(w)); }

extern _Atomic(sh_granule *) sh_regions[SH_REGIONS];
sh_granule *sh_region_map(uintptr_t addr); /* slow path: reserve a region */

/* The granule of addr in its region's shadow r. */
static inline sh_granule *sh_in_region(sh_granule *r, uintptr_t addr) {
  return r + ((addr & ((1ull << SH_REGION_BITS) - 1)) >> 3);
}

/* Cell i (0..SH_CELLS-1) of granule g. */
static inline sh_cell *sh_cell_at(sh_granule *g, int i) {
  return i < SH_CELLS_A ? &g->c[i] : &((sh_granule *)((char *)g + SH_PLANE))->c[i - SH_CELLS_A];
}
/* The word of the plane-B bitmap that holds granule g's bit, and the bit. */
static inline _Atomic uint64_t *sh_b_word(const sh_granule *g, uint64_t *bit) {
  uintptr_t base = (uintptr_t)g & ~(uintptr_t)(SH_PLANE - 1);
  uintptr_t idx = ((uintptr_t)g & (SH_PLANE - 1)) / sizeof(sh_granule);
  *bit = 1ull << (idx & 63);
  return (_Atomic uint64_t *)(base + 2 * SH_PLANE) + idx / 64;
}
/* May g's plane-B cells hold something? */
static inline int sh_b_used(const sh_granule *g) {
  uint64_t bit;
  return (atomic_load_explicit(sh_b_word(g, &bit), memory_order_relaxed) & bit) != 0;
}
static inline void sh_b_mark(const sh_granule *g) {
  uint64_t bit;
  _Atomic uint64_t *w = sh_b_word(g, &bit);
  if (!(atomic_load_explicit(w, memory_order_relaxed) & bit))
    atomic_fetch_or_explicit(w, bit, memory_order_relaxed);
}

/* Does a cell of granule g already cover access cur (sh_covers)?  Plane A,
 * then plane B only where its bit is set: the check the inline fast path and
 * ranges make before the full one. */
static inline int sh_recorded(sh_granule *g, uint64_t cur) {
  for (int i = 0; i < SH_CELLS_A; i++)
    if (sh_covers(atomic_load_explicit(&g->c[i].w0, memory_order_relaxed), cur)) return 1;
  if (!sh_b_used(g)) return 0;
  for (int i = SH_CELLS_A; i < SH_CELLS; i++)
    if (sh_covers(atomic_load_explicit(&sh_cell_at(g, i)->w0, memory_order_relaxed), cur))
      return 1;
  return 0;
}

/* The granule of addr, or 0 for addresses the shadow does not cover. */
static inline sh_granule *sh_granule_of(uintptr_t addr) {
  if (__builtin_expect(addr >> SH_ADDR_BITS, 0)) return 0;
  sh_granule *r = atomic_load_explicit(&sh_regions[addr >> SH_REGION_BITS], memory_order_relaxed);
  if (__builtin_expect(!r, 0)) r = sh_region_map(addr);
  return sh_in_region(r, addr);
}

/* Forget the history of [addr, addr+size): a new block (malloc, mmap),
 * whose shadow gets huge pages when it is large (a big array, most likely
 * swept whole). */
void sh_reset(uintptr_t addr, uintptr_t size);
/* The same for memory that is not a new block: a thread's stack, of which
 * only the top is used (a huge page would commit 2 MiB of shadow for a few
 * KiB of frames, per thread), and freed memory. */
void sh_forget(uintptr_t addr, uintptr_t size);
/* Bytes of shadow committed (for statistics). */
uint64_t sh_regions_mapped(void);

#endif
