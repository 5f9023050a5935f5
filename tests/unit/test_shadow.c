/* test_shadow.c: what the shadow cells hold after single accesses.
 *
 * Drives the detector's access entries directly (rd_access, rd_range) on one
 * thread and inspects the cells of the granules touched: an access takes
 * exactly one cell per granule it touches, with exactly its bytes, whatever
 * its alignment (an unaligned 8-byte write is two cells, not the five
 * power-of-two pieces it used to be split into, which crowded out other
 * threads' history), and repeating it in the same epoch adds nothing. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../racedet/racedet.h"

#include "check.h"

void dc_func_entry(uintptr_t cs, uintptr_t callee, uintptr_t sp);
void dc_func_exit(uintptr_t ra, uintptr_t sp);

static _Alignas(64) unsigned char mem[320];

/* the live cells of the granule at p: how many, and the byte mask and
 * flags of the last one */
static int cells(const void *p, unsigned *bytes, uint64_t *w0) {
  sh_granule *g = sh_granule_of((uintptr_t)p);
  int n = 0;
  for (int i = 0; i < SH_CELLS; i++) {
    uint64_t w = sh_load(sh_cell_at(g, i));
    if (w) n++, *bytes = SH_MASK(w), *w0 = w;
  }
  return n;
}

/* the granule's one live cell (0 if it has none or several) */
static uint64_t only_cell(const void *p) {
  unsigned bytes = 0;
  uint64_t w = 0;
  return cells(p, &bytes, &w) == 1 ? w : 0;
}

/* a cell's decoded site: "ctx pc merged", or "?" */
static const char *site_str(uint64_t cell, char *buf) {
  uint32_t ctx;
  uintptr_t at;
  int m;
  if (!rd_cell_site(cell, 0, &ctx, 0, &at, &m)) return "?";
  snprintf(buf, 64, "%u %lx %d", ctx, (unsigned long)at, m);
  return buf;
}

/* Does the mapping that holds p have VmFlags flag ("nh": no huge pages,
 * "hg": huge pages asked for) in /proc/self/smaps?  -1: no such mapping. */
static int vm_flag(const void *p, const char *flag) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int in = 0, got = -1;
  while (got < 0 && fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (in && !strncmp(line, "VmFlags:", 8)) {
      got = 0;
      for (char *tok = strtok(line + 8, " \n"); tok; tok = strtok(0, " \n"))
        if (!strcmp(tok, flag)) got = 1;
    }
  }
  fclose(f);
  return got;
}

/* Is the page of p in memory (mincore)? */
static int resident(const void *p) {
  unsigned char v = 0;
  return mincore((void *)((uintptr_t)p & ~(uintptr_t)4095), 4096, &v) == 0 && (v & 1);
}

static void expect_one(const void *p, unsigned want, uint64_t flags, const char *what) {
  unsigned bytes = 0;
  uint64_t w0 = 0;
  int n = cells(p, &bytes, &w0);
  CHECK(n == 1 && bytes == want && (w0 & (SH_WRITE | SH_ATOMIC | SH_FREED)) == flags,
        "%s: %d cells, bytes %#x (want one cell, bytes %#x), flags %#llx", what, n, bytes, want,
        (unsigned long long)(w0 & (SH_WRITE | SH_ATOMIC | SH_FREED)));
  CHECK(sh_off(w0) == (unsigned)__builtin_ctz(want) &&
            sh_size(w0) == (unsigned)__builtin_popcount(want),
        "%s: offset %u size %u", what, sh_off(w0), sh_size(w0));
}

int main(void) {
  dc_thread *t = dc_cur(); /* this thread's state: accesses are recorded from now on */
  /* pcs near the context's function, so that each is told apart (make_w1) */
  uintptr_t pc = dc_node_at(t->node)->pc + 0x100;

  /* an unaligned 8-byte write: bytes 1..7 of one granule, byte 0 of the next */
  rd_access((uintptr_t)mem + 1, 8, 1, pc);
  expect_one(mem, 0xfe, SH_WRITE, "unaligned write, first granule");
  expect_one(mem + 8, 0x01, SH_WRITE, "unaligned write, second granule");
  /* again in the same epoch, and a read of some of those bytes: nothing new */
  rd_access((uintptr_t)mem + 1, 8, 1, pc);
  rd_access((uintptr_t)mem + 3, 4, 0, pc);
  expect_one(mem, 0xfe, SH_WRITE, "repeated in the same epoch");

  /* a range: whole granules, then the 5 bytes left */
  rd_range((uintptr_t)mem + 16, 13, 0, pc);
  expect_one(mem + 16, 0xff, 0, "range, whole granule");
  expect_one(mem + 24, 0x1f, 0, "range, 5-byte tail");

  /* a 3-byte piece in the middle of a granule (memcpy of 3 bytes) */
  rd_range((uintptr_t)mem + 34, 3, 1, pc);
  expect_one(mem + 32, 0x1c, SH_WRITE, "3-byte range");

  /* an aligned small access */
  rd_access((uintptr_t)mem + 44, 2, 0, pc);
  expect_one(mem + 40, 0x30, 0, "2-byte read");

  /* a range crossing three granules at odd ends */
  rd_range((uintptr_t)mem + 51, 18, 1, pc);
  expect_one(mem + 48, 0xf8, SH_WRITE, "range head");
  expect_one(mem + 56, 0xff, SH_WRITE, "range middle");
  expect_one(mem + 64, 0x1f, SH_WRITE, "range tail");

  /* A range over whole granules some of which this epoch already covers
   * (range_flags checks them with one access word): granule 2, written
   * before, keeps its cell as it was (its pc too: it was not stored again);
   * granule 4's read of half is subsumed by the write; the rest get the
   * range's write, with the head and tail clipped. */
  {
    static _Alignas(64) unsigned char span[64];
    rd_access((uintptr_t)span + 16, 8, 1, pc + 8);
    rd_access((uintptr_t)span + 32, 4, 0, pc + 16);
    const uint64_t before = only_cell(span + 16);
    rd_range((uintptr_t)span + 3, 58, 1, pc);
    expect_one(span, 0xf8, SH_WRITE, "span head");
    for (int i = 1; i < 7; i++) expect_one(span + 8 * i, 0xff, SH_WRITE, "span whole granule");
    expect_one(span + 56, 0x1f, SH_WRITE, "span tail");
    CHECK(before && only_cell(span + 16) == before,
          "a covered granule in a range is left as it was: %#llx -> %#llx",
          (unsigned long long)before, (unsigned long long)only_cell(span + 16));
  }

  /* a freed block: marked freed with its exact bytes */
  rd_free_range((uintptr_t)mem + 80, 6, pc);
  expect_one(mem + 80, 0x3f, SH_WRITE | SH_FREED, "freed bytes");

  /* planes (shadow.h): one thread's accesses stay in plane A */
  sh_granule *g = sh_granule_of((uintptr_t)mem + 96);
  rd_access((uintptr_t)mem + 96, 1, 0, pc);
  rd_access((uintptr_t)mem + 98, 1, 0, pc + 1);
  CHECK(!sh_b_used(g), "two cells: plane B untouched");
  /* the same instruction on the next bytes widens its cell, which then
   * reaches the other cell and takes it in (join) */
  rd_access((uintptr_t)mem + 97, 1, 0, pc);
  CHECK(!sh_b_used(g), "a widened cell: plane B untouched");
  unsigned bytes = 0;
  uint64_t w0 = 0;
  CHECK(cells(mem + 96, &bytes, &w0) == 1 && bytes == 0x07, "widened and joined: %d cells",
        cells(mem + 96, &bytes, &w0));
  /* two more accesses of other kinds (a read apart, a write): the second
   * is a third cell, in plane B, and marks its bit */
  rd_access((uintptr_t)mem + 100, 1, 0, pc + 2);
  CHECK(!sh_b_used(g), "second cell: plane A");
  rd_access((uintptr_t)mem + 102, 1, 1, pc + 3);
  CHECK(sh_b_used(g), "third cell: plane B marked");
  CHECK(cells(mem + 96, &bytes, &w0) == 3 &&
            SH_MASK(sh_load(sh_cell_at(g, 2)) | sh_load(sh_cell_at(g, 3))) == 0x40,
        "third cell in plane B");
  /* fresh memory forgets both planes, and the bit */
  sh_reset((uintptr_t)mem + 96, 8);
  CHECK(cells(mem + 96, &bytes, &w0) == 0 && !sh_b_used(g), "reset clears both planes");
  /* the neighbours of a reset granule keep theirs */
  expect_one(mem + 80, 0x3f, SH_WRITE | SH_FREED, "neighbour of a reset");

  /* a reset from granule 5 to 202, neither on the edge of a cache line of
   * shadow (four granules): every granule is emptied and none around it */
  {
    static _Alignas(4096) unsigned char rs[2048];
    for (int i = 0; i < 256; i++) rd_access((uintptr_t)rs + 8 * i, 8, 1, pc);
    sh_reset((uintptr_t)rs + 40, 8 * 198);
    int wrong = 0;
    for (int i = 0; i < 256; i++)
      if (cells(rs + 8 * i, &bytes, &w0) != (i < 5 || i >= 203)) wrong++;
    CHECK(!wrong, "a reset of granules 5-202: %d granules wrong", wrong);
  }

  /* a write over some of the bytes of an earlier read of this thread's
   * leaves the read only its other bytes (they still race alone with
   * another thread's write); the next write, over those, by another
   * instruction of the same function, context and epoch, merges with the
   * first write, and the merged cell covers the rest of the read, which it
   * clears: one cell in the end, not three, marked merged (a report names
   * the first write's pc and says it is the first of several) */
  g = sh_granule_of((uintptr_t)mem + 104);
  rd_access((uintptr_t)mem + 104, 8, 0, pc);
  rd_access((uintptr_t)mem + 104, 4, 1, pc + 1);
  uint64_t c0 = sh_load(sh_cell_at(g, 0)), c1 = sh_load(sh_cell_at(g, 1));
  CHECK(cells(mem + 104, &bytes, &w0) == 2 && !sh_b_used(g), "read, then write of half");
  CHECK((SH_MASK(c0) == 0xf0 && !(c0 & SH_WRITE) && SH_MASK(c1) == 0x0f && (c1 & SH_WRITE)) ||
            (SH_MASK(c1) == 0xf0 && !(c1 & SH_WRITE) && SH_MASK(c0) == 0x0f && (c0 & SH_WRITE)),
        "the read keeps bytes 4-7, the write has 0-3: %llx %llx", (unsigned long long)c0,
        (unsigned long long)c1);
  const sh_cell *wcell = sh_cell_at(g, (c0 & SH_WRITE) ? 0 : 1);
  uint32_t ctx_first = 0;
  uintptr_t pc_first = 0;
  int m_first = 1;
  CHECK(rd_cell_site(sh_load(wcell), 0, &ctx_first, 0, &pc_first, &m_first) && pc_first == pc + 1 &&
            !m_first,
        "one write: its pc, not merged");
  rd_access((uintptr_t)mem + 108, 4, 1, pc + 2);
  CHECK(cells(mem + 104, &bytes, &w0) == 1 && !sh_b_used(g), "second half written: %d cells",
        cells(mem + 104, &bytes, &w0));
  CHECK(SH_MASK(w0) == 0xff && (w0 & SH_WRITE), "one write of all bytes left: %llx",
        (unsigned long long)w0);
  {
    uint32_t ctx = 0;
    uintptr_t at = 0;
    int m = 0;
    CHECK(sh_load(wcell) == w0 && rd_cell_site(w0, 0, &ctx, 0, &at, &m) && ctx == ctx_first &&
              at == pc_first && m,
          "in the first write's cell, with its context and pc, marked merged");
  }

  /* sh_touch_ahead: a store into a granule in the first or last cache line
   * of its shadow page write-faults the page before or after it, and never
   * a page outside plane A (before the region's shadow: unmapped; after
   * it: plane B).  Fresh shadow of a region nothing else uses. */
  {
    sh_granule *r = sh_region_map((uintptr_t)1 << 44);
    const uintptr_t per_page = 4096 / sizeof(sh_granule);
    sh_granule *mid = r + 1000 * per_page; /* the first granule of a page */
    CHECK(!resident(mid - per_page) && !resident(mid) && !resident(mid + per_page),
          "fresh shadow is not resident");
    sh_touch_ahead(mid + 5); /* not in an edge line */
    CHECK(!resident(mid - per_page) && !resident(mid + per_page), "no edge: nothing touched");
    sh_touch_ahead(mid); /* first line */
    CHECK(resident(mid - per_page) && !resident(mid + per_page), "first line: the page before");
    sh_touch_ahead(mid + per_page - 1); /* last line */
    CHECK(resident(mid + per_page), "last line: the page after");
    CHECK(!resident(mid), "the granule's own page is left to the store");
    sh_touch_ahead(r);                                      /* plane A's first page */
    sh_touch_ahead(r + SH_PLANE / sizeof(sh_granule) - 1); /* and its last */
    CHECK(!resident((char *)r + SH_PLANE), "plane B's first page untouched");
  }

  /* transparent huge pages (encoder/common.c, dc_mmap; shadow.c,
   * sh_huge_ahead): the shadow is reserved with them off, whatever the
   * kernel's default (a kernel set to "always" committed 2 MiB at a sparse
   * shadow's every first touch: SQLite 121 MB, not 37); a large block's
   * plane A does not ask for them when it is made (touched sparsely, every
   * touched 2 MiB of its shadow was then a huge page); a touch ahead into
   * the next 2 MiB of plane A asks for them there when the 2 MiB it leaves
   * are nearly all resident (a dense sweep), and not when they are not.
   * Skipped where the kernel has none. */
  {
    FILE *thp = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    if (!thp) {
      printf("huge pages: skipped (no transparent huge pages)\n");
    } else {
      fclose(thp);
      sh_granule *r = sh_region_map((uintptr_t)1 << 44);
      CHECK(vm_flag(r + 12345, "nh") == 1 && vm_flag(r + 12345, "hg") == 0,
            "plane A: no huge pages (nh %d, hg %d)", vm_flag(r + 12345, "nh"),
            vm_flag(r + 12345, "hg"));
      CHECK(vm_flag((char *)r + SH_PLANE + 7 * 4096, "nh") == 1, "plane B: no huge pages");
      CHECK(vm_flag(sh_b_bitmap((uintptr_t)r), "nh") == 1, "plane B's bitmap: no huge pages");
      /* a block of 8 MiB (its shadow only: sh_reset touches no application
       * memory) */
      const uintptr_t big = ((uintptr_t)1 << 44) + ((uintptr_t)64 << 20);
      sh_reset(big, (uintptr_t)8 << 20);
      sh_granule *mid = sh_granule_of(big + ((uintptr_t)4 << 20));
      CHECK(vm_flag(mid, "hg") == 0 && vm_flag(mid, "nh") == 1,
            "a new large block's plane A: no huge pages yet (hg %d, nh %d)", vm_flag(mid, "hg"),
            vm_flag(mid, "nh"));
      /* dense: every page of the 2 MiB of plane A at mid resident, then the
       * touch ahead from its last line into the next 2 MiB */
      const uintptr_t huge = (uintptr_t)2 << 20, per_page = 4096 / sizeof(sh_granule);
      sh_granule *c = (sh_granule *)((uintptr_t)mid & ~(huge - 1));
      sh_granule *next = (sh_granule *)((char *)c + huge);
      for (uintptr_t off = 0; off < huge; off += 4096)
        atomic_fetch_or_explicit((_Atomic uint64_t *)((char *)c + off), 0, memory_order_relaxed);
      CHECK(vm_flag(next, "hg") == 0, "the next 2 MiB: no huge pages before the touch");
      sh_touch_ahead(next - 1);
      CHECK(vm_flag(next, "hg") == 1 && vm_flag(next, "nh") == 0 && resident(next),
            "a dense sweep's next 2 MiB: huge pages, touched (hg %d, nh %d)",
            vm_flag(next, "hg"), vm_flag(next, "nh"));
      CHECK(vm_flag(c, "hg") == 0 && vm_flag((char *)next + huge, "hg") == 0,
            "only those 2 MiB (hg %d %d)", vm_flag(c, "hg"), vm_flag((char *)next + huge, "hg"));
      CHECK(vm_flag((const char *)next + SH_PLANE, "nh") == 1, "not their plane B");
      /* sparse: one page resident in the 2 MiB four ahead, and a touch
       * ahead from their first line back into the 2 MiB before them */
      sh_granule *far = (sh_granule *)((char *)c + 4 * huge), *before = far - per_page;
      atomic_fetch_or_explicit((_Atomic uint64_t *)(far + 7 * per_page), 0, memory_order_relaxed);
      sh_touch_ahead(far);
      CHECK(resident(before) && vm_flag(before, "hg") == 0 && vm_flag(far, "hg") == 0,
            "a sparse touch: the page before, no huge pages (hg %d %d)", vm_flag(before, "hg"),
            vm_flag(far, "hg"));
      /* the same crossing again, now dense: not asked again (a block at a
       * 2 MiB stretch handed out again and again crosses there at each
       * first store), so still no huge pages; once the shadow there has
       * gone back to the kernel (a block of 12 MiB made over it), asked
       * again: huge pages */
      sh_granule *far_c = (sh_granule *)((uintptr_t)far & ~(huge - 1));
      for (uintptr_t off = 0; off < huge; off += 4096)
        atomic_fetch_or_explicit((_Atomic uint64_t *)((char *)far_c + off), 0,
                                 memory_order_relaxed);
      sh_touch_ahead(far);
      CHECK(vm_flag(before, "hg") == 0, "the same crossing, dense: not asked again (hg %d)",
            vm_flag(before, "hg"));
      sh_reset(big, (uintptr_t)12 << 20);
      CHECK(!resident(far_c), "the reset gave the shadow back");
      for (uintptr_t off = 0; off < huge; off += 4096)
        atomic_fetch_or_explicit((_Atomic uint64_t *)((char *)far_c + off), 0,
                                 memory_order_relaxed);
      sh_touch_ahead(far);
      CHECK(vm_flag(before, "hg") == 1,
            "after the reset, the crossing asked again: huge pages (hg %d)",
            vm_flag(before, "hg"));
    }
  }

  /* covering: the same thread since its last release (floor), a superset
   * of the bytes, a write for a write, the same atomicity, freed marks only
   * for freed marks (sh_covers); the inline check's test (sh_covers_now)
   * says the same in cur's own epoch, and no for a cell of an earlier one */
  {
    const uint64_t f9 = sh_self(0, 9), f10 = sh_self(0, 10);
    const uint64_t w = sh_make(0xff, SH_WRITE, 3, 9, 0), rd = sh_make(0x0f, 0, 3, 9, 0);
    const struct {
      uint64_t c, cur, floorw;
      int covers, now;
      const char *what;
    } k[] = {
        {sh_with_site(w, 77), rd, f9, 1, 1, "a write covers a read of some of its bytes"},
        {sh_with_site(rd, 5), sh_make(0x0f, 0, 3, 9, 6), f9, 1, 1, "whatever the sites of the two"},
        {sh_make(0x3c, 0, 3, 9, 1), sh_make(0x18, 0, 3, 9, 0), f9, 1, 1, "a read of bytes inside"},
        {rd, sh_make(0x0f, SH_WRITE, 3, 9, 0), f9, 0, 0, "a read does not cover a write"},
        {rd, sh_make(0x1f, 0, 3, 9, 0), f9, 0, 0, "nor more bytes"},
        {sh_make(0x3c, 0, 3, 9, 1), sh_make(0x06, 0, 3, 9, 0), f9, 0, 0, "nor bytes across it"},
        {w, sh_make(0x0f, 0, 3, 10, 0), f9, 1, 0,
         "a later epoch with no release between: covered (but not in the current epoch)"},
        {w, sh_make(0x0f, 0, 3, 10, 0), f10, 0, 0, "an epoch before the last release: not"},
        {w, sh_make(0x0f, 0, 4, 9, 0), f9, 0, 0, "nor another thread"},
        {w, sh_make(0x0f, SH_ATOMIC, 3, 9, 0), f9, 0, 0, "nor an atomic access"},
        {w | SH_ATOMIC, rd, f9, 0, 0, "nor an atomic cell a plain access"},
        {w | SH_FREED, rd, f9, 0, 0, "a freed mark covers no access"},
        {w | SH_FREED, sh_make(0x0f, SH_WRITE | SH_FREED, 3, 9, 0), f9, 1, 1, "but a freed mark"},
        {0, sh_make(0x01, 0, 0, 1, 0), sh_self(0, 1), 0, 0,
         "an empty cell covers nothing, not even thread 0's access"},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
      CHECK(sh_covers(k[i].c, k[i].cur, k[i].floorw) == k[i].covers, "%s", k[i].what);
      CHECK(sh_covers_now(k[i].c, k[i].cur, sh_differ(k[i].cur & 0x1ffu)) == k[i].now,
            "%s (the current epoch's test)", k[i].what);
    }
  }

  /* a large reset gives whole bitmap pages and their plane B back, and
   * clears the edges word by word */
  size_t big = (size_t)2 << 20;
  unsigned char *m = mmap(0, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(m != MAP_FAILED, "mmap");
  size_t at[] = {8, 4096, 300000, 1 << 20, big - 16};
  for (int i = 0; i < 5; i++)
    for (int k = 0; k < 3; k++) rd_access((uintptr_t)m + at[i] + k * 2, 1, 0, pc + (uintptr_t)k);
  int marked = 0;
  for (int i = 0; i < 5; i++) marked += sh_b_used(sh_granule_of((uintptr_t)m + at[i]));
  CHECK(marked == 5, "%d of 5 granules with plane B marked", marked);

  /* a reset that ends where the region ends (one granule past it belongs to
   * the next region): neither the context of another granule's plane-B
   * cell (at m + 8) nor whatever is mapped after the region's shadow (a
   * canary page) may be dropped */
  {
    uintptr_t end = ((uintptr_t)m | ((1ull << SH_REGION_BITS) - 1)) + 1, tail = 256 << 10;
    sh_granule *g8 = sh_granule_of((uintptr_t)m + 8);
    uint64_t ctx = sh_load(sh_cell_at(g8, 2)) | sh_load(sh_cell_at(g8, 3));
    char *after = (char *)sh_regions[(uintptr_t)m >> SH_REGION_BITS] + 2 * SH_PLANE; /* plane B's end */
    char *canary = mmap(after, 4096, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if ((uintptr_t)m + big > end - tail || canary != after) {
      printf("region-end reset: skipped (block in the region's tail, or no room for a canary)\n");
    } else {
      canary[0] = 0x5a;
      sh_reset(end - tail, tail);
      CHECK(ctx && (sh_load(sh_cell_at(g8, 2)) | sh_load(sh_cell_at(g8, 3))) == ctx,
            "region-end reset keeps another granule's plane-B cells");
      CHECK(canary[0] == 0x5a, "region-end reset leaves the next mapping alone");
    }
    if (canary != MAP_FAILED) munmap(canary, 4096);
  }
  sh_reset((uintptr_t)m + 8, big - 8);
  for (int i = 0; i < 5; i++)
    CHECK(cells(m + at[i], &bytes, &w0) == 0 && !sh_b_used(sh_granule_of((uintptr_t)m + at[i])),
          "large reset, granule at offset %zu", at[i]);

  /* a thread's stack: its frames touch a few KiB, whose shadow must stay a
   * few 4 KiB pages, not a 2 MiB huge page (the middle of the stack: its
   * shadow is inside the 2 MiB-aligned interior) */
  {
    size_t len = (size_t)8 << 20;
    unsigned char *st = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(st != MAP_FAILED, "mmap");
    sh_forget((uintptr_t)st, len);
    rd_access((uintptr_t)st + len / 2, 8, 1, pc);
    uintptr_t cell = (uintptr_t)sh_granule_of((uintptr_t)st + len / 2);
    uintptr_t huge = cell & ~(uintptr_t)((2 << 20) - 1);
    unsigned char vec[512];
    int resident = 0;
    if (!mincore((void *)huge, 2 << 20, vec))
      for (int i = 0; i < 512; i++) resident += vec[i] & 1;
    CHECK(resident >= 1 && resident < 64, "stack shadow: %d of 512 pages resident", resident);
    munmap(st, len);
  }

  /* sites: a cell's site gives back the context and pc it was stored
   * with; the same instruction in the same context shares one */
  {
    unsigned char *q = mem + 128;
    rd_access((uintptr_t)q, 4, 1, pc + 0x10);
    rd_access((uintptr_t)q + 8, 4, 1, pc + 0x20);
    rd_access((uintptr_t)q + 16, 4, 1, pc + 0x10);
    const uint64_t a = only_cell(q);
    const uint64_t b = only_cell(q + 8);
    const uint64_t c = only_cell(q + 16);
    CHECK(SH_SITE(a) && SH_SITE(a) == SH_SITE(c) && SH_SITE(a) != SH_SITE(b),
          "one site per instruction and context: %u %u %u", SH_SITE(a), SH_SITE(b),
          SH_SITE(c));
    uint32_t ca = 0, cb = 0;
    uintptr_t pa = 0, pb = 0;
    int ma = 1, mb = 1;
    CHECK(rd_cell_site(a, 0, &ca, 0, &pa, &ma) && rd_cell_site(b, 0, &cb, 0, &pb, &mb) &&
              ca == t->ctx_handle && cb == ca && pa == pc + 0x10 && pb == pc + 0x20 && !ma && !mb,
          "sites resolve to the context and the pcs");
    /* more pcs in one function than a page of k holds (64): each still
     * resolves to its own pc */
    int exact = 0;
    for (unsigned i = 0; i < 80; i++) {
      unsigned char *x = mem + 224 + (i % 4) * 8;
      sh_reset((uintptr_t)x, 8);
      rd_access((uintptr_t)x, 4, 1, pc + 0x1000 + i);
      uint32_t cx = 0;
      uintptr_t px = 0;
      int mx = 1;
      exact += rd_cell_site(only_cell(x), 0, &cx, 0, &px, &mx) && cx == ca && px == pc + 0x1000 + i;
    }
    CHECK(exact == 80, "%d of 80 pcs of one function resolve exactly", exact);
    /* an access whose pc is unknown (0: some interceptors) */
    sh_reset((uintptr_t)mem + 224, 8);
    rd_access((uintptr_t)mem + 224, 4, 1, 0);
    uint32_t c0 = 0;
    uintptr_t p0 = 1;
    int m0 = 1;
    CHECK(rd_cell_site(only_cell(mem + 224), 0, &c0, 0, &p0, &m0) && c0 == ca && p0 == 0 && !m0,
          "an unknown pc resolves to 0 with its context");
  }

  /* cells that cover an access together (sh_covered_bytes): this thread's
   * writes of two halves that did not merge (epochs apart, a new table of
   * sites in between) record a read of all eight bytes; without the union
   * it took a third cell, in plane B */
  {
    unsigned char *q = mem + 232;
    sh_granule *gq = sh_granule_of((uintptr_t)q);
    sh_reset((uintptr_t)q, 8);
    rd_access((uintptr_t)q, 4, 1, pc + 0x50);
    rd_sites_renew(&t->rd);
    rd_access((uintptr_t)q + 4, 4, 1, pc + 0x58);
    unsigned qb = 0;
    uint64_t qw = 0;
    CHECK(cells(q, &qb, &qw) == 2 && !sh_b_used(gq), "two halves, epochs apart: two cells");
    rd_access((uintptr_t)q, 8, 0, pc + 0x60);
    CHECK(cells(q, &qb, &qw) == 2 && !sh_b_used(gq),
          "a read the two writes cover stores nothing: %d cells, plane B %d", cells(q, &qb, &qw),
          sh_b_used(gq));
    rd_range((uintptr_t)q, 8, 0, pc + 0x68);
    CHECK(cells(q, &qb, &qw) == 2 && !sh_b_used(gq), "nor does a range's read");
    rd_access((uintptr_t)q, 8, 1, pc + 0x70);
    CHECK(cells(q, &qb, &qw) == 2 && !sh_b_used(gq), "nor a write (two writes cover it)");
    /* a release: the cells are of an epoch before it, and cover nothing */
    rd_tick(&t->rd);
    rd_access((uintptr_t)q, 8, 0, pc + 0x78);
    CHECK(cells(q, &qb, &qw) == 3 && sh_b_used(gq),
          "after a release the read is stored (the writes stay: they race with reads): %d cells",
          cells(q, &qb, &qw));
  }

  /* the floor (racedet/floor.c): another thread's cells that every thread
   * has seen are free space; cells above the floor, or freed marks, are not */
  {
    rd_thread *r = &t->rd;
    const unsigned other = SH_MAX_TID; /* a slot no thread has */
    unsigned char *q = mem + 248;
    sh_granule *gq = sh_granule_of((uintptr_t)q);
    sh_reset((uintptr_t)q, 8);
    atomic_store(&gq->c[0].w, sh_make(0x03, SH_WRITE, other, 5, 0));
    atomic_store(&gq->c[1].w, sh_make(0x0c, 0, other, 6, 0));
    rd_vc_ensure(&r->vc, other + 1);
    r->vc.c[other] = 6; /* this thread has seen both: no race */
    rd_access((uintptr_t)q + 4, 2, 1, pc + 0x70);
    CHECK(sh_b_used(gq), "below no floor: the third cell goes to plane B");
    sh_reset((uintptr_t)q, 8);
    atomic_store(&gq->c[0].w, sh_make(0x03, SH_WRITE, other, 5, 0));
    atomic_store(&gq->c[1].w, sh_make(0x0c, 0, other, 6, 0) | SH_FREED);
    atomic_store(&rd_floor[other], 6);
    rd_access((uintptr_t)q + 4, 2, 1, pc + 0x70);
    CHECK(!sh_b_used(gq) && sh_load(&gq->c[1]) == (sh_make(0x0c, 0, other, 6, 0) | SH_FREED) &&
              SH_TID(sh_load(&gq->c[0])) == r->tid,
          "at or below the floor: a dead cell is reused in plane A, a freed mark is kept");
    atomic_store(&rd_floor[other], 0);
    r->vc.c[other] = 0;
  }

  /* plane B unused and no cell of this thread's: the access takes over a
   * replaceable cell (access.c, replace_in) -- dead, subsumed or empty --
   * and keeps the other thread's live cell, which it checks; it never takes
   * a freed mark's place, nor keeps a cell the full check would drop */
  {
    rd_thread *r = &t->rd;
    const unsigned other = SH_MAX_TID, third = SH_MAX_TID - 1;
    unsigned char *q = mem + 256;
    sh_granule *gq = sh_granule_of((uintptr_t)q);
    rd_vc_ensure(&r->vc, other + 1);
    const uint64_t live = sh_make(0xff, 0, third, 7, 0); /* concurrent: not seen */
    const uint64_t reports = rd_reports_count();
    /* a dead write beside a live read: a read takes the dead one's place */
    sh_reset((uintptr_t)q, 8);
    atomic_store(&gq->c[0].w, sh_make(0xff, SH_WRITE, other, 5, 0));
    atomic_store(&gq->c[1].w, live);
    atomic_store(&rd_floor[other], 5); /* every thread saw it, this one too */
    r->vc.c[other] = 5;
    rd_access((uintptr_t)q, 8, 0, pc + 0x80);
    CHECK(!sh_b_used(gq) && SH_TID(sh_load(&gq->c[0])) == r->tid && sh_load(&gq->c[1]) == live &&
              rd_reports_count() == reports,
          "a dead cell is taken over, the live read kept, no race");
    /* a write over the same: it races with the live read */
    sh_reset((uintptr_t)q, 8);
    atomic_store(&gq->c[0].w, sh_make(0xff, SH_WRITE, other, 5, 0));
    atomic_store(&gq->c[1].w, live);
    rd_access((uintptr_t)q, 8, 1, pc + 0x88);
    CHECK(rd_reports_count() == reports + 1, "the live cell is checked: one race, %llu",
          (unsigned long long)(rd_reports_count() - reports));
    atomic_store(&rd_floor[other], 0);
    r->vc.c[other] = 0;
    /* a subsumed cell (another thread's read this one has seen) and an
     * empty one: the subsumed one is taken, the empty one stays empty */
    sh_reset((uintptr_t)q, 8);
    r->vc.c[other] = 6;
    atomic_store(&gq->c[1].w, sh_make(0xff, 0, other, 6, 0));
    rd_access((uintptr_t)q, 8, 0, pc + 0x90);
    CHECK(only_cell(q) && SH_TID(only_cell(q)) == r->tid && !sh_b_used(gq),
          "a subsumed cell is taken over rather than an empty one: one cell");
    /* a freed mark that happens before the write: not taken over unchecked
     * (the full check reports it, then stores over it) */
    sh_reset((uintptr_t)q, 8);
    atomic_store(&gq->c[0].w, sh_make(0xff, SH_WRITE, other, 6, 0) | SH_FREED);
    const uint64_t before = rd_reports_count();
    rd_access((uintptr_t)q, 8, 1, pc + 0x98);
    CHECK(rd_reports_count() == before + 1, "the write after a freed mark is reported: %llu",
          (unsigned long long)(rd_reports_count() - before));
    r->vc.c[other] = 0;
    sh_reset((uintptr_t)q, 8);
  }

  /* a cell of this thread's that the access subsumes (its own read of
   * these bytes, now written) is taken over the same way, the other cell
   * checked (access.c, replace_or_check); a cell of its own that the
   * access would trim or merge with goes to the full check, which does */
  {
    rd_thread *r = &t->rd;
    const uint64_t live = sh_make(0xff, 0, SH_MAX_TID - 1, 7, 0); /* concurrent */
    unsigned char *q = mem + 272;
    sh_granule *gq = sh_granule_of((uintptr_t)q);
    sh_reset((uintptr_t)q, 8);
    rd_access((uintptr_t)q, 8, 0, pc + 0xa0);
    const int own = SH_TID(sh_load(&gq->c[0])) == r->tid ? 0 : 1;
    CHECK(SH_TID(sh_load(&gq->c[own])) == r->tid && !sh_load(&gq->c[own ^ 1]),
          "the thread's read: one cell");
    atomic_store(&gq->c[own ^ 1].w, live);
    const uint64_t reports = rd_reports_count();
    rd_access((uintptr_t)q, 8, 1, pc + 0xa8);
    const uint64_t w = sh_load(&gq->c[own]);
    CHECK(rd_reports_count() == reports + 1 && SH_TID(w) == r->tid && (w & SH_WRITE) &&
              SH_MASK(w) == 0xff && sh_load(&gq->c[own ^ 1]) == live && !sh_b_used(gq),
          "the write takes its own read's cell, keeps and checks the live read: %llu race(s)",
          (unsigned long long)(rd_reports_count() - reports));
    /* a write of four of the eight bytes its own read had: the read keeps
     * the other four, and the write a cell of its own */
    q = mem + 280;
    gq = sh_granule_of((uintptr_t)q);
    sh_reset((uintptr_t)q, 8);
    rd_access((uintptr_t)q, 8, 0, pc + 0xb0);
    rd_access((uintptr_t)q, 4, 1, pc + 0xb8);
    unsigned seen = 0;
    for (int i = 0; i < SH_CELLS_A; i++) {
      const uint64_t c = sh_load(&gq->c[i]);
      if (c == 0) continue;
      if (!(c & SH_WRITE) && SH_MASK(c) == 0xf0) seen |= 1;
      if ((c & SH_WRITE) && SH_MASK(c) == 0x0f) seen |= 2;
    }
    CHECK(seen == 3 && !sh_b_used(gq), "the read trimmed to bytes 4-7 beside the write of 0-3");
    /* two halves written one after the other: one merged cell */
    q = mem + 288;
    sh_reset((uintptr_t)q, 8);
    rd_access((uintptr_t)q, 4, 1, pc + 0xc0);
    rd_access((uintptr_t)q + 4, 4, 1, pc + 0xc8);
    const uint64_t m = only_cell(q);
    CHECK(m && (m & SH_WRITE) && SH_MASK(m) == 0xff, "the halves merged into one cell");
    sh_reset((uintptr_t)q, 8);
  }

  /* a thread whose slot's epochs are used up moves to another slot: its
   * cells from before still name it and their sites, and to it they are
   * another slot's cells that happen before it (no race with itself) */
  {
    rd_thread *r = &t->rd;
    unsigned char *q = mem + 160;
    rd_access((uintptr_t)q, 8, 1, pc + 0x30);
    const uint64_t before = only_cell(q);
    const uint32_t old_tid = r->tid, inc = r->inc;
    /* pretend a million releases happened: the slot's last epoch */
    r->epoch = SH_MAX_EPOCH;
    r->vc.c[r->tid] = r->epoch;
    r->self = sh_self(r->tid, r->epoch);
    rd_access((uintptr_t)q + 8, 8, 1, pc + 0x30);
    const uint64_t last = only_cell(q + 8);
    rd_tick(r);
    CHECK(r->tid != old_tid && r->inc != inc && rd_vc_get(&r->vc, old_tid) == SH_MAX_EPOCH &&
              SH_TID(r->self) == r->tid && SH_EPOCH(r->self) == r->epoch,
          "moved from slot %u to %u at epoch %u", old_tid, r->tid, r->epoch);
    CHECK(rd_slot_serial(old_tid, SH_EPOCH(before)) == t->serial &&
              rd_slot_serial(old_tid, SH_MAX_EPOCH) == t->serial &&
              rd_slot_serial(r->tid, r->epoch) == t->serial,
          "both slots name this thread");
    char b1[64], b2[64];
    CHECK(rd_cell_site(before, 0, &(uint32_t){0}, 0, &(uintptr_t){0}, &(int){0}) &&
              !strcmp(site_str(before, b1), site_str(last, b2)),
          "old cells' sites still resolve: %s / %s", site_str(before, b1), site_str(last, b2));
    const uint64_t reports = rd_reports_count();
    rd_access((uintptr_t)q, 8, 1, pc + 0x30);
    rd_access((uintptr_t)q + 8, 8, 0, pc + 0x40);
    CHECK(rd_reports_count() == reports, "no race with its own cells of the old slot");
    unsigned n8 = 0;
    uint64_t w8 = 0;
    CHECK(cells(q, &bytes, &w0) == 1 && SH_TID(w0) == r->tid,
          "the old cell was subsumed by the new write");
    CHECK(cells(q + 8, &n8, &w8) == 2, "the old write stays beside the new read: %d",
          cells(q + 8, &n8, &w8));
  }

  /* a full table of sites: the next slow path ticks and begins a new
   * incarnation on the same slot, and the old one's cells still resolve */
  {
    rd_thread *r = &t->rd;
    unsigned char *q = mem + 192;
    rd_access((uintptr_t)q, 4, 1, pc + 0x50);
    const uint64_t before = only_cell(q);
    rd_access((uintptr_t)q + 16, 8, 1, pc + 0x58);
    const uint64_t held = only_cell(q + 16);
    const uint32_t tid = r->tid, epoch = r->epoch, inc = r->inc;
    r->sites_full = 1;
    rd_access((uintptr_t)q + 8, 4, 1, pc + 0x50);
    /* not a release: the write before the renewal still covers a read */
    rd_access((uintptr_t)q + 20, 4, 0, pc + 0x60);
    CHECK(held && only_cell(q + 16) == held, "covered across the renewal, nothing stored");
    const uint64_t after = only_cell(q + 8);
    CHECK(r->tid == tid && r->epoch == epoch + 1 && r->inc != inc && !r->sites_full,
          "renewed: slot %u epoch %u -> %u", r->tid, epoch, r->epoch);
    char b1[64], b2[64];
    CHECK(SH_EPOCH(after) == epoch + 1 && SH_SITE(before) && SH_SITE(after) &&
              strcmp(site_str(before, b1), "?") &&
              !strcmp(site_str(after, b1), site_str(before, b2)),
          "the same context and pc in either table: %s / %s", site_str(after, b1),
          site_str(before, b2));
  }

  /* A function with more than 64 access pcs (SQLite's interpreter loop has
   * hundreds), entered from 40 call sites: each of its pcs' sites, in pages
   * of 64, names the context it ran in and the pc, also where the (context,
   * page) entry came from the per-thread cache of 64 (site.c), which these
   * 80 pairs beyond page 0 overfill */
  {
    enum { NPC = 150, NCTX = 40 };
    static _Alignas(64) unsigned char big[NCTX][NPC * 8];
    char here;
    const uintptr_t sp = ((uintptr_t)&here - 65536) & ~(uintptr_t)15;
    const uintptr_t fn = 0x7100000, at = fn + 0x100;
    uint32_t ctx[NCTX];
    for (int c = 0; c < NCTX; c++) {
      dc_func_entry(0x7000010 + 0x40 * (uintptr_t)c, fn, sp);
      ctx[c] = rd_ctx_handle(t);
      for (int i = 0; i < NPC; i++) rd_access((uintptr_t)big[c] + 8 * i, 8, 1, at + (uintptr_t)i);
      dc_func_exit(0x7000800, sp);
    }
    int distinct = 1;
    for (int c = 0; c < NCTX; c++)
      for (int d = 0; d < c; d++) distinct &= ctx[c] && ctx[c] != ctx[d];
    CHECK(distinct, "%d distinct contexts", NCTX);
    int bad = 0;
    for (int c = 0; c < NCTX; c++)
      for (int i = 0; i < NPC; i++) {
        uint32_t got_ctx = 0;
        uintptr_t got_pc = 0;
        int m = 1;
        const uint64_t w = only_cell(big[c] + 8 * i);
        if (!w || !rd_cell_site(w, 0, &got_ctx, 0, &got_pc, &m) || got_ctx != ctx[c] ||
            got_pc != at + (uintptr_t)i || m) {
          if (!bad++)
            printf("  context %d, pc %d: cell %llx decodes to context %u pc %lx merged %d\n", c,
                   i, (unsigned long long)w, got_ctx, (unsigned long)got_pc, m);
        }
      }
    CHECK(!bad, "%d of %d sites of a function with %d pcs decoded wrong", bad, NCTX * NPC, NPC);
  }

  /* Split sites (site.c): this thread's writes of one granule's fields from
   * three contexts, in one epoch, take one cell, and plane B stays unused
   * (two cells before, and a third thread's read then went to plane B);
   * the cell's site still names, for each byte, the access that wrote it,
   * with that access's bytes.  Bytes 0-1 (context A), 4-7 (C), then 2-3
   * (B), which joins both: a split of a split.  Then C's pc again on bytes
   * 6-7 (inside its side: nothing stored), and B's on bytes 2-3 (the cell
   * stays as it is). */
  {
    static _Alignas(64) unsigned char f[8];
    sh_granule *gf = sh_granule_of((uintptr_t)f);
    char here;
    const uintptr_t sp = ((uintptr_t)&here - 65536) & ~(uintptr_t)15;
    const uintptr_t fn = 0x7200000, at = fn + 0x100;
    uint32_t ctx[3];
    const unsigned off[3] = {0, 4, 2}, len[3] = {2, 4, 2}; /* A, C, B */
    for (int c = 0; c < 3; c++) {
      dc_func_entry(0x7000110 + 0x40 * (uintptr_t)c, fn, sp);
      ctx[c] = rd_ctx_handle(t);
      rd_access((uintptr_t)f + off[c], len[c], 1, at + (uintptr_t)c);
      dc_func_exit(0x7000800, sp);
    }
    unsigned fb = 0;
    uint64_t fw = 0;
    CHECK(ctx[0] != ctx[1] && ctx[1] != ctx[2] && ctx[0] != ctx[2], "three contexts");
    CHECK(cells(f, &fb, &fw) == 1 && fb == 0xff && (fw & SH_WRITE) && !sh_b_used(gf),
          "three contexts' writes of one granule: %d cells (want 1), bytes %#x, plane B %d",
          cells(f, &fb, &fw), fb, sh_b_used(gf));
    const unsigned want_bytes[3] = {0x03, 0xf0, 0x0c};
    for (int c = 0; c < 3; c++)
      for (unsigned b = off[c]; b < off[c] + len[c]; b++) {
        unsigned asked = 1u << b;
        uint32_t got_ctx = 0;
        uintptr_t got_pc = 0;
        int m = 1;
        CHECK(rd_cell_site(fw, &asked, &got_ctx, 0, &got_pc, &m) && got_ctx == ctx[c] &&
                  got_pc == at + (uintptr_t)c && !m && asked == want_bytes[c],
              "byte %u: context %u pc %#lx bytes %#x merged %d (want %u %#lx %#x 0)", b, got_ctx,
              (unsigned long)got_pc, asked, m, ctx[c], (unsigned long)(at + (uintptr_t)c),
              want_bytes[c]);
      }
    uint32_t first_ctx = 0;
    CHECK(rd_cell_site(fw, 0, &first_ctx, 0, &(uintptr_t){0}, &(int){0}) && first_ctx == ctx[0],
          "no bytes asked: the cell's first byte's access");
    for (int c = 2; c >= 1; c--) { /* B, then C, again */
      dc_func_entry(0x7000110 + 0x40 * (uintptr_t)c, fn, sp);
      rd_access((uintptr_t)f + off[c] + len[c] - 2, 2, 1, at + (uintptr_t)c);
      dc_func_exit(0x7000800, sp);
    }
    CHECK(only_cell(f) == fw, "the same accesses again: the cell unchanged");
  }

  printf("%d passed, %d failed\n", passed, failed);
  /* the races provoked above on purpose must not decide the status: the
   * runtime's exit (dc_fini) would make it the detector's exit code */
  fflush(NULL);
  _exit(failed != 0);
}
