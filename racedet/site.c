/* site.c: a cell's site, the calling context and pc of its access, in the
 * 20 bits the cell has for it (shadow.h).
 *
 * A site is cidx << SITE_K_BITS | merged << SITE_KP_BITS | k % SITE_K:
 *  - k: the pc's index among the access pcs of its function (its graph
 *    node), numbered as they are first stored, in pages of SITE_K (32); one
 *    table for the whole process, read without locks.
 *  - merged: the cell merged accesses of several pcs of the function, the
 *    first of which is k's (access.c).  (It was an entry of its own, the
 *    entry's merged variant: 1.25 of mergesort's 3.6 million entries.)
 *  - cidx: an entry of the table of sites of the incarnation (rd_thread.c)
 *    that the cell's slot and epoch name: a context handle, a page of k and
 *    the held set (the mutexes the thread held, rd_lockset_now);
 *    or a split site, two sites of the table for the two sides of a byte
 *    boundary (rd_site_split: writes of one cell from two contexts).  Only
 *    its thread appends to it, once per context, page and held set, and
 *    finds entries by a private index; readers (reports, from any thread)
 *    by number, since entries never move.
 * The first store of a function invocation looks up its context's cidx,
 * which is then cached until the context changes (every call and return),
 * and kept beside the context's handle in the thread's cache of contexts
 * (rd_thread.c), where the next invocation in that context finds it; every
 * store finds its pc's k in a per-thread cache (RD_PCK_BITS, 4096 entries).
 *
 * An earlier version interned each (context, pc) pair as one site: SQLite's
 * threads made about 100,000 each, and mergesort's 3 million (every path
 * through its recursion is a context), so a store cost a probe of a large
 * cache that missed often, or an insert: 8% of SQLite's run and 14.5% of
 * mergesort's, and 16 bytes of memory per pair.  Now a new context costs one
 * entry, and a pc one entry for the whole process.
 *
 * A table holds 16,383 contexts; when it is nearly full the thread's next
 * slow path ticks and begins a new incarnation (rd_sites_renew). */
#include "racedet.h"

#define SITE_K_BITS RD_SITE_K_BITS   /* below cidx: merged and k's place in its page */
#define SITE_KP_BITS RD_SITE_KP_BITS /* k's place in its page */
#define SITE_K (1u << SITE_KP_BITS)  /* pcs per page */
#define SITE_C_LIMIT (1u << (SH_SITE_BITS - SITE_K_BITS)) /* cidx < this */
#define SITE_RESERVE 8u /* entries a slow path may append after it checked */
_Static_assert(SH_SITE_BITS == 20 && SITE_C_LIMIT == 16384, "site layout");

/* ------------------------------------------------------------ tables of entries
 * A table never moves: chunk k holds SITE_CHUNK0 << k entries.  Every
 * incarnation's table is kept (its thread's cells may be reported after it
 * ended), so the first chunk is small: a short thread names a few contexts,
 * and with a first chunk of 64 entries (512 bytes) a program that created
 * and joined 200,000 such threads held 178 MB at its end. */
#define SITE_CHUNK0 8u
#define SITE_CHUNKS 12
_Static_assert(SITE_CHUNK0 * ((1u << SITE_CHUNKS) - 1) >= SITE_C_LIMIT, "chunks hold every cidx");
struct rd_sites {
  _Atomic(uint64_t *) chunk[SITE_CHUNKS];
  /* the held sets of the entries made under locks: an open-addressed map
   * of (cidx << 32 | held set) words, tagged with log2 of its size (made
   * at the first such entry; 0: none) */
  _Atomic uintptr_t held;
  uint32_t held_n; /* its words in use (the owner's) */
  _Atomic uint32_t n; /* entries 1 .. n-1 are in use; 0 is none */
};
/* An entry: the context handle, the page of k.  Or a split site
 * (ENT_SPLIT): two sites of the same table, one for the bytes below a
 * boundary and one for the rest (rd_site_split). */
#define ENT_SPLIT (1ull << 62)
static inline uint64_t ent_make(uint32_t ctx, uint32_t page) {
  return (uint64_t)ctx | (uint64_t)page << 32;
}
static inline uint32_t ent_ctx(uint64_t e) { return (uint32_t)e; }
static inline uint32_t ent_page(uint64_t e) { return (uint32_t)(e >> 32) & 0x3fffffffu; }
static inline uint64_t ent_split(uint32_t lo, uint32_t hi, unsigned boundary) {
  return ENT_SPLIT | lo | (uint64_t)hi << SH_SITE_BITS | (uint64_t)boundary << (2 * SH_SITE_BITS);
}
static inline unsigned split_boundary(uint64_t e) { return (unsigned)(e >> (2 * SH_SITE_BITS)) & 7; }
/* the site a split entry names for byte b of the granule */
static inline uint32_t split_side(uint64_t e, unsigned b) {
  return (uint32_t)(e >> (b < split_boundary(e) ? 0 : SH_SITE_BITS)) & SH_MAX_SITE;
}

static inline uint32_t chunk_of(uint32_t i, uint32_t *off) {
  uint32_t k = 31u - (uint32_t)__builtin_clz(i / SITE_CHUNK0 + 1);
  *off = i - SITE_CHUNK0 * ((1u << k) - 1);
  return k;
}

static uint64_t ent_get(const rd_sites *s, uint32_t i) {
  if (!s || !i || i >= atomic_load_explicit(&s->n, memory_order_acquire)) return 0;
  uint32_t off, k = chunk_of(i, &off);
  return atomic_load_explicit(&s->chunk[k], memory_order_acquire)[off];
}

/* The held sets are a map beside the entries, not a field of theirs: an
 * entry is 64 bits without room for one, and most entries have none (a
 * thread per request that takes one lock makes one or two).  A map of 4
 * words costs such a thread 32 bytes; a second array of chunks, 190. */
#define HELD_TAG 15u /* the map pointer's low bits: log2 of its words */
_Static_assert(2 * SITE_C_LIMIT <= 1u << HELD_TAG, "a table's held sets fit a map at half full");
static inline uint32_t held_home(uint32_t i, uint32_t mask) {
  return (uint32_t)((i * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* Entry i's held set (0 for none, or no such entry).  (As ent_get, past
 * the acquire of n: the map's words for entries below n are there.) */
static uint32_t ent_held(const rd_sites *s, uint32_t i) {
  if (!s || !i || i >= atomic_load_explicit(&s->n, memory_order_acquire)) return 0;
  const uintptr_t m = atomic_load_explicit(&s->held, memory_order_acquire);
  if (!m) return 0;
  const _Atomic uint64_t *w = (const _Atomic uint64_t *)(m & ~(uintptr_t)HELD_TAG);
  const uint32_t mask = (1u << (m & HELD_TAG)) - 1;
  for (uint32_t j = held_home(i, mask);; j = (j + 1) & mask) {
    const uint64_t e = atomic_load_explicit(&w[j], memory_order_relaxed);
    if (!e) return 0;
    if ((uint32_t)(e >> 32) == i) return (uint32_t)e;
  }
}

/* Entry i (new, not yet published) holds held: into the map, which grows
 * at half full.  A map grown out of stays, as the table does: a report may
 * be reading it. */
static void held_put(rd_sites *s, uint32_t i, uint32_t held) {
  uintptr_t m = atomic_load_explicit(&s->held, memory_order_relaxed);
  uint32_t bits = m ? (uint32_t)(m & HELD_TAG) : 0;
  if (!m || (s->held_n + 1) * 2 > 1u << bits) {
    const uint32_t nbits = bits ? bits + 1 : 2;
    _Atomic uint64_t *g = dc_alloc(sizeof *g << nbits);
    for (uint32_t j = 0; m && j < 1u << bits; j++) {
      const uint64_t e = ((const _Atomic uint64_t *)(m & ~(uintptr_t)HELD_TAG))[j];
      uint32_t k = held_home((uint32_t)(e >> 32), (1u << nbits) - 1);
      while (e && g[k]) k = (k + 1) & ((1u << nbits) - 1);
      if (e) g[k] = e;
    }
    m = (uintptr_t)g | nbits;
    bits = nbits;
    atomic_store_explicit(&s->held, m, memory_order_release);
  }
  _Atomic uint64_t *w = (_Atomic uint64_t *)(m & ~(uintptr_t)HELD_TAG);
  uint32_t j = held_home(i, (1u << bits) - 1);
  while (w[j]) j = (j + 1) & ((1u << bits) - 1);
  atomic_store_explicit(&w[j], (uint64_t)i << 32 | held, memory_order_relaxed);
  s->held_n++;
}

rd_sites *rd_sites_new(void) {
  rd_sites *s = dc_alloc(sizeof *s);
  atomic_store_explicit(&s->n, 1, memory_order_relaxed);
  return s;
}

/* ------------------------------------------------------------ pcs of functions
 * k of (node, pc): a flat table of (pc, node, k), open addressing, read
 * without locks (a thread's cache of 4096 pairs is in front of it).  It
 * grows into a new table under the lock; older tables stay, since readers
 * may still be in them, and a pc not found there is looked up again under
 * the lock.  The way back, (node, k) to pc, is for reports only. */
typedef struct pc_rec {
  uintptr_t pc; /* published last; 0 = empty */
  uint32_t node, k;
} pc_rec;
typedef struct pc_tab {
  uint32_t mask, used;
  pc_rec e[];
} pc_tab;
#define MAX_PCS (1u << 24)
static _Atomic(pc_tab *) pcs;
static dc_vec by_k;        /* pc_rec, in order of numbering; 0 unused */
static dc_vec node_pcs;    /* uint32_t by node: pcs numbered so far */
static dc_index pc_by_k;   /* hash(node, k) -> by_k */
static _Atomic int pc_lock;

static pc_tab *pc_tab_new(uint32_t cap) {
  pc_tab *t = dc_mmap(sizeof *t + (size_t)cap * sizeof(pc_rec));
  t->mask = cap - 1;
  return t;
}

static uint64_t k_hash(uint32_t node, uint32_t k) {
  uint64_t v[2] = {k, node};
  return dc_hash(v, sizeof v);
}
static uint64_t k_rehash(uint32_t i) {
  const pc_rec *p = dc_vec_at(&by_k, i);
  return k_hash(p->node, p->k);
}

void rd_sites_init(void) {
  atomic_store(&pcs, pc_tab_new(4096));
  dc_vec_init(&by_k, sizeof(pc_rec), MAX_PCS);
  atomic_store(&by_k.n, 1);
  dc_vec_init(&node_pcs, sizeof(uint32_t), 1u << 24);
  dc_index_init(&pc_by_k, 10, k_rehash);
}

static inline uint32_t pc_home(uint32_t node, uintptr_t pc, uint32_t mask) {
  return (uint32_t)(((pc ^ ((uint64_t)node << 47)) * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static const pc_rec *pc_find(const pc_tab *t, uint32_t node, uintptr_t pc) {
  for (uint32_t j = pc_home(node, pc, t->mask);; j = (j + 1) & t->mask) {
    const pc_rec *e = &t->e[j];
    uintptr_t at = __atomic_load_n(&e->pc, __ATOMIC_ACQUIRE);
    if (!at) return 0;
    if (at == pc && e->node == node) return e;
  }
}

static void pc_put(pc_tab *t, pc_rec r) {
  uint32_t j = pc_home(r.node, r.pc, t->mask);
  while (t->e[j].pc) j = (j + 1) & t->mask;
  t->e[j].node = r.node;
  t->e[j].k = r.k;
  __atomic_store_n(&t->e[j].pc, r.pc, __ATOMIC_RELEASE);
  t->used++;
}


DC_NOINLINE uint32_t rd_pc_k_slow(rd_pck *e, uint32_t node, uintptr_t pc) {
  const uintptr_t asked = pc;
  pc += !pc; /* an unknown pc (0) is numbered as 1: 0 marks empty entries here */
  const pc_rec *p = pc_find(atomic_load_explicit(&pcs, memory_order_acquire), node, pc);
  if (!p) {
    dc_lock(&pc_lock);
    pc_tab *t = atomic_load_explicit(&pcs, memory_order_relaxed);
    p = pc_find(t, node, pc);
    if (!p) {
      const uint32_t n = atomic_load_explicit(&by_k.n, memory_order_relaxed);
      if (n >= MAX_PCS) dc_die("dacce: too many distinct access pcs\n");
      if (node >= (1u << 24)) dc_die("dacce: too many functions\n");
      uint32_t *count = dc_vec_at(&node_pcs, node);
      const pc_rec r = {pc, node, (*count)++};
      *(pc_rec *)dc_vec_at(&by_k, n) = r;
      atomic_store_explicit(&by_k.n, n + 1, memory_order_release);
      dc_index_insert(&pc_by_k, k_hash(node, r.k), n);
      if ((t->used + 1) * 2 > t->mask + 1) { /* grow; the old table stays */
        pc_tab *g = pc_tab_new(2 * (t->mask + 1));
        for (uint32_t i = 0; i <= t->mask; i++)
          if (t->e[i].pc) pc_put(g, t->e[i]);
        atomic_store_explicit(&pcs, g, memory_order_release);
        t = g;
      }
      pc_put(t, r);
      p = pc_find(t, node, pc);
    }
    dc_unlock(&pc_lock);
  }
  *e = (rd_pck){~asked, node, p->k};
  return e->k;
}

/* The pc of index k of a function, or 0.  A miss is checked again under the
 * lock: the reader may have been in a table that growth has emptied. */
static uintptr_t pc_of(uint32_t node, uint32_t k) {
  const uint64_t h = k_hash(node, k);
  for (int locked = 0;; locked = 1) {
    const dc_itab *t = dc_index_tab(&pc_by_k);
    uint32_t pos = (uint32_t)(h >> 32), i;
    while ((i = dc_index_next(t, h, &pos))) {
      const pc_rec *p = dc_vec_at(&by_k, i);
      if (p->k == k && p->node == node) {
        if (locked) dc_unlock(&pc_lock);
        return p->pc;
      }
    }
    if (locked) break;
    dc_lock(&pc_lock);
  }
  dc_unlock(&pc_lock);
  return 0;
}

/* ------------------------------------------------------------ a thread's entries */
static inline uint32_t cmap_home(uint64_t ent, uint32_t held, uint32_t cap) {
  return (uint32_t)(((ent ^ (uint64_t)held << 20) * 0x9E3779B97F4A7C15ull) >> 32) & (cap - 1);
}

static void cmap_grow(rd_thread *r) {
  const uint32_t cap = r->cmap_cap ? r->cmap_cap * 2 : 256;
  uint32_t *x = dc_alloc((size_t)cap * sizeof *x);
  for (uint32_t i = 0; i < r->cmap_cap; i++) {
    const uint32_t c = r->cmap[i];
    if (!c) continue;
    uint32_t j = cmap_home(ent_get(r->sites, c), ent_held(r->sites, c), cap);
    while (x[j]) j = (j + 1) & (cap - 1);
    x[j] = c;
  }
  dc_free(r->cmap, (size_t)r->cmap_cap * sizeof *r->cmap);
  r->cmap = x;
  r->cmap_cap = cap;
}

/* The cidx of an entry (with held set held) in the thread's current table,
 * appended if new. */
static uint32_t cidx_of(rd_thread *r, uint64_t ent, uint32_t held) {
  if ((r->cmap_n + 1) * 2 > r->cmap_cap) cmap_grow(r);
  uint32_t j = cmap_home(ent, held, r->cmap_cap), c;
  for (; (c = r->cmap[j]); j = (j + 1) & (r->cmap_cap - 1))
    if (ent_get(r->sites, c) == ent && ent_held(r->sites, c) == held) return c;
  rd_sites *s = r->sites;
  c = atomic_load_explicit(&s->n, memory_order_relaxed);
  /* the reserve and rd_sites_renew keep c in its bits; past them it would
   * spill into the cell's slot field */
  if (dc_unlikely(c >= SITE_C_LIMIT)) dc_die("dacce: a table of sites overflowed\n");
  uint32_t off, k = chunk_of(c, &off);
  uint64_t *chunk = atomic_load_explicit(&s->chunk[k], memory_order_relaxed);
  if (!chunk) {
    chunk = dc_alloc((size_t)(SITE_CHUNK0 << k) * sizeof *chunk);
    atomic_store_explicit(&s->chunk[k], chunk, memory_order_release);
  }
  chunk[off] = ent;
  if (held) held_put(s, c, held);
  atomic_store_explicit(&s->n, c + 1, memory_order_release);
  if (c + 1 >= SITE_C_LIMIT - SITE_RESERVE) r->sites_full = 1;
  r->cmap[j] = c;
  r->cmap_n++;
  return c;
}

int rd_site_names(const rd_thread *r, uint32_t cidx, uint32_t ctx) {
  return cidx && ent_get(r->sites, cidx) == ent_make(ctx, 0) &&
         ent_held(r->sites, cidx) == r->lockset;
}

/* The context's entry for the page of k, and the site.  Page 0 is cached
 * per invocation (site_ctx); other pages, of functions with more than 32
 * access pcs (SQLite's interpreter loop has hundreds), in a small cache of
 * (context, page): without it, SQLite's threads looked up 4 million entries
 * each, nearly all of such pages. */
DC_NOINLINE uint32_t rd_site_slow(rd_thread *r, uint32_t ctx, uint32_t k) {
  const uint32_t page = k >> SITE_KP_BITS;
  uint32_t *pc = 0;
  if (page) {
    const uint32_t site = rd_page_site(r, ctx, k, &pc);
    if (site != RD_SITE_NONE) return site;
  }
  const uint32_t c = cidx_of(r, ent_make(ctx, page), r->lockset);
  if (pc) pc[0] = ctx, pc[1] = page, pc[2] = r->lockset, pc[3] = c;
  if (!page) {
    r->site_ctx = ctx;
    r->site_c0 = c;
    rd_ictx *e = r->site_e;
    if (e && e->handle == ctx) e->cinc = r->inc, e->cidx = c;
    rd_ctx_set_cidx(ctx, c);
  }
  return c << SITE_K_BITS | (k & (SITE_K - 1));
}

/* Entries ca and cb differ (rd_site_same_ctx): do they name one context?
 * A split site names two. */
int rd_site_same_ctx_slow(const rd_thread *r, uint32_t ca, uint32_t cb) {
  const uint64_t a = ent_get(r->sites, ca), b = ent_get(r->sites, cb);
  return ent_ctx(a) == ent_ctx(b) && !((a | b) & ENT_SPLIT) &&
         ent_held(r->sites, ca) == ent_held(r->sites, cb);
}

uint32_t rd_site_split(rd_thread *r, uint64_t p, uint64_t cur, uint32_t site) {
  const uint32_t had = SH_SITE(p);
  const unsigned op = sh_off(p), oc = sh_off(cur);
  /* The bytes below the boundary are only the lower access's: neither
   * holds all of the other's bytes, so the upper one reaches past the
   * lower's end, and from its first byte on every byte is the upper's
   * (the two may share some: either access is then a true witness, the
   * same thread, epoch and kind). */
  const uint32_t lo = op < oc ? had : site, hi = op < oc ? site : had;
  const unsigned boundary = op < oc ? oc : op;
  const uint64_t want = ent_split(lo, hi, boundary);
  /* The same pair recurs (fields written by the same functions in every
   * epoch), and finding its entry takes about 150 instructions: a small
   * cache first.  (When reads split too, SQLite made 420,000 splits, and
   * this cache held 256; writes alone make 25,000, and 64 hold them.) */
  uint64_t *slot = r->split_of[(want * 0x9E3779B97F4A7C15ull) >> 58];
  if (slot[0] == want) return (uint32_t)slot[1];
  /* p already split, with cur's site on cur's side (a field written byte by
   * byte after another function's): the same entry.  Not cached: had
   * decodes as want does on these bytes of cur, not on every byte that a
   * later access with the same want may have. */
  const uint64_t e = ent_get(r->sites, had >> SITE_K_BITS);
  if ((e & ENT_SPLIT) && split_side(e, oc) == site && split_side(e, oc + sh_size(cur) - 1) == site)
    return had;
  const uint32_t got = cidx_of(r, want, 0) << SITE_K_BITS;
  slot[0] = want;
  slot[1] = got;
  return got;
}

void rd_sites_end(rd_thread *r) {
  dc_free(r->cmap, (size_t)r->cmap_cap * sizeof *r->cmap);
  r->cmap = 0;
  r->cmap_cap = r->cmap_n = 0;
  r->site_ctx = 0;
}

/* A new incarnation's table: the thread's index and caches start empty. */
void rd_sites_begin(rd_thread *r, rd_sites *s) {
  rd_sites_end(r);
  r->sites = s;
  r->sites_full = 0;
  dc_memset(r->pages, 0, sizeof r->pages);
  dc_memset(r->split_of, 0, sizeof r->split_of);
}

/* ------------------------------------------------------------ reports */
int rd_site_decode(const rd_sites *s, uint32_t site, unsigned byte, unsigned *bytes,
                   uint32_t *ctx, uint32_t *held, uintptr_t *pc, int *merged) {
  uint64_t e = ent_get(s, site >> SITE_K_BITS);
  /* a split site's side for byte, and that side's bytes (a split refers
   * only to entries made before it, so this ends) */
  for (int depth = 0; (e & ENT_SPLIT) && depth < 8; depth++) {
    const unsigned below = (1u << split_boundary(e)) - 1;
    *bytes &= byte < split_boundary(e) ? below : ~below;
    site = split_side(e, byte);
    e = ent_get(s, site >> SITE_K_BITS);
  }
  const rd_ctxrec *c = e && !(e & ENT_SPLIT) ? rd_ctx_get(ent_ctx(e)) : 0;
  if (!c) return 0;
  *ctx = ent_ctx(e);
  if (held) *held = ent_held(s, site >> SITE_K_BITS);
  *pc = pc_of(c->node, ent_page(e) << SITE_KP_BITS | (site & (SITE_K - 1)));
  if (*pc == 1) *pc = 0; /* unknown (rd_site_of) */
  *merged = !!(site & RD_SITE_MERGED);
  return 1;
}

__attribute__((constructor)) static void site_locks(void) {
  dc_atfork_register(DC_RANK_SITES, &pc_lock, 1, 0);
}
