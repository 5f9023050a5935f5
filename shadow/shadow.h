/* shadow.h: the one place that knows the shadow layout.
 *
 * Mapping (ASLR-proof): application addresses below 2^47 are split into 1 GiB
 * regions.  A region's shadow is reserved (MAP_NORESERVE) the first time an
 * access touches it, and found through a flat table of 2^17 region pointers,
 * so any layout and any mmap randomisation works: there is no fixed shadow
 * range that an application mapping could collide with.
 *
 * Cells: per 8-byte granule of application memory, four cells of 8 bytes,
 * each one access with its bytes (as ThreadSanitizer keeps four).  One
 * write cell per granule is not enough: adjacent small fields written by one
 * thread would overwrite each other's history and hide races on them.
 *
 * Planes: a granule's cells 0-1 and its cells 2-3 live in two planes,
 * SH_PLANE apart; a bitmap just below plane A has a bit per granule, set
 * when its plane-B cells may hold something.
 * Most memory is only ever touched by one or two threads, or one or two kinds
 * of access, at a time: stores prefer plane A, and such granules never commit,
 * nor even read, plane B (reading untouched anonymous memory commits it on
 * kernels without the zero page).  So shadow is 16 / 8 = 2x on such memory,
 * as clang's ThreadSanitizer's four 4-byte cells are, and 4x only where more
 * accesses coexist.  Plane A is aligned to SH_PLANE, so a granule finds its
 * bit without knowing its region.
 *
 * A cell is one 64-bit word, read and written atomically:
 *   bits  0..7   the bytes of the granule accessed (bit i: byte i); any
 *                contiguous run, so an unaligned access is one cell per
 *                granule it touches and a range's pieces are exact
 *   bit   8      write
 *   bit   9      atomic
 *   bit  10      freed: the block was freed (any later access is a use after free)
 *   bits 11..30  site: the access's context and pc, interned in a table of
 *                the slot's occupant at that epoch (its incarnation,
 *                racedet/rd_thread.c and site.c), so it needs no global lock
 *                and 20 bits
 *   bits 31..43  thread slot (racedet/rd_thread.c): 8192 threads alive at once
 *   bits 44..63  epoch of that slot (0 = empty cell); a slot's epochs are
 *                shared by its successive threads, and a thread that uses
 *                them up moves to a fresh slot (rd_thread.c).  On top, so
 *                that "this thread's cell since its last release" is one
 *                compare (sh_covers)
 * Everything but the site is what the happens-before decisions use; the
 * site is read only to merge a thread's own accesses and to report.  Before, a cell
 * was 16 bytes (a header with a 32-bit epoch and 16-bit slot, and a word with
 * a global context handle and the pc): plane A alone was 4x, 321 of zstd's
 * 387 MB at its peak against clang TSan's 207 MB in all.
 */
#ifndef DACCE_SHADOW_H
#define DACCE_SHADOW_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct sh_cell {
  _Atomic uint64_t w;
} sh_cell;

#define SH_CELLS 4
#define SH_CELLS_A 2 /* cells in plane A */
/* A granule's shadow in plane A (cells 0-1); its cells 2-3 are the same
 * place in plane B, SH_PLANE bytes on (sh_cell). */
typedef struct sh_granule {
  sh_cell c[SH_CELLS_A];
} sh_granule;

_Static_assert(sizeof(sh_cell) == 8, "shadow cell layout");
_Static_assert(sizeof(sh_granule) == 16, "16 bytes per 8-byte granule and plane");
_Static_assert(SH_CELLS == 2 * SH_CELLS_A && SH_CELLS_A == 2, "two planes of two cells");

#define SH_GRANULE 8u
#define SH_REGION_BITS 30u
#define SH_ADDR_BITS 47u
#define SH_REGIONS (1u << (SH_ADDR_BITS - SH_REGION_BITS))
#define SH_PLANE ((((uint64_t)1) << SH_REGION_BITS) / SH_GRANULE * sizeof(sh_granule))
#define SH_BITMAP ((((uint64_t)1) << SH_REGION_BITS) / SH_GRANULE / 8)
/* A region's shadow, as reserved: the plane-B bitmap, then planes A and B.
 * sh_regions names plane A, aligned to SH_PLANE; the bitmap ends where plane
 * A starts, so that a granule finds its word at a displacement that fits
 * in the load instruction (sh_b_word: after plane B, 2^32 bytes on, it
 * took two instructions more, on every look at plane B's bit). */
#define SH_REGION_SHADOW (SH_BITMAP + 2 * SH_PLANE)

#define SH_WRITE (1ull << 8)
#define SH_ATOMIC (1ull << 9)
#define SH_FREED (1ull << 10)
#define SH_SITE_SHIFT 11
#define SH_SITE_BITS 20
#define SH_TID_SHIFT 31
#define SH_TID_BITS 13
#define SH_EPOCH_SHIFT 44
#define SH_EPOCH_BITS 20
_Static_assert(SH_SITE_SHIFT + SH_SITE_BITS == SH_TID_SHIFT &&
                   SH_TID_SHIFT + SH_TID_BITS == SH_EPOCH_SHIFT &&
                   SH_EPOCH_SHIFT + SH_EPOCH_BITS == 64,
               "the cell's fields fill its word, the epoch on top");
#define SH_MAX_TID ((1u << SH_TID_BITS) - 1)
#define SH_MAX_EPOCH ((1u << SH_EPOCH_BITS) - 1)
#define SH_MAX_SITE ((1u << SH_SITE_BITS) - 1)
#define SH_SITE_FIELD ((uint64_t)SH_MAX_SITE << SH_SITE_SHIFT)
#define SH_EPOCH_FIELD ((uint64_t)SH_MAX_EPOCH << SH_EPOCH_SHIFT)

#define SH_MASK(w) ((unsigned)(w)&0xffu)
#define SH_TID(w) ((unsigned)((w) >> SH_TID_SHIFT) & SH_MAX_TID)
#define SH_EPOCH(w) ((uint32_t)((w) >> SH_EPOCH_SHIFT))
#define SH_SITE(w) ((uint32_t)((w) >> SH_SITE_SHIFT) & SH_MAX_SITE)

/* the bytes [off, off + size) of a granule, off + size <= 8 */
static inline unsigned sh_bytes(unsigned off, unsigned size) {
  return ((1u << size) - 1) << off;
}
/* a cell's thread and epoch fields, nothing else */
static inline uint64_t sh_self(unsigned tid, uint32_t epoch) {
  return ((uint64_t)tid << SH_TID_SHIFT) | ((uint64_t)epoch << SH_EPOCH_SHIFT);
}
static inline uint64_t sh_make(unsigned bytes, uint64_t flags, unsigned tid, uint32_t epoch,
                               uint32_t site) {
  return (uint64_t)bytes | flags | sh_self(tid, epoch) | ((uint64_t)site << SH_SITE_SHIFT);
}
/* cell w with another site */
static inline uint64_t sh_with_site(uint64_t w, uint32_t site) {
  return (w & ~SH_SITE_FIELD) | ((uint64_t)site << SH_SITE_SHIFT);
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
/* The fields in which a cell that covers access cur (sh_covers) equals it:
 * the thread, atomicity, the freed mark and, for a write, the write bit. */
static inline uint64_t sh_covers_keep(uint64_t cur) {
  return ((uint64_t)SH_MAX_TID << SH_TID_SHIFT) | SH_ATOMIC | SH_FREED | (cur & SH_WRITE);
}
/* Does cell c already record access cur for the detector's purposes: the
 * same thread, since its last release (an epoch at least floor, the epoch
 * after that release, as a cell's top bits: floorw), a superset of its
 * bytes, the same atomicity, a write if cur writes (a read is covered by a
 * write too), a freed mark only for a freed mark?  Then any later access
 * that races with cur races with c too, and storing cur would only cost a
 * store.  A thread's epochs between two releases are interchangeable:
 * every clock value it publishes is the epoch of a release, so no clock
 * holds one of them without the others.  (Epochs that are not releases:
 * a new table of sites, rd_thread.c.)  The sites do not matter (cur has
 * none), nor does an empty cell's thread field match only thread 0's
 * (floorw is never 0). */
static inline int sh_covers_kind(uint64_t c, uint64_t cur, uint64_t floorw) {
  return !((c ^ cur) & sh_covers_keep(cur)) && c >= floorw; /* all but the bytes */
}
static inline int sh_covers(uint64_t c, uint64_t cur, uint64_t floorw) {
  return sh_covers_kind(c, cur, floorw) && !(cur & ~c & 0xffu);
}
/* The bytes of cur that cell c covers as sh_covers would if they were all
 * of cur's.  Cells that together cover every byte of cur record it as one
 * would: a later access that races with cur races on some byte, and the
 * cell with that byte is this thread's since its last release, of cur's
 * atomicity, and cur's kind or a write. */
static inline unsigned sh_covered_bytes(uint64_t c, uint64_t cur, uint64_t floorw) {
  return sh_covers_kind(c, cur, floorw) ? (unsigned)(c & 0xffu) : 0;
}
/* sh_covers for an access to the whole granule (bytes 0xff), which a cell
 * covers only with all eight: keep (sh_whole_keep of the access) is
 * computed once for a run of granules, a range's. */
static inline uint64_t sh_whole_keep(uint64_t cur) { return sh_covers_keep(cur) | 0xffu; }
static inline int sh_covers_whole(uint64_t c, uint64_t cur, uint64_t keep, uint64_t floorw) {
  return !((c ^ cur) & keep) && c >= floorw;
}
/* The same for a cell of cur's own epoch, the inline check's test: c and
 * cur differ in none of cur's bytes and in no field but the bytes, the site
 * and, for a read, the write bit.  A load, an xor, a test and a branch a
 * cell, with differ (sh_differ of cur's bytes and write bit, cur & 0x1ff)
 * computed once an access. */
static inline uint64_t sh_differ(uint64_t kind) {
  return ~(SH_SITE_FIELD | 0xffull | SH_WRITE) | kind;
}
static inline int sh_covers_now(uint64_t c, uint64_t cur, uint64_t differ) {
  return !((c ^ cur) & differ);
}
/* Do two cells name the same access but for bytes and site: thread, epoch,
 * kind? */
static inline int sh_same_kind(uint64_t a, uint64_t b) {
  return !((a ^ b) & ~(SH_SITE_FIELD | 0xffull));
}

/* Store w into cell c as one atomic step and return what the cell held
 * (lock xchg).  Every store of an access goes through here: two threads
 * that pick the same cell at the same moment (both saw it empty) cannot
 * both lose the other, because the later one gets the earlier one's cell
 * back and checks it.  Plain stores let the later one erase the earlier one
 * unseen.  The locked instruction is also the full barrier (StoreLoad)
 * between the store and the second look at the other cells; and a first
 * touch of a shadow page is a write fault, never the kernel's zero page
 * first (sh_touch_ahead). */
static inline uint64_t sh_swap(sh_cell *c, uint64_t w) {
  return atomic_exchange_explicit(&c->w, w, memory_order_seq_cst);
}
static inline uint64_t sh_load(const sh_cell *c) {
  return atomic_load_explicit(&c->w, memory_order_relaxed);
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
 * fault, which allocates the page at once.  A touch into the next 2 MiB of
 * the plane asks whether the 2 MiB the sweep leaves are nearly all there
 * (sh_huge_ahead): then the next ones are advised huge pages first, and
 * this touch commits them in one fault. */
#define SH_HUGE_BITS 21 /* a transparent huge page: 2 MiB */
void sh_huge_ahead(uintptr_t from, uintptr_t to); /* shadow.c */
static inline void sh_touch_ahead(const sh_granule *g) {
  const uintptr_t a = (uintptr_t)g, off = a & 4095;
  if (__builtin_expect(off - 64 < 4096 - 128, 1)) return;
  const uintptr_t n = off < 64 ? (a & ~(uintptr_t)4095) - 4096 : (a | 4095) + 1;
  if ((n ^ a) & ~(uintptr_t)(SH_PLANE - 1)) return; /* the plane's end */
  if (__builtin_expect(((n ^ a) >> SH_HUGE_BITS) != 0, 0)) sh_huge_ahead(a, n);
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

/* Cell i (0..SH_CELLS-1) of granule g: plane i / 2, cell i % 2.  Without a
 * branch: the slow path computes it for a variable i (an array of the four
 * addresses cost it ten instructions). */
static inline sh_cell *sh_cell_at(sh_granule *g, int i) {
  return (sh_cell *)((char *)g + ((unsigned)i >> 1) * SH_PLANE) + (i & 1);
}
/* The plane-B bitmap of the region whose plane A starts at plane_a. */
static inline _Atomic uint64_t *sh_b_bitmap(uintptr_t plane_a) {
  return (_Atomic uint64_t *)(plane_a - SH_BITMAP);
}
/* The word of the plane-B bitmap that holds granule g's bit, and the bit. */
static inline _Atomic uint64_t *sh_b_word(const sh_granule *g, uint64_t *bit) {
  const uintptr_t a = (uintptr_t)g, idx = (a & (SH_PLANE - 1)) / sizeof(sh_granule);
  *bit = 1ull << (idx & 63);
  return sh_b_bitmap(a & ~(uintptr_t)(SH_PLANE - 1)) + idx / 64;
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

/* Is access cur recorded in granule g: does one of its cells already cover
 * it (sh_covers)?  Plane A, then plane B only where its bit is set: the
 * check ranges make before the full one.  Returns -1 if it is, else plane
 * B's bit as it was read (0 or 1): the full check needs it and need not
 * ask again (sh_recorded_b; sh_recorded_in_b: its plane-B half, for a
 * caller that asked plane A itself). */
static inline __attribute__((always_inline)) int sh_recorded_in_b(sh_granule *g, uint64_t cur,
                                                               uint64_t floorw) {
  if (!sh_b_used(g)) return 0;
  if (sh_covers(sh_load(sh_cell_at(g, 2)), cur, floorw) ||
      sh_covers(sh_load(sh_cell_at(g, 3)), cur, floorw))
    return -1;
  return 1;
}
static inline __attribute__((always_inline)) int sh_recorded_b(sh_granule *g, uint64_t cur,
                                                            uint64_t floorw) {
  if (sh_covers(sh_load(&g->c[0]), cur, floorw) || sh_covers(sh_load(&g->c[1]), cur, floorw))
    return -1;
  return sh_recorded_in_b(g, cur, floorw);
}
/* Does a plane-A cell of g record cur in its own epoch (sh_covers_now)?
 * The inline check's test, for each granule an access touches. */
static inline __attribute__((always_inline)) int sh_covered_now_a(const sh_granule *g,
                                                                uint64_t cur, uint64_t differ) {
  return __builtin_expect(sh_covers_now(sh_load(&g->c[0]), cur, differ), 1) ||
         sh_covers_now(sh_load(&g->c[1]), cur, differ);
}
/* The same in plane B alone, for a cell of cur's epoch (sh_covers_now). */
static inline __attribute__((always_inline)) int sh_recorded_now_in_b(sh_granule *g,
                                                                   uint64_t cur) {
  if (!sh_b_used(g)) return 0;
  const uint64_t differ = sh_differ(cur & (0xffu | SH_WRITE));
  return sh_covers_now(sh_load(sh_cell_at(g, 2)), cur, differ) ||
                 sh_covers_now(sh_load(sh_cell_at(g, 3)), cur, differ)
             ? -1
             : 1;
}

/* The granule of addr, or 0 for addresses the shadow does not cover. */
static inline sh_granule *sh_granule_of(uintptr_t addr) {
  if (__builtin_expect(addr >> SH_ADDR_BITS, 0)) return 0;
  sh_granule *r = atomic_load_explicit(&sh_regions[addr >> SH_REGION_BITS], memory_order_relaxed);
  if (__builtin_expect(!r, 0)) r = sh_region_map(addr);
  return sh_in_region(r, addr);
}

/* Pages that nothing can write: mapped by the program without PROT_WRITE
 * (racedet/intercept_mmap.c) and neither unmapped, remapped nor given to
 * mprotect since.  A read there cannot be half of a race (the other half
 * would be a write), so it is neither checked nor recorded: no shadow for
 * a read-only file mapping that threads share (the LevelDB workload's
 * tables), where one thread's cell per granule was 2x and several
 * threads' 4x (plane B, scattered: whole pages for one granule).  A bit
 * per 4 KiB page of the 2^47-byte address space (4 GiB reserved at the
 * first such mapping, committed where its bits are); sh_ro_bits is 0 until
 * then, so a program that maps nothing read-only pays one load and branch
 * per slow path of a read.  (A mapping made read-only by mprotect is not
 * added: its earlier writes' cells must still meet later reads.) */
extern _Atomic(_Atomic uint64_t *) sh_ro_bits;
static inline int sh_ro_page(uintptr_t addr) {
  _Atomic uint64_t *b = atomic_load_explicit(&sh_ro_bits, memory_order_relaxed);
  if (__builtin_expect(!b, 1) || addr >> SH_ADDR_BITS) return 0;
  return (int)(atomic_load_explicit(&b[addr >> 18], memory_order_relaxed) >> (addr >> 12 & 63) & 1);
}
/* Is every page of [addr, addr + size) read-only (size > 0)? */
int sh_ro_all(uintptr_t addr, uintptr_t size);
static inline int sh_ro_range(uintptr_t addr, uintptr_t size) {
  return __builtin_expect(!atomic_load_explicit(&sh_ro_bits, memory_order_relaxed), 1)
             ? 0
             : sh_ro_all(addr, size);
}
/* [addr, addr + size)'s pages become read-only (ro) or not. */
void sh_ro_mark(uintptr_t addr, uintptr_t size, int ro);

/* Forget the history of [addr, addr+size): a new block (malloc, mmap),
 * whose shadow regions are reserved at once when it is large. */
void sh_reset(uintptr_t addr, uintptr_t size);
/* The same for memory that is not a new block: a thread's stack, freed
 * memory. */
void sh_forget(uintptr_t addr, uintptr_t size);
/* Bytes of shadow committed (for statistics). */
uint64_t sh_regions_mapped(void);
/* Clear every cell, in every region's planes A and B, whose slot (SH_TID)
 * is a bit of the bitmap set; returns how many.  Only resident shadow is
 * read.  (racedet/rd_thread.c: slots reclaimed.) */
uint64_t sh_sweep(const uint64_t *set);

#endif
