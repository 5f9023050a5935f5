/* intercept_heap.c: the malloc family.  C++ new/delete reach these through
 * libstdc++, so every heap block is seen.
 *
 * Allocation: fresh memory has no history (shadow reset) and the block is
 * recorded with its size, thread and context, for reports.  Free: a write to
 * the block by the freeing thread, with the special pc "free", so that an
 * unsynchronised access afterwards is reported as heap-use-after-free with
 * the freeing context; sync objects inside the block are forgotten.
 * Blocks of up to 256 bytes come from the runtime's own size classes
 * (heap_small.c), the rest from glibc's, reached through its __libc_*
 * entry points, which need no dlsym bootstrap. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "intercept.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

/* ------------------------------------------------------------ block records
 * A live block's record (rd_block) is in a pool, named by a 32-bit index
 * (0: none), and found from the block's address through a meta map: like
 * the shadow's and sync.c's, 1 GiB regions reserved (MAP_NORESERVE) the
 * first time a block is recorded in one, with a word per 16-byte granule,
 * the index of the record of the block that starts there (malloc's
 * alignment: no two blocks start in one granule).  Blocks made one after
 * another have neighbouring words, and a thread reuses the records it
 * freed last, so an allocation or a free mostly writes lines that are in
 * the cache already.  Until 2026-11-30 the records were in a hash table by
 * address (64 stripes of open addressing): every allocation and every free
 * was a cache miss in a table of up to twice the live blocks, which grew by
 * doubling (two threads that made and then freed 4 million 16-byte blocks
 * each: 10.4 s and 1.48 GB, against clang TSan's 2.9 s and 0.83 GB).
 * An address above 2^47 shares its region's words with one below: its
 * record still holds its exact address, and a lookup compares it. */
#define HEAP_GRANULE_BITS 4u
#define HEAP_WORDS ((uintptr_t)1 << (SH_REGION_BITS - HEAP_GRANULE_BITS))
typedef struct heap_region {
  _Atomic uint32_t word[HEAP_WORDS];
} heap_region;
static _Atomic(heap_region *) heap_map[SH_REGIONS];

/* The word of the granule at addr; with make, its region's map is made if
 * there is none yet, else 0 then. */
static _Atomic uint32_t *word_of(uintptr_t addr, int make) {
  _Atomic(heap_region *) *slot = &heap_map[(addr >> SH_REGION_BITS) & (SH_REGIONS - 1)];
  heap_region *m = atomic_load_explicit(slot, memory_order_acquire);
  if (!m) {
    if (!make) return 0;
    m = dc_mmap_once((void *_Atomic *)slot, sizeof(heap_region));
  }
  return &m->word[(addr >> HEAP_GRANULE_BITS) & (HEAP_WORDS - 1)];
}

/* The pool: blocks of REC_BLOCK records, never unmapped; a free record has
 * addr 0 and is on a list through ctx, the global one (rec_free, under
 * rec_lock) or its thread's (rd_thread.heap_cache), which takes and gives
 * back REC_TAKE at a time. */
#define REC_BLOCK_BITS 14u
#define REC_BLOCK (1u << REC_BLOCK_BITS)
#define REC_BLOCKS (1u << (32 - REC_BLOCK_BITS))
#define REC_TAKE 64u
static rd_block *recs[REC_BLOCKS];
static _Atomic int rec_lock;
static _Atomic uint32_t rec_used = 1; /* indices handed out (0: none) */
static uint32_t rec_free;

static inline rd_block *rec(uint32_t i) { return &recs[i >> REC_BLOCK_BITS][i & (REC_BLOCK - 1)]; }

/* Does the block at start (0: none) of size bytes hold addr?  (A block of
 * 0 bytes holds its first.) */
static inline int holds(uintptr_t start, uint64_t size, uintptr_t addr) {
  return start && addr - start < (size ? size : 1);
}

/* A free record (rec_lock held). */
static uint32_t rec_take_locked(void) {
  uint32_t i = rec_free;
  if (i) {
    rec_free = rec(i)->ctx;
    return i;
  }
  i = atomic_load_explicit(&rec_used, memory_order_relaxed);
  if (i == UINT32_MAX) dc_die("dacce: more than %u heap blocks alive at once\n", UINT32_MAX - 1);
  if (!recs[i >> REC_BLOCK_BITS]) recs[i >> REC_BLOCK_BITS] = dc_mmap(REC_BLOCK * sizeof(rd_block));
  atomic_store_explicit(&rec_used, i + 1, memory_order_release);
  return i;
}

/* The list of records from first (through ctx, to its end) goes back to the
 * pool's. */
static void rec_give_back(uint32_t first) {
  uint32_t last = first;
  while (rec(last)->ctx) last = rec(last)->ctx;
  dc_lock(&rec_lock);
  rec(last)->ctx = rec_free;
  rec_free = first;
  dc_unlock(&rec_lock);
}

/* A free record, from thread r's list. */
static uint32_t rec_get(rd_thread *r) {
  uint32_t i = r->heap_cache;
  if (dc_likely(i)) {
    r->heap_cache = rec(i)->ctx;
    r->heap_ncache--;
    return i;
  }
  dc_lock(&rec_lock);
  for (uint32_t k = 0; k < REC_TAKE; k++) {
    const uint32_t c = rec_take_locked();
    rec(c)->ctx = r->heap_cache;
    r->heap_cache = c;
  }
  r->heap_ncache = REC_TAKE;
  i = rec_take_locked();
  dc_unlock(&rec_lock);
  return i;
}

/* Record i is free again; a thread's list longer than 2 * REC_TAKE gives
 * all but REC_TAKE back. */
static void rec_put(rd_thread *r, uint32_t i) {
  rd_block *b = rec(i);
  atomic_store_explicit((_Atomic uintptr_t *)&b->addr, 0, memory_order_relaxed);
  b->ctx = r->heap_cache;
  r->heap_cache = i;
  if (dc_likely(++r->heap_ncache < 2 * REC_TAKE)) return;
  uint32_t keep = i;
  for (uint32_t k = 1; k < REC_TAKE; k++) keep = rec(keep)->ctx;
  const uint32_t rest = rec(keep)->ctx;
  rec(keep)->ctx = 0;
  r->heap_ncache = REC_TAKE;
  rec_give_back(rest);
}

uint64_t rd_heap_records(void) { return atomic_load(&rec_used) - 1; }

void rd_heap_thread_end(rd_thread *r) {
  const uint32_t first = r->heap_cache;
  r->heap_cache = r->heap_ncache = 0;
  if (first) rec_give_back(first);
}

/* Record the block b: the record of a block recorded at the same address
 * before and not freed since (freed by the runtime itself, whose calls are
 * not events) goes. */
static void put(dc_thread *t, const rd_block *b) {
  dc_enter(t); /* (a signal handler's malloc would share the thread's list) */
  const uint32_t i = rec_get(&t->rd);
  rd_block *to = rec(i);
  *to = *b;
  const uint32_t old =
      atomic_exchange_explicit(word_of(b->addr, 1), i, memory_order_release);
  if (old) rec_put(&t->rd, old);
  dc_leave(t);
}

/* Remove and return the block at addr. */
static int take(dc_thread *t, uintptr_t addr, rd_block *out) {
  _Atomic uint32_t *w = word_of(addr, 0);
  if (!w || !atomic_load_explicit(w, memory_order_relaxed)) return 0;
  dc_enter(t);
  int found = 0;
  const uint32_t i = atomic_exchange_explicit(w, 0, memory_order_acquire);
  if (i) {
    *out = *rec(i);
    found = out->addr == addr;
    rec_put(&t->rd, i);
  }
  dc_leave(t);
  return found;
}

/* Recently freed blocks, so that a use-after-free still names its block,
 * with each free's call into uninstrumented code (alloc_via at the free),
 * so that it names the line of its function that freed it.  In rings: one
 * per freeing thread (its serial modulo FREED_RINGS) for blocks smaller
 * than FREED_LARGE, one for the larger, so that threads that free at once
 * do not wait for each other (one ring and its lock for all took 80% of a
 * free's time when two threads freed 16-byte blocks).  A lookup (only for
 * reports, which scan the live records too) reads every ring, newest first
 * in each; between them the time stamp counter decides.  Until 2026-12-02
 * the small blocks' rings were by the MiB the block starts in, which kept
 * two threads apart while each had a glibc arena of its own; with the
 * runtime's own classes (heap_small.c) a thread's blocks lie in a run per
 * class, and two threads' frees met in the same rings: 14.9% of
 * bench/micro/heap.sh's run (blocks of up to 1 KiB) in on_free against
 * 10.6% with the classes off. */
#define FREED_RINGS 64u
#define FREED_RING 1024u
#define FREED_LARGE ((uintptr_t)64 << 10)
/* An entry is written without a lock: its index is taken from the ring's
 * count (one locked add; a lock taken and given back was two locked
 * instructions, 40% of on_free's samples with blocks of up to 64 bytes),
 * and its tag says which free it holds and whether it is whole, as a
 * sequence lock's count does: odd (2n + 1) while the free of index n is
 * written, 2n + 2 once it is.  A lookup copies an entry between two reads
 * of its tag and drops it when they differ or are not 2n + 2 for the index
 * it wanted (being written, or written again since).  The words go through
 * relaxed atomic loads and stores: a lookup may read one while it is
 * written.  A fork's child may have an entry left half written: its tag
 * stays odd, and lookups pass over it. */
typedef union block_words { /* a block's record, as the words copied */
  rd_block b;
  uint64_t w[sizeof(rd_block) / 8];
} block_words;
typedef struct freed_ent {
  block_words u;
  uint64_t stamp; /* __rdtsc() at the free */
  _Atomic uint64_t tag; /* the count above, << 16 | the free's via (16 bits) */
} freed_ent;
_Static_assert(sizeof(freed_ent) == 48, "a recent free: 48 bytes");
/* A ring's count, a cache line of its own, apart from its entries (those
 * of two rings written by two threads at once share no line). */
typedef struct freed_ring {
  _Atomic uint32_t next;
  char pad[60];
} freed_ring;
static freed_ring freed[FREED_RINGS + 1]; /* the last: large blocks */
static freed_ent freed_e[FREED_RINGS + 1][FREED_RING];
static inline freed_ent *ring_e(const freed_ring *r) { return freed_e[r - freed]; }

static void remember_freed(const dc_thread *t, const rd_block *b, int16_t via) {
  freed_ring *r = &freed[b->size < FREED_LARGE ? t->serial % FREED_RINGS : FREED_RINGS];
  const uint32_t n = atomic_fetch_add_explicit(&r->next, 1, memory_order_relaxed);
  freed_ent *e = &ring_e(r)[n % FREED_RING];
  const uint64_t seq = 2 * (uint64_t)n + 1;
  atomic_store_explicit(&e->tag, seq << 16, memory_order_relaxed);
  atomic_thread_fence(memory_order_release); /* (the odd tag before the words) */
  const block_words from = {.b = *b};
  for (size_t k = 0; k < sizeof from.w / 8; k++)
    __atomic_store_n(&e->u.w[k], from.w[k], __ATOMIC_RELAXED);
  __atomic_store_n(&e->stamp, __builtin_ia32_rdtsc(), __ATOMIC_RELAXED);
  atomic_store_explicit(&e->tag, (seq + 1) << 16 | (uint16_t)via, memory_order_release);
}

/* The newest free of a block that held addr (copied to out, with its
 * via), if any of the rings still has one. */
static int freed_find(uintptr_t addr, rd_block *out, intptr_t *via) {
  uint64_t newest = 0;
  int found = 0;
  for (freed_ring *r = freed; r <= &freed[FREED_RINGS]; r++) {
    const uint32_t next = atomic_load_explicit(&r->next, memory_order_acquire);
    for (uint32_t n = 1; n <= FREED_RING && n <= next; n++) {
      const uint32_t i = next - n;
      const freed_ent *e = &ring_e(r)[i % FREED_RING];
      const uint64_t tag = atomic_load_explicit(&e->tag, memory_order_acquire);
      if (tag >> 16 != 2 * (uint64_t)i + 2) continue;
      block_words copy;
      for (size_t k = 0; k < sizeof copy.w / 8; k++)
        copy.w[k] = __atomic_load_n(&e->u.w[k], __ATOMIC_RELAXED);
      const uint64_t stamp = __atomic_load_n(&e->stamp, __ATOMIC_RELAXED);
      atomic_thread_fence(memory_order_acquire); /* (the words before the second look) */
      if (atomic_load_explicit(&e->tag, memory_order_relaxed) != tag) continue;
      if (holds(copy.b.addr, copy.b.size, addr)) {
        if (!found || stamp > newest) {
          *out = copy.b;
          *via = (int16_t)(uint16_t)tag;
          newest = stamp;
          found = 1;
        }
        break;
      }
    }
  }
  return found;
}

/* The newest free of the block containing addr: its offset of the call
 * into the uninstrumented code that freed it, or 0 (rd_block.via). */
intptr_t rd_heap_freed_via(uintptr_t addr) {
  rd_block b;
  intptr_t via = 0;
  return freed_find(addr, &b, &via) ? via : 0;
}

/* For reports: the block containing addr, live first, then recently freed
 * (newest first).  A scan of the pool: reports are rare. */
int rd_heap_find(uintptr_t addr, rd_block *out) {
  const uint32_t used = atomic_load_explicit(&rec_used, memory_order_acquire);
  for (uint32_t i = 1; i < used; i++) {
    const rd_block *b = rec(i);
    /* (without a lock: a block freed, or made, meanwhile may be named) */
    const uintptr_t a = atomic_load_explicit((_Atomic uintptr_t *)&b->addr, memory_order_relaxed);
    if (holds(a, b->size, addr)) {
      *out = *b;
      if (out->addr == a) return 1;
    }
  }
  intptr_t via;
  return freed_find(addr, out, &via);
}

/* ------------------------------------------------------------ events */
/* The pc an allocation or free is reported at: the malloc family's caller,
 * unless an operator new or delete is in progress, whose caller it is
 * (heap_pc; consumed here, by the allocator call it makes). */
static inline uintptr_t caller_pc(dc_thread *t, uintptr_t pc) {
  const uintptr_t outer = t->rd.heap_pc;
  t->rd.heap_pc = 0;
  return outer ? outer : pc;
}

/* An allocation (or a free) at pc by uninstrumented code that the innermost
 * instrumented function called (a std::string's growth in libstdc++,
 * strdup, fopen): where that call may be, as an offset from the function's
 * node pc (rd_block.via), or 0.  Allocations are too many for the symbol
 * tables (asking them here, cached per call site, took LevelDB from 5.0 to
 * 9.3 s): this only notes the first word under the function's frame that
 * points into its code's neighbourhood (where the call's return address
 * is, dc_call_into), and the report keeps it only if it is in the
 * function's symbol, right after a call (stack_of_ctx).  An allocator
 * called from near the function's own code is its own call: nothing. */
static int16_t alloc_via(dc_thread *t, uintptr_t pc) {
  if (dc_capture_mode != DC_CAPTURE_DACCE || !dc_depth(t)) return 0;
  dc_materialize((dc_thread *)t);
  const uintptr_t fn = dc_node_at(t->node)->pc;
  if (dc_likely(pc - fn + (64u << 10) < (128u << 10))) return 0;
  const uintptr_t *w;
  size_t n = dc_words_under_frame(t, __builtin_frame_address(0), &w);
  for (n = n < 8 ? n : 8; n--;) {
    const intptr_t off = (intptr_t)(*--w - 1 - fn);
    if (off && off >= INT16_MIN && off <= INT16_MAX) return (int16_t)off;
  }
  return 0;
}

static void on_alloc(void *p, size_t size, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (!t) return;
  pc = caller_pc(t, pc);
  if (!p || t->in_runtime) return;
  /* (a small block of ours: its whole class, which malloc_usable_size
   * gives the program; an earlier block's freed mark is not left there) */
  sh_reset((uintptr_t)p, rd_small_owns(p) ? rd_small_usable(p) : size);
  const uint32_t ctx = rd_ctx_handle(t); /* (first: it may settle the thread's node) */
  const rd_block b = {.addr = (uintptr_t)p, .size = size, .via = alloc_via(t, pc),
                      .tid = t->serial, .ctx = ctx, .pc = pc};
  put(t, &b);
}

static void on_free(void *p, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (!t) return;
  pc = caller_pc(t, pc);
  if (!p || t->in_runtime) return;
  rd_block b;
  if (!take(t, (uintptr_t)p, &b)) return;
  rd_ctx_handle(t); /* (before alloc_via, as on_alloc) */
  remember_freed(t, &b, alloc_via(t, pc));
  rd_free_range(b.addr, b.size, pc);
  rd_sync_forget(b.addr, b.size);
}

/* A call of the malloc family while a signal handler runs on the thread
 * (intercept_signal.c): reported before the call, which may never return
 * (the signal came in the middle of the thread's own malloc).  An operator
 * new or delete in progress is the call reported, at its caller. */
static inline void sig_check(const char *fn, int alloc, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (dc_unlikely(t && t->sig_depth)) {
    const uintptr_t outer = t->rd.heap_pc;
    rd_signal_unsafe_call(t, outer ? (alloc ? "operator new" : "operator delete") : fn,
                          outer ? outer : pc);
  }
}

/* ------------------------------------------------------------ interceptors */
/* Blocks of up to RD_SMALL_MAX bytes are the runtime's own (heap_small.c),
 * the rest glibc's; a free goes to whichever made the block. */
static inline void *raw_malloc(size_t n) {
  void *p = rd_small_alloc(n);
  return p ? p : __libc_malloc(n);
}
static inline void raw_free(void *p) {
  if (rd_small_owns(p)) rd_small_free(p);
  else __libc_free(p);
}

DC_EXPORT_LEAF void *malloc(size_t n) {
  sig_check("malloc", 1, PC());
  void *p = raw_malloc(n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT_LEAF void *calloc(size_t n, size_t m) {
  sig_check("calloc", 1, PC());
  size_t size;
  void *p = 0;
  if (!__builtin_mul_overflow(n, m, &size) && (p = rd_small_alloc(size))) {
    uint64_t *w = p;
    const size_t words = rd_small_usable(p) / 8; /* (its class, a multiple of 16 bytes) */
    for (size_t i = 0; i < words; i++) w[i] = 0;
  } else {
    p = __libc_calloc(n, m);
  }
  on_alloc(p, size, PC());
  return p;
}
/* realloc at pc: a small block stays where it is when n fits its class,
 * else moves (its bytes copied as the runtime's, not as an access). */
static void *do_realloc(void *old, size_t n, uintptr_t pc) {
  if (!old) {
    void *p = raw_malloc(n);
    on_alloc(p, n, pc);
    return p;
  }
  if (!rd_small_owns(old)) {
    on_free(old, pc);
    void *p = __libc_realloc(old, n);
    on_alloc(p, n, pc);
    return p;
  }
  const size_t have = rd_small_usable(old);
  void *p = n > have ? raw_malloc(n) : old;
  if (!p) return 0; /* (old stays as it was) */
  on_free(old, pc);
  if (!n) { /* (as glibc: freed, and no block) */
    rd_small_free(old);
    return 0;
  }
  if (p != old) {
    const uint64_t *from = old;
    uint64_t *to = p;
    for (size_t i = 0; i < have / 8; i++) to[i] = from[i];
    rd_small_free(old);
  }
  on_alloc(p, n, pc);
  return p;
}
DC_EXPORT_LEAF void *realloc(void *old, size_t n) {
  sig_check("realloc", 1, PC());
  return do_realloc(old, n, PC());
}
DC_EXPORT_LEAF void *reallocarray(void *old, size_t n, size_t m) {
  sig_check("reallocarray", 1, PC());
  size_t size;
  if (__builtin_mul_overflow(n, m, &size)) {
    errno = ENOMEM;
    return 0;
  }
  return do_realloc(old, size, PC());
}
DC_EXPORT_LEAF void free(void *p) {
  if (p) sig_check("free", 0, PC());
  on_free(p, PC());
  raw_free(p);
}
DC_EXPORT_LEAF size_t malloc_usable_size(void *p) {
  static size_t (*real)(void *);
  if (rd_small_owns(p)) return rd_small_usable(p);
  if (!real) real = (size_t(*)(void *))dlsym(RTLD_NEXT, "malloc_usable_size");
  return real ? real(p) : 0;
}
DC_EXPORT_LEAF void cfree(void *p) { free(p); }
DC_EXPORT_LEAF void *memalign(size_t a, size_t n) {
  sig_check("memalign", 1, PC());
  void *p = __libc_memalign(a, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT_LEAF void *aligned_alloc(size_t a, size_t n) {
  sig_check("aligned_alloc", 1, PC());
  void *p = __libc_memalign(a, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT_LEAF int posix_memalign(void **out, size_t a, size_t n) {
  sig_check("posix_memalign", 1, PC());
  if (a < sizeof(void *) || (a & (a - 1))) return EINVAL;
  void *p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  on_alloc(p, n, PC());
  *out = p;
  return 0;
}
DC_EXPORT_LEAF void *valloc(size_t n) {
  sig_check("valloc", 1, PC());
  void *p = __libc_memalign(4096, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT_LEAF void *pvalloc(size_t n) {
  sig_check("pvalloc", 1, PC());
  size_t r = (n + 4095) & ~(size_t)4095;
  void *p = __libc_memalign(4096, r ? r : 4096);
  on_alloc(p, r, PC());
  return p;
}

/* ------------------------------------------------------------ C++ */
/* operator new and delete are libstdc++'s, which call the malloc family
 * above, from inside libstdc++: without these, a C++ block's allocation
 * (and a delete) was reported at a pc in libstdc++, and the allocating
 * function's frame at its first line, not at the line of the new.  Each
 * records its caller's pc for the allocator call it makes (the outermost
 * wins: a nothrow new calls the throwing one), then calls libstdc++'s own,
 * which keeps its semantics (new_handler, std::bad_alloc, which unwinds
 * through this frame).  Exported by the program (dacce.dynlist), so that
 * libstdc++'s own calls arrive here too. */
/* libstdc++'s own operator: the next definition after ours (RTLD_NEXT), or,
 * when a C++ library was dlopen'd into a C program (so not in the global
 * scope), the one of the libstdc++ already loaded.  NULL when there is
 * none (a C++ library that links libstdc++ statically may still bind its
 * calls to ours): then the operator is malloc/free (cxx_new, cxx_delete). */
static void *cxx_next(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) {
    void *h = dlopen("libstdc++.so.6", RTLD_NOLOAD | RTLD_LAZY);
    if (h) f = dlsym(h, name);
  }
  return f;
}
static void *cxx_new(size_t n, size_t align, int nothrow) {
  void *p = align ? aligned_alloc(align, (n + align - 1) / align * align) : malloc(n ? n : 1);
  if (!p && !nothrow) dc_die("dacce: operator new: out of memory (%zu bytes)\n", n);
  return p;
}
static void cxx_delete(void *q) { free(q); }
#define CXX_HEAP(ret, name, params, args, fallback)                               \
  DC_EXPORT_LEAF ret name params {                                                \
    static ret(*real) params;                                                     \
    if (!real) real = (ret(*) params)cxx_next(#name);                             \
    dc_thread *t = dc_self();                                                        \
    const uintptr_t outer = t ? t->rd.heap_pc : 0;                                \
    if (t && !outer) t->rd.heap_pc = PC();                                        \
    CXX_RESULT_##ret(real ? real args : fallback);                                \
    if (t) t->rd.heap_pc = outer;                                                 \
    CXX_RETURN_##ret;                                                             \
  }
#define CXX_RESULT_void
#define CXX_RETURN_void return
#define CXX_RESULT_vptr void *p =
#define CXX_RETURN_vptr return p
typedef void *vptr;
typedef struct nothrow_t nothrow_t; /* std::nothrow_t, passed by reference */
typedef size_t align_val_t;         /* std::align_val_t, an enum class of size_t */
CXX_HEAP(vptr, _Znwm, (size_t n), (n), cxx_new(n, 0, 0))
CXX_HEAP(vptr, _Znam, (size_t n), (n), cxx_new(n, 0, 0))
CXX_HEAP(vptr, _ZnwmRKSt9nothrow_t, (size_t n, const nothrow_t *nt), (n, nt), cxx_new(n, 0, 1))
CXX_HEAP(vptr, _ZnamRKSt9nothrow_t, (size_t n, const nothrow_t *nt), (n, nt), cxx_new(n, 0, 1))
CXX_HEAP(vptr, _ZnwmSt11align_val_t, (size_t n, align_val_t a), (n, a), cxx_new(n, a, 0))
CXX_HEAP(vptr, _ZnamSt11align_val_t, (size_t n, align_val_t a), (n, a), cxx_new(n, a, 0))
CXX_HEAP(vptr, _ZnwmSt11align_val_tRKSt9nothrow_t, (size_t n, align_val_t a, const nothrow_t *nt),
         (n, a, nt), cxx_new(n, a, 1))
CXX_HEAP(vptr, _ZnamSt11align_val_tRKSt9nothrow_t, (size_t n, align_val_t a, const nothrow_t *nt),
         (n, a, nt), cxx_new(n, a, 1))
CXX_HEAP(void, _ZdlPv, (void *q), (q), cxx_delete(q))
CXX_HEAP(void, _ZdaPv, (void *q), (q), cxx_delete(q))
CXX_HEAP(void, _ZdlPvm, (void *q, size_t n), (q, n), cxx_delete(q))
CXX_HEAP(void, _ZdaPvm, (void *q, size_t n), (q, n), cxx_delete(q))
CXX_HEAP(void, _ZdlPvRKSt9nothrow_t, (void *q, const nothrow_t *nt), (q, nt), cxx_delete(q))
CXX_HEAP(void, _ZdaPvRKSt9nothrow_t, (void *q, const nothrow_t *nt), (q, nt), cxx_delete(q))
CXX_HEAP(void, _ZdlPvSt11align_val_t, (void *q, align_val_t a), (q, a), cxx_delete(q))
CXX_HEAP(void, _ZdaPvSt11align_val_t, (void *q, align_val_t a), (q, a), cxx_delete(q))
CXX_HEAP(void, _ZdlPvmSt11align_val_t, (void *q, size_t n, align_val_t a), (q, n, a), cxx_delete(q))
CXX_HEAP(void, _ZdaPvmSt11align_val_t, (void *q, size_t n, align_val_t a), (q, n, a), cxx_delete(q))
CXX_HEAP(void, _ZdlPvSt11align_val_tRKSt9nothrow_t, (void *q, align_val_t a, const nothrow_t *nt),
         (q, a, nt), cxx_delete(q))
CXX_HEAP(void, _ZdaPvSt11align_val_tRKSt9nothrow_t, (void *q, align_val_t a, const nothrow_t *nt),
         (q, a, nt), cxx_delete(q))

/* Does a GLIBC_TUNABLES value set one of glibc.malloc's?  (By hand: the
 * runtime does not call the string functions it intercepts.) */
static int names_malloc(const char *tun) {
  static const char key[] = "glibc.malloc.";
  for (; *tun; tun++) {
    size_t i = 0;
    while (key[i] && tun[i] == key[i]) i++;
    if (!key[i]) return 1;
  }
  return 0;
}

/* glibc gives the free top of a heap back to the kernel (madvise) once it
 * passes M_TRIM_THRESHOLD (128 KiB at first), and the next allocations
 * fault its pages in again.  With the detector's own page faults, and a
 * machine whose faults are slow, that cycle cost SQLite's four threads
 * (heaps of their own, SQLite's page caches filled and emptied) 23,500
 * faults on 847 pages in a run, 28 a page (natively: 8,700, 12 a page),
 * where clang TSan's allocator, which keeps freed memory, took none.
 * Raising the threshold (heap_trim_kb) keeps that memory in the heap, as
 * its allocator does.  glibc then keeps its mmap threshold where it is
 * (128 KiB: a set threshold turns off its raising at each free of a larger
 * block).  A program whose environment sets glibc's malloc (GLIBC_TUNABLES,
 * MALLOC_*_) keeps its settings. */
__attribute__((constructor)) static void heap_trim(void) {
  dc_init(); /* (the options) */
  if (!dc_opt.heap_trim_kb) return;
  const char *tun = getenv("GLIBC_TUNABLES");
  if (tun && names_malloc(tun)) return;
  if (getenv("MALLOC_TRIM_THRESHOLD_") ||
      getenv("MALLOC_TOP_PAD_") || getenv("MALLOC_MMAP_THRESHOLD_") || getenv("MALLOC_MMAP_MAX_"))
    return;
  mallopt(M_TRIM_THRESHOLD, dc_opt.heap_trim_kb << 10);
}

__attribute__((constructor)) static void heap_locks(void) {
  dc_atfork_register(DC_RANK_HEAP, &rec_lock, 1, 0);
}
