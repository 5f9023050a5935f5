/* intercept_heap.c: the malloc family.  C++ new/delete reach these through
 * libstdc++, so every heap block is seen.
 *
 * Allocation: fresh memory has no history (shadow reset) and the block is
 * recorded with its size, thread and context, for reports.  Free: a write to
 * the block by the freeing thread, with the special pc "free", so that an
 * unsynchronised access afterwards is reported as heap-use-after-free with
 * the freeing context; sync objects inside the block are forgotten.
 * The real allocator is glibc's, reached through its __libc_* entry points,
 * which need no dlsym bootstrap. */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <string.h>

#include "intercept.h"

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
extern void *__libc_memalign(size_t, size_t);

/* ------------------------------------------------------------ block table */
/* Open addressing by block address, striped locks, tombstones. */
#define NSTRIPES 64
typedef struct stripe {
  _Atomic int lock;
  rd_block *slots;
  uint32_t cap, used, live;
} stripe;
static stripe stripes[NSTRIPES];
#define TOMB ((uintptr_t)1)

static inline uint64_t bhash(uintptr_t a) { return dc_hash_word(a); }
static stripe *stripe_of(uint64_t h) { return &stripes[h & (NSTRIPES - 1)]; }

static void put_locked(stripe *s, const rd_block *b);
static void grow(stripe *s) {
  rd_block *old = s->slots;
  uint32_t ocap = s->cap;
  s->cap = ocap ? ocap * 2 : 1024;
  s->slots = dc_alloc((size_t)s->cap * sizeof(rd_block));
  s->used = s->live = 0;
  for (uint32_t i = 0; i < ocap; i++)
    if (old[i].addr > TOMB) put_locked(s, &old[i]);
  dc_free(old, (size_t)ocap * sizeof(rd_block));
}
static void put_locked(stripe *s, const rd_block *b) {
  if ((s->used + 1) * 4 > s->cap * 3) grow(s);
  uint32_t i = (uint32_t)(bhash(b->addr) >> 32) & (s->cap - 1);
  while (s->slots[i].addr > TOMB && s->slots[i].addr != b->addr) i = (i + 1) & (s->cap - 1);
  if (s->slots[i].addr == 0) s->used++;
  if (s->slots[i].addr != b->addr) s->live++;
  s->slots[i] = *b;
}
/* remove and return the block at addr */
static int take(uintptr_t addr, rd_block *out) {
  stripe *s = stripe_of(bhash(addr));
  dc_lock(&s->lock);
  int found = 0;
  if (s->cap) {
    uint32_t i = (uint32_t)(bhash(addr) >> 32) & (s->cap - 1);
    while (s->slots[i].addr != 0) {
      if (s->slots[i].addr == addr) {
        *out = s->slots[i];
        s->slots[i].addr = TOMB;
        s->live--;
        found = 1;
        break;
      }
      i = (i + 1) & (s->cap - 1);
    }
  }
  dc_unlock(&s->lock);
  return found;
}

/* Recently freed blocks, so a use-after-free still names its block, and
 * each free's call into uninstrumented code (alloc_via at the free), so
 * that it names the line of its function that freed it. */
#define FREED_RING 4096
static rd_block freed_ring[FREED_RING];
static int16_t freed_via[FREED_RING];
static uint32_t freed_next;
static _Atomic int freed_lock;

static void remember_freed(const rd_block *b, int16_t via) {
  dc_lock(&freed_lock);
  freed_via[freed_next % FREED_RING] = via;
  freed_ring[freed_next++ % FREED_RING] = *b;
  dc_unlock(&freed_lock);
}

/* The newest free of the block containing addr: its offset of the call
 * into the uninstrumented code that freed it, or 0 (rd_block.via). */
intptr_t rd_heap_freed_via(uintptr_t addr) {
  intptr_t via = 0;
  dc_lock(&freed_lock);
  for (uint32_t k = 1; k <= FREED_RING && k <= freed_next; k++) {
    const uint32_t i = (freed_next - k) % FREED_RING;
    const rd_block *b = &freed_ring[i];
    if (b->addr && addr - b->addr < (b->size ? b->size : 1)) {
      via = freed_via[i];
      break;
    }
  }
  dc_unlock(&freed_lock);
  return via;
}

/* For reports: the block containing addr, live first, then recently freed
 * (newest first).  A scan: reports are rare. */
int rd_heap_find(uintptr_t addr, rd_block *out) {
  for (int k = 0; k < NSTRIPES; k++) {
    stripe *s = &stripes[k];
    dc_lock(&s->lock);
    for (uint32_t i = 0; i < s->cap; i++) {
      const rd_block *b = &s->slots[i];
      if (b->addr > TOMB && addr - b->addr < (b->size ? b->size : 1)) {
        *out = *b;
        dc_unlock(&s->lock);
        return 1;
      }
    }
    dc_unlock(&s->lock);
  }
  int found = 0;
  dc_lock(&freed_lock);
  for (uint32_t k = 1; k <= FREED_RING && k <= freed_next; k++) {
    const rd_block *b = &freed_ring[(freed_next - k) % FREED_RING];
    if (b->addr && addr - b->addr < (b->size ? b->size : 1)) {
      *out = *b;
      found = 1;
      break;
    }
  }
  dc_unlock(&freed_lock);
  return found;
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
  sh_reset((uintptr_t)p, size);
  const uint32_t ctx = rd_ctx_handle(t); /* (first: it may settle the thread's node) */
  rd_block b = {.addr = (uintptr_t)p, .size = size, .via = alloc_via(t, pc), .tid = t->serial,
                .ctx = ctx, .pc = pc};
  stripe *s = stripe_of(bhash(b.addr));
  dc_lock(&s->lock);
  put_locked(s, &b);
  dc_unlock(&s->lock);
}

static void on_free(void *p, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (!t) return;
  pc = caller_pc(t, pc);
  if (!p || t->in_runtime) return;
  rd_block b;
  if (!take((uintptr_t)p, &b)) return;
  rd_ctx_handle(t); /* (before alloc_via, as on_alloc) */
  remember_freed(&b, alloc_via(t, pc));
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
DC_EXPORT void *malloc(size_t n) {
  sig_check("malloc", 1, PC());
  void *p = __libc_malloc(n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT void *calloc(size_t n, size_t m) {
  sig_check("calloc", 1, PC());
  void *p = __libc_calloc(n, m);
  on_alloc(p, n * m, PC());
  return p;
}
DC_EXPORT void *realloc(void *old, size_t n) {
  sig_check("realloc", 1, PC());
  if (old) on_free(old, PC());
  void *p = __libc_realloc(old, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT void free(void *p) {
  if (p) sig_check("free", 0, PC());
  on_free(p, PC());
  __libc_free(p);
}
DC_EXPORT void cfree(void *p) { free(p); }
DC_EXPORT void *memalign(size_t a, size_t n) {
  sig_check("memalign", 1, PC());
  void *p = __libc_memalign(a, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT void *aligned_alloc(size_t a, size_t n) {
  sig_check("aligned_alloc", 1, PC());
  void *p = __libc_memalign(a, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT int posix_memalign(void **out, size_t a, size_t n) {
  sig_check("posix_memalign", 1, PC());
  if (a < sizeof(void *) || (a & (a - 1))) return EINVAL;
  void *p = __libc_memalign(a, n);
  if (!p) return ENOMEM;
  on_alloc(p, n, PC());
  *out = p;
  return 0;
}
DC_EXPORT void *valloc(size_t n) {
  sig_check("valloc", 1, PC());
  void *p = __libc_memalign(4096, n);
  on_alloc(p, n, PC());
  return p;
}
DC_EXPORT void *pvalloc(size_t n) {
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
  DC_EXPORT ret name params {                                                     \
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

__attribute__((constructor)) static void heap_locks(void) {
  dc_atfork_register(DC_RANK_HEAP, &stripes[0].lock, NSTRIPES, sizeof(stripe));
  dc_atfork_register(DC_RANK_FREED, &freed_lock, 1, 0);
}
