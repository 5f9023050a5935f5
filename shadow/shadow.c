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
  sh_granule *fresh = dc_mmap(SH_REGION_SHADOW);
  if (atomic_compare_exchange_strong(&sh_regions[idx], &r, fresh)) {
    atomic_fetch_add(&n_mapped, 1);
    return fresh;
  }
  dc_munmap(fresh, SH_REGION_SHADOW); /* another thread won */
  return r;
}

uint64_t sh_regions_mapped(void) { return atomic_load(&n_mapped); }

/* Only cells that hold something are written: shadow never touched reads
 * from the kernel's zero page, and storing zeros there would commit it (a
 * malloc'd block's shadow would cost memory before any access). */
static void clear(sh_granule *g) {
  for (int i = 0; i < SH_CELLS; i++)
    if (atomic_load_explicit(&g->c[i].w0, memory_order_relaxed))
      atomic_store_explicit(&g->c[i].w0, 0, memory_order_relaxed);
}

#define HUGE ((uintptr_t)2 << 20)
#define SH_HUGE_MIN ((uintptr_t)1 << 20) /* application bytes: 8 MiB of shadow */

void sh_reset(uintptr_t addr, uintptr_t size) {
  uintptr_t end = addr + size;
  addr &= ~(uintptr_t)(SH_GRANULE - 1);
  while (addr < end && !(addr >> SH_ADDR_BITS)) {
    uintptr_t region_end = (addr | ((1ull << SH_REGION_BITS) - 1)) + 1;
    uintptr_t stop = end < region_end ? end : region_end;
    sh_granule *r = atomic_load(&sh_regions[addr >> SH_REGION_BITS]);
    if (!r && stop - addr >= SH_HUGE_MIN) r = sh_region_map(addr);
    if (r) {
      sh_granule *g = sh_in_region(r, addr);
      uintptr_t n = (stop - addr + SH_GRANULE - 1) / SH_GRANULE;
      uintptr_t bytes = n * sizeof(sh_granule);
      /* The shadow of a large block (a big array, most likely swept whole)
       * is 8x its size: huge pages cut its page faults 512-fold.  Only the
       * 2 MiB-aligned interior, so small neighbours are not inflated; where
       * THP is off this does nothing. */
      if (stop - addr >= SH_HUGE_MIN) {
        uintptr_t lo = ((uintptr_t)g + HUGE - 1) & ~(uintptr_t)(HUGE - 1);
        uintptr_t hi = (uintptr_t)(g + (stop - addr) / SH_GRANULE) & ~(uintptr_t)(HUGE - 1);
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
      }
      if (bytes >= (1u << 20)) {
        /* whole pages go back to the kernel (they read as zero again) */
        uintptr_t lo = ((uintptr_t)g + 4095) & ~(uintptr_t)4095;
        uintptr_t hi = ((uintptr_t)(g + n)) & ~(uintptr_t)4095;
        for (sh_granule *p = g; (uintptr_t)p < lo; p++) clear(p);
        if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
        for (sh_granule *p = (sh_granule *)hi; p < g + n; p++) clear(p);
      } else {
        for (uintptr_t i = 0; i < n; i++) clear(&g[i]);
      }
    }
    addr = stop;
  }
}
