/* shadow.c: reserving shadow regions and resetting ranges (layout: shadow.h). */
#define _GNU_SOURCE
#include <sys/mman.h>

#include "../encoder/internal.h"
#include "shadow.h"

_Atomic(sh_granule *) sh_regions[SH_REGIONS];
static _Atomic uint64_t n_mapped;

DC_NOINLINE sh_granule *sh_region_map(uintptr_t addr) {
  uintptr_t idx = addr >> SH_REGION_BITS;
  sh_granule *r = atomic_load(&sh_regions[idx]);
  if (r) return r;
  /* plane A aligned to SH_PLANE, the bitmap below it (SH_REGION_SHADOW):
   * reserve a plane more, trim the ends */
  char *raw = dc_mmap(SH_REGION_SHADOW + SH_PLANE);
  char *al = (char *)(((uintptr_t)raw + SH_BITMAP + SH_PLANE - 1) & ~(uintptr_t)(SH_PLANE - 1));
  char *start = al - SH_BITMAP, *end = al + 2 * SH_PLANE;
  if (start > raw) dc_munmap(raw, (size_t)(start - raw));
  if (raw + SH_REGION_SHADOW + SH_PLANE > end)
    dc_munmap(end, (size_t)(raw + SH_REGION_SHADOW + SH_PLANE - end));
  sh_granule *fresh = (sh_granule *)al;
  if (atomic_compare_exchange_strong(&sh_regions[idx], &r, fresh)) {
    atomic_fetch_add(&n_mapped, 1);
    return fresh;
  }
  dc_munmap(start, SH_REGION_SHADOW); /* another thread won */
  return r;
}

uint64_t sh_regions_mapped(void) { return atomic_load(&n_mapped); }

/* Only cells that hold something are written: storing zeros into shadow
 * never touched would commit it (a malloc'd block's shadow would cost memory
 * before any access).  Reading it is free only where the kernel maps its
 * zero page; hence plane B is read only where its bit is set. */
static void clear(sh_granule *g) {
  for (int i = 0; i < SH_CELLS_A; i++)
    if (sh_load(&g->c[i])) atomic_store_explicit(&g->c[i].w, 0, memory_order_relaxed);
}

/* Plane B of granules [i, n) from g (plane A): only where the bitmap says
 * it may hold something; then the bits go. */
static void clear_b_words(sh_granule *g, uintptr_t i, uintptr_t n) {
  while (i < n) {
    uint64_t bit;
    _Atomic uint64_t *w = sh_b_word(g + i, &bit);
    unsigned first = (unsigned)__builtin_ctzll(bit);
    uintptr_t k = 64 - first < n - i ? 64 - first : n - i; /* granules in this word */
    uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << first;
    uint64_t have = atomic_load_explicit(w, memory_order_relaxed) & mask;
    if (have) {
      for (uintptr_t j = 0; j < k; j++)
        if (have & (bit << j)) clear((sh_granule *)((char *)(g + i + j) + SH_PLANE));
      atomic_fetch_and_explicit(w, ~mask, memory_order_relaxed);
    }
    i += k;
  }
}

/* A bitmap page covers this many granules; their plane B is 512 KiB. */
#define B_PAGE_GRANULES ((uintptr_t)4096 * 8)

static void clear_b(sh_granule *g, uintptr_t n) {
  /* whole bitmap pages, and the plane B they cover, go back to the kernel
   * (reading them would commit them) */
  uintptr_t base = (uintptr_t)g & ~(uintptr_t)(SH_PLANE - 1);
  uintptr_t first = ((uintptr_t)g - base) / sizeof(sh_granule);
  uintptr_t lo = (first + B_PAGE_GRANULES - 1) / B_PAGE_GRANULES * B_PAGE_GRANULES;
  uintptr_t hi = (first + n) / B_PAGE_GRANULES * B_PAGE_GRANULES;
  if (hi <= lo) {
    clear_b_words(g, 0, n);
    return;
  }
  clear_b_words(g, 0, lo - first);
  madvise((void *)(base + SH_PLANE + lo * sizeof(sh_granule)), (hi - lo) * sizeof(sh_granule),
          MADV_DONTNEED);
  madvise((char *)sh_b_bitmap(base) + lo / 8, (hi - lo) / 8, MADV_DONTNEED);
  clear_b_words(g, hi - first, n);
}

#define HUGE ((uintptr_t)1 << SH_HUGE_BITS)
#define SH_BLOCK_MIN ((uintptr_t)1 << 20) /* application bytes: 2 MiB of plane A */
#define SH_DROP_MIN ((uintptr_t)128 << 10) /* application bytes: 256 KiB per plane */
#define HUGE_DENSE (3 * (HUGE / 4096) / 4) /* of a huge page's 4 KiB pages */

/* The crossings asked about (sh_huge_ahead): the 2 MiB of plane A a touch
 * went into, | 1 if it went forward; a table of the whole process, each
 * crossing in one slot (hashed), relaxed (a lost update only asks again). */
#define ASKED 4096u
static _Atomic uintptr_t asked[ASKED];
static inline _Atomic uintptr_t *asked_slot(uintptr_t stretch) {
  return &asked[dc_hash_word(stretch >> SH_HUGE_BITS) & (ASKED - 1)];
}

/* A sweep's touch ahead (sh_touch_ahead) goes from plane A's 2 MiB at from
 * into the 2 MiB at to.  Where at least three quarters of the pages it
 * leaves are there, the sweep is dense: the 2 MiB ahead are advised huge
 * pages, which cut a dense sweep's page faults 512-fold (a sweep over a
 * large array otherwise spends a tenth of its time in the page faults of
 * its shadow).  Where it is sparse (an access per MiB of a large table)
 * they stay 4 KiB pages: a huge page for every touched 2 MiB of shadow,
 * as a large block's plane A had when it was advised at its allocation,
 * committed 2.1 GB for 1024 bytes written one per MiB of a 1 GiB block
 * (tests/racedet/sparse_block.c).  Plane A only: the caller's. */
void sh_huge_ahead(uintptr_t from, uintptr_t to) {
  /* A sweep crosses each 2 MiB once; the same crossing again and again is
   * a block whose shadow starts or ends a 2 MiB stretch, handed out again
   * after each free, whose first store after each malloc finds fresh
   * shadow: asked about once, while its slot keeps it (the shadow given
   * back to the kernel forgets it: reset_a).  (The runtime's own small
   * blocks, a first block of each of the sixteen classes at such a
   * stretch, made bench/micro/heap.sh's blocks of up to 64 bytes take
   * 0.45 s against 0.16 until their runs skipped a page at each end, which
   * this memory replaces; a per-thread memory of 32 slots still met
   * itself there: tests/racedet/heap_small_blocks.c.) */
  const uintptr_t stretch = to & ~(HUGE - 1), key = stretch | (to > from);
  _Atomic uintptr_t *slot = asked_slot(stretch);
  if (atomic_load_explicit(slot, memory_order_relaxed) == key) return;
  atomic_store_explicit(slot, key, memory_order_relaxed);
  unsigned char vec[HUGE / 4096];
  if (mincore((void *)(from & ~(HUGE - 1)), HUGE, vec)) return;
  unsigned there = 0;
  for (size_t i = 0; i < sizeof vec; i++) there += vec[i] & 1;
  if (there >= HUGE_DENSE) madvise((void *)(to & ~(HUGE - 1)), HUGE, MADV_HUGEPAGE);
}

/* Reset plane A of n granules from g. */
static void reset_a(sh_granule *g, uintptr_t n) {
  if (n * SH_GRANULE >= SH_DROP_MIN) {
    /* whole pages go back to the kernel (they read as zero again) */
    uintptr_t lo = ((uintptr_t)g + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)(g + n)) & ~(uintptr_t)4095;
    for (sh_granule *p = g; (uintptr_t)p < lo; p++) clear(p);
    if (hi > lo) {
      madvise((void *)lo, hi - lo, MADV_DONTNEED);
      /* (a later sweep there is asked about again) */
      for (uintptr_t x = lo & ~(HUGE - 1); x < hi; x += HUGE) {
        _Atomic uintptr_t *slot = asked_slot(x);
        if ((atomic_load_explicit(slot, memory_order_relaxed) & ~(uintptr_t)1) == x)
          atomic_store_explicit(slot, 0, memory_order_relaxed);
      }
    }
    for (sh_granule *p = (sh_granule *)hi; p < g + n; p++) clear(p);
  } else {
    for (uintptr_t i = 0; i < n; i++) clear(&g[i]);
  }
}

/* block: a new block, whose shadow regions are reserved at once when it is
 * large */
static void reset(uintptr_t addr, uintptr_t size, int block) {
  sh_ro_mark(addr, size, 0); /* new memory, or gone: not known read-only */
  uintptr_t end = addr + size;
  addr &= ~(uintptr_t)(SH_GRANULE - 1);
  while (addr < end && !(addr >> SH_ADDR_BITS)) {
    uintptr_t region_end = (addr | ((1ull << SH_REGION_BITS) - 1)) + 1;
    uintptr_t stop = end < region_end ? end : region_end;
    sh_granule *r = atomic_load(&sh_regions[addr >> SH_REGION_BITS]);
    if (!r && block && stop - addr >= SH_BLOCK_MIN) r = sh_region_map(addr);
    if (r) {
      sh_granule *g = sh_in_region(r, addr);
      uintptr_t n = (stop - addr + SH_GRANULE - 1) / SH_GRANULE;
      reset_a(g, n);
      clear_b(g, n);
    }
    addr = stop;
  }
}

void sh_reset(uintptr_t addr, uintptr_t size) { reset(addr, size, 1); }
void sh_forget(uintptr_t addr, uintptr_t size) { reset(addr, size, 0); }

/* Clear the cells of [p, p + size) of one plane whose slot (SH_TID) is in
 * set, on resident pages only (mincore): the sweep reads no page that is
 * not there, so it commits nothing.  A cell that changed since it was read
 * is left: it holds an access made since. */
static void sweep_range(char *p, uint64_t size, const uint64_t *set, uint64_t *cleared) {
  enum { CHUNK = 8192 }; /* pages per mincore call */
  unsigned char res[CHUNK];
  for (uint64_t off = 0; off < size; off += (uint64_t)CHUNK * 4096) {
    const uint64_t len = size - off < (uint64_t)CHUNK * 4096 ? size - off : (uint64_t)CHUNK * 4096;
    if (mincore(p + off, len, res)) continue;
    for (uint64_t pg = 0; pg < len / 4096; pg++) {
      if (!(res[pg] & 1)) continue;
      sh_cell *c = (sh_cell *)(p + off + pg * 4096);
      for (unsigned k = 0; k < 4096 / sizeof(sh_cell); k++) {
        uint64_t w = sh_load(&c[k]);
        const unsigned s = SH_TID(w);
        if (w && (set[s / 64] >> (s % 64) & 1) &&
            atomic_compare_exchange_strong_explicit(&c[k].w, &w, 0, memory_order_relaxed,
                                                    memory_order_relaxed))
          (*cleared)++;
      }
    }
  }
}

uint64_t sh_sweep(const uint64_t *set) {
  uint64_t cleared = 0;
  for (uint32_t i = 0; i < SH_REGIONS; i++) {
    sh_granule *r = atomic_load_explicit(&sh_regions[i], memory_order_acquire);
    if (!r) continue;
    sweep_range((char *)r, SH_PLANE, set, &cleared);
    sweep_range((char *)r + SH_PLANE, SH_PLANE, set, &cleared);
  }
  return cleared;
}

/* ------------------------------------------------------------ read-only pages
 * (shadow.h: sh_ro_page) */
_Atomic(_Atomic uint64_t *) sh_ro_bits;
#define RO_PAGES (((uintptr_t)1 << SH_ADDR_BITS) >> 12)

int sh_ro_all(uintptr_t addr, uintptr_t size) {
  for (uintptr_t p = addr & ~(uintptr_t)4095; p < addr + size; p += 4096)
    if (!sh_ro_page(p)) return 0;
  return 1;
}

void sh_ro_mark(uintptr_t addr, uintptr_t size, int ro) {
  _Atomic uint64_t *b = atomic_load_explicit(&sh_ro_bits, memory_order_acquire);
  if (!b) {
    if (!ro) return; /* nothing is read-only yet */
    _Atomic uint64_t *fresh = dc_mmap(RO_PAGES / 8);
    if (atomic_compare_exchange_strong(&sh_ro_bits, &b, fresh))
      b = fresh;
    else
      dc_munmap(fresh, RO_PAGES / 8); /* another thread won */
  }
  uintptr_t lo = addr >> 12, hi = (addr + size + 4095) >> 12;
  if (lo >= RO_PAGES) return;
  if (hi > RO_PAGES) hi = RO_PAGES;
  for (uintptr_t pg = lo; pg < hi;) {
    const unsigned first = (unsigned)(pg & 63);
    const uintptr_t k = 64 - first < hi - pg ? 64 - first : hi - pg; /* pages in this word */
    const uint64_t mask = (k == 64 ? ~0ull : ((1ull << k) - 1)) << first;
    _Atomic uint64_t *w = &b[pg >> 6];
    if (ro)
      atomic_fetch_or_explicit(w, mask, memory_order_relaxed);
    else if (atomic_load_explicit(w, memory_order_relaxed) & mask) /* (a write only if set) */
      atomic_fetch_and_explicit(w, ~mask, memory_order_relaxed);
    pg += k;
  }
}
