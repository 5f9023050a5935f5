/* racedet.h: the race detector's interface.  The instrumentation ABI
 * (tsan_abi.c) and the interceptors (intercept_*.c) call these.
 *
 * Happens-before with vector clocks and epochs (FastTrack): a thread's clock
 * advances at each release; an access is recorded as (thread, epoch) in its
 * shadow cell; a previous access races with the current one when they touch
 * the same bytes from different threads, at least one writes, not both are
 * atomic, and the previous epoch is not covered by the current thread's clock.
 */
#ifndef DACCE_RACEDET_H
#define DACCE_RACEDET_H
#include <stdint.h>

#include "../encoder/internal.h"
#include "../shadow/shadow.h"
#include "report_words.h"

enum { RD_LOAD = 0, RD_STORE = 1, RD_RMW = 2 };

/* ------------------------------------------------------------ accesses (access.c) */
void rd_access(uintptr_t addr, unsigned size, int is_write, uintptr_t pc);
/* The same for an access within granule g by thread t, which no cell of g
 * covers (rd_access_fast looked): the full check.  cur: the access as the
 * fast path built it (the thread's slot and epoch, bytes, write), so that
 * the slow path need not build it again; b_used: plane B's bit as the fast
 * path read it. */
void rd_access_granule(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur, int b_used,
                       uintptr_t pc);
/* The instrumentation's entry: inline, and done when this thread already
 * recorded, in this epoch, these bytes or more with a kind that covers this
 * access in plane A (sh_covers_now: the common case in loops, also after a
 * memcpy).  One TLS load, one region-table load, the thread's slot and
 * epoch, one or two cell loads and four instructions a cell, no call and no
 * register saved.  Everything else is a tail call: `more` (plane B, cells of
 * earlier epochs since the last release, then the full check:
 * rd_access_more) for an access in one granule, rd_access_pair for a
 * 16-byte vector on a granule boundary, and `any` (rd_access, or
 * rd_access_unaligned for an unaligned access across a boundary) for the
 * rest and memory the runtime does not know yet.  A thread without a state
 * (dc_unborn_thread) takes the same paths, which ignore its accesses.
 * (With plane B inline as well, gcc saved two registers on every access.) */
typedef void rd_more_fn(dc_thread *t, sh_granule *g, uintptr_t addr, uint64_t cur, uintptr_t pc);
/* a 16-byte access on a granule boundary that plane A does not cover (access.c) */
void rd_access_pair(dc_thread *t, sh_granule *g, uintptr_t addr, int is_write, uintptr_t pc);
static inline __attribute__((always_inline)) void rd_access_fast_to(
    uintptr_t addr, unsigned size, int is_write, uintptr_t pc, rd_more_fn *more,
    void (*any)(uintptr_t, unsigned, int, uintptr_t)) {
  dc_thread *t = dc_tls; /* (dc_unborn_thread too: its accesses are ignored) */
  /* in one granule ((addr & 7) + size <= 8) and below SH_ADDR_BITS, as one
   * compare: with any higher bit set, the masked address is larger than 8
   * (size is a constant) */
  const uint64_t off = addr & ((~0ull << SH_ADDR_BITS) | 7);
  if (size == 16) {
    /* A vector load or store (SSE), on a granule boundary: two whole
     * granules, recorded in this epoch when each has a plane-A cell that
     * covers it, as above.  Out of line (rd_access) it cost 109
     * instructions where it was recorded: argon2's fill_block keeps its
     * 1 KiB working block in 16-byte variables, and took 4x clang TSan's
     * time. */
    if (dc_likely(off == 0) &&
        dc_likely(!((addr ^ (addr + 8)) >> SH_REGION_BITS))) {
      sh_granule *region =
          atomic_load_explicit(&sh_regions[addr >> SH_REGION_BITS], memory_order_relaxed);
      if (dc_likely(region != 0)) {
        sh_granule *g = sh_in_region(region, addr);
        const uint64_t kind = 0xffu | (is_write ? SH_WRITE : 0);
        const uint64_t cur = t->rd.self | kind, differ = sh_differ(kind);
        if (sh_covered_now_a(&g[0], cur, differ) && sh_covered_now_a(&g[1], cur, differ))
          return;
        rd_access_pair(t, g, addr, is_write, pc);
        return;
      }
    }
    any(addr, size, is_write, pc);
    return;
  }
  if (size <= 8 && dc_likely(off <= 8 - size)) {
    sh_granule *region =
        atomic_load_explicit(&sh_regions[addr >> SH_REGION_BITS], memory_order_relaxed);
    if (dc_likely(region != 0)) {
      sh_granule *g = sh_in_region(region, addr);
      const uint64_t kind =
          (size == 8 ? 0xffu : sh_bytes((unsigned)off, size)) | (is_write ? SH_WRITE : 0);
      const uint64_t cur = t->rd.self | kind, differ = sh_differ(kind);
      if (sh_covered_now_a(g, cur, differ)) return;
      more(t, g, addr, cur, pc);
      return;
    }
  }
  any(addr, size, is_write, pc);
}
/* The rest of the inline check: is the access recorded in plane B (where
 * its bit is set: two threads that each read a granule through two loads
 * fill all four cells, and a check that read plane A only sent the one
 * whose cells are in plane B to the full check on every access: interp 6.5
 * -> 10 s), or, where the thread's epoch moved since its last release, in a
 * cell of an earlier epoch (sh_covers)?  Else the full check
 * (rd_access_granule). */
rd_more_fn rd_access_more;
static inline __attribute__((always_inline)) void rd_access_fast(uintptr_t addr, unsigned size,
                                                                 int is_write, uintptr_t pc) {
  rd_access_fast_to(addr, size, is_write, pc, rd_access_more, rd_access);
}
/* The same for the instrumentation's unaligned accesses
 * (__tsan_unaligned_*): one across a granule boundary within a region goes
 * to its pieces, each as the inline check takes an access within a granule
 * (access.c). */
void rd_access_unaligned(uintptr_t addr, unsigned size, int is_write, uintptr_t pc);
static inline __attribute__((always_inline)) void rd_access_fast_unaligned(uintptr_t addr,
                                                                           unsigned size,
                                                                           int is_write,
                                                                           uintptr_t pc) {
  rd_access_fast_to(addr, size, is_write, pc, rd_access_more, rd_access_unaligned);
}
/* The same for a C++ object's vptr (__tsan_vptr_read/update): a race
 * found there is a "data race on vptr" (a constructor or destructor
 * against a virtual call), as ThreadSanitizer names it. */
rd_more_fn rd_vptr_more;
void rd_vptr_access(uintptr_t addr, unsigned size, int is_write, uintptr_t pc);
void rd_range(uintptr_t addr, uintptr_t size, int is_write, uintptr_t pc);
/* A synchronisation object's own memory, as ThreadSanitizer models it:
 * creating or destroying a mutex, rwlock, spinlock, condition variable or
 * barrier writes its first byte, using it reads that byte (atomically for
 * locks and unlocks, so that uses never race with each other), before the
 * use synchronises.  An initialisation or destruction that another thread's
 * use does not happen before, or after, is then a race on that memory. */
enum { RD_OBJ_READ, RD_OBJ_READ_ATOMIC, RD_OBJ_WRITE };
void rd_object_access(uintptr_t obj, int kind, uintptr_t pc);
/* An atomic store or read-modify-write: pre (locks the location's sync
 * object, made if need be), the real operation, post (clocks by memory
 * order, unlock, shadow).  kind/mo at post are the ones that happened (a
 * failed CAS is a load with the failure order).  Loads have a pre of their
 * own (rd_atomic_load_pre). */
struct rd_sync;
struct rd_sync *rd_atomic_pre(uintptr_t addr);
/* An atomic load's pre: its object locked; or no lock, when the thread has
 * joined the object's clock as it is (RD_SYNC_JOINED) or when there is no
 * object (a value with 2 in its low bits: what rd_sync_none_since needs).
 * Post then returns 0 when the object changed, or one was made, meanwhile:
 * the load is to be done again, with pre's locked path (locked != 0). */
struct rd_sync *rd_atomic_load_pre(uintptr_t addr, int mo, int locked);
#define RD_SYNC_JOINED ((struct rd_sync *)1)
int rd_atomic_post(struct rd_sync *s, uintptr_t addr, unsigned size, int kind, int mo,
                   uintptr_t pc);
void rd_fence(int mo);
/* Mark freed memory: any later access (any thread, synchronised or not) is
 * a use after free; the free itself races with unsynchronised accesses. */
void rd_free_range(uintptr_t addr, uintptr_t size, uintptr_t pc);
#define RD_FREE_MARK_MAX (128u << 10) /* glibc's default mmap threshold */
#define RD_FREE_MARK 1024u /* bytes of a block marked freed (the rest is only checked) */

/* ------------------------------------------------------------ floor (floor.c) */
/* rd_floor[s]: every thread alive or not yet started has seen slot s's
 * epochs up to this; a cell at or below it (and not a freed mark) can never
 * race again, and the slow path may use it as an empty cell. */
extern _Atomic uint32_t rd_floor[SH_MAX_TID + 1];
/* rd_slot_gen[s]: slot s's generation (rd_thread.c: a slot whose epochs
 * were used up is swept out of the shadow and serves again, one generation
 * on).  Clocks and the floor hold extended epochs, the generation above the
 * cell's 20 bits, so that a clock that saw an earlier generation of a slot
 * is below every epoch of its present one; a cell's extended epoch is its
 * slot's present generation with its epoch (no cell of an earlier one is
 * left in the shadow). */
extern _Atomic uint32_t rd_slot_gen[SH_MAX_TID + 1];
static inline uint32_t rd_ext_of(uint32_t tid, uint32_t epoch) {
  return atomic_load_explicit(&rd_slot_gen[tid], memory_order_relaxed) << SH_EPOCH_BITS | epoch;
}
static inline uint32_t rd_ext(uint64_t p) { return rd_ext_of(SH_TID(p), SH_EPOCH(p)); }
static inline int rd_dead(uint64_t p) {
  return p && !(p & SH_FREED) &&
         rd_ext(p) <= atomic_load_explicit(&rd_floor[SH_TID(p)], memory_order_relaxed);
}
void rd_floor_update(void); /* now and then: after releases, when cells run short */
#define RD_FLOOR_EVERY 1024 /* releases, or cells found short, between updates */
/* One more release, or cells found short: the floor is computed again
 * every RD_FLOOR_EVERY of them. */
static inline void rd_floor_count(rd_thread *r) {
  if (dc_unlikely(++r->floor_due >= RD_FLOOR_EVERY)) {
    r->floor_due = 0;
    rd_floor_update();
  }
}
/* the registry of clocks that bound the floor */
void rd_floor_created(rd_vc *start, const rd_vc *creator); /* start = a copy of creator */
void rd_floor_started(rd_vc *mine, rd_vc *start);         /* joins start (or 0), frees it */
/* a registered clock goes, and is freed: its thread ended, or it is the
 * start clock of a thread that pthread_create failed to make */
void rd_floor_forget(rd_vc *v);
void rd_floor_fork_child(const rd_vc *mine);
/* mine's thread is blocked in a join of thread serial (a pthread_join that
 * cannot fail), or no longer (UINT32_MAX); 1 if that counts now */
int rd_floor_joining(const rd_vc *mine, uint32_t serial);

/* ------------------------------------------------------------ clocks (clock.c) */
void rd_vc_reserve_all(rd_vc *v); /* room for every slot: the clock never moves again */
void rd_vc_ensure(rd_vc *v, uint32_t n);
void rd_vc_join(rd_vc *dst, const rd_vc *src);
void rd_vc_copy(rd_vc *dst, const rd_vc *src);
void rd_vc_free(rd_vc *v);
static inline uint32_t rd_vc_get(const rd_vc *v, uint32_t tid) { return tid < v->n ? v->c[tid] : 0; }

/* ------------------------------------------------------------ threads (rd_thread.c) */
/* the thread state whose detector state r is */
static inline dc_thread *rd_owner(rd_thread *r) {
  return (dc_thread *)(void *)((char *)r - offsetof(dc_thread, rd));
}
/* The interned handle of the calling thread's current context. */
uint32_t rd_ctx_handle(dc_thread *t);
rd_thread *rd_cur(void);         /* detector state of the calling thread */
void rd_thread_start(dc_thread *t); /* called when a thread's state is made */
/* after its end was released (thread_end.c) */
void rd_thread_finish(dc_thread *t);
/* The thread (serial) whose access a cell names by slot and extended epoch
 * (rd_ext; UINT32_MAX: unknown). */
uint32_t rd_slot_serial(uint32_t tid, uint32_t ext);
/* Slots reclaimed so far (generations begun), sweeps of the shadow, the
 * cells they cleared, and slots taken over from threads that ended unseen. */
void rd_slot_stats(uint64_t *reclaimed, uint64_t *sweeps, uint64_t *cells, uint64_t *taken);
/* Releases taken back (sync.c) by the threads that ended and this one. */
uint64_t rd_taken_back(void);
/* advance own epoch (after a release); a thread whose slot has no epochs
 * left moves to another slot */
void rd_tick(rd_thread *r);
/* The epoch the thread's accesses are stamped with (r->self): not its
 * epoch, but the first of the epochs that are interchangeable with it, the
 * later of its floor and its incarnation's first (sh_covers: no clock holds
 * one of the epochs since the floor without the others; and a cell's site
 * is read in the table of the incarnation its epoch falls in, rd_thread.c).
 * So a release taken back (sync.c) makes the cells stored before it this
 * epoch's again, for the inline check too.  Since a thread's floor and
 * incarnation only change together with its epoch or at a take-back, this
 * is set there. */
static inline void rd_restamp(rd_thread *r) {
  r->self = (r->floorw > r->incw ? r->floorw : r->incw) | (uint64_t)r->tid << SH_TID_SHIFT;
}
/* The held set changed by one lock or unlock of m (held[] already updated;
 * n_before: nheld before): its id from the thread's cache of such changes,
 * or interned at the next access. */
void rd_lockset_step(rd_thread *r, uintptr_t m, int unlock, uint32_t n_before);
/* The interned id of the thread's held set as it is now (0: none held). */
uint32_t rd_lockset_now(rd_thread *r);
/* Sites (site.c): a cell's access context and pc, as an entry of the table
 * of the incarnation its slot and epoch name (cidx: its context and the
 * page of k) and the pc's index in its function (k), and whether the cell
 * merged several pcs: site = cidx << RD_SITE_K_BITS | merged << RD_SITE_KP_BITS
 * | k % 32.  Page 0 (k < 32) is the entry of the context itself. */
#define RD_SITE_K_BITS 6
#define RD_SITE_KP_BITS 5
#define RD_SITE_MERGED (1u << RD_SITE_KP_BITS)
uint32_t rd_pc_k_slow(rd_pck *e, uint32_t node, uintptr_t pc);
uint32_t rd_site_slow(rd_thread *r, uint32_t ctx, uint32_t k);
/* The thread's cache entry for pc's index in its function. */
static inline rd_pck *rd_pck_of(rd_thread *r, uintptr_t pc) {
  return &r->pck[(pc * 0x9E3779B97F4A7C15ull) >> (64 - RD_PCK_BITS)];
}
#define RD_SITE_NONE UINT32_MAX
/* The thread's cache of (context, page of k, held set) entries, for pages
 * past 0 (site.c): the site of k in context ctx under the held set now if
 * the cache has its entry, else RD_SITE_NONE; *slot: the cache's slot
 * (context, page, held set, cidx), which a miss fills. */
static inline uint32_t rd_page_site(rd_thread *r, uint32_t ctx, uint32_t k, uint32_t **slot) {
  const uint32_t page = k >> RD_SITE_KP_BITS;
  const uint32_t *p = *slot =
      r->pages[(ctx * 0x9E3779B9u ^ page * 0x85EBCA77u ^ r->lockset * 0xC2B2AE35u) >> 26];
  return p[0] == ctx && p[1] == page && p[2] == r->lockset && p[3]
             ? p[3] << RD_SITE_K_BITS | (k & (RD_SITE_MERGED - 1))
             : RD_SITE_NONE;
}
/* The site of an access of the calling thread at pc, now.  The context's
 * entry is looked up once per function invocation; the pc's index in a
 * small cache. */
static inline uint32_t rd_site_of(dc_thread *t, uintptr_t pc) {
  rd_thread *r = &t->rd;
  const uint32_t ctx = t->ctx_handle ? t->ctx_handle : rd_ctx_handle(t);
  const uint32_t node = t->node; /* after rd_ctx_handle: the capture modes set it */
  rd_pck *e = rd_pck_of(r, pc);
  const uint32_t k = dc_likely(e->npc == ~pc && e->node == node) ? e->k : rd_pc_k_slow(e, node, pc);
  if (dc_likely(ctx == r->site_ctx && k < RD_SITE_MERGED))
    return r->site_c0 << RD_SITE_K_BITS | k;
  return rd_site_slow(r, ctx, k);
}
/* The same when every cache has it, without a call (the caller's other
 * calls can then be tail calls); else RD_SITE_NONE.  (rd_site_of does not
 * call this and then fill the caches: that cost the slow path one to two
 * instructions an access, bench/micro/slowpath modes 1-2.) */
static inline uint32_t rd_site_cached(dc_thread *t, uintptr_t pc) {
  rd_thread *r = &t->rd;
  const rd_pck *e = rd_pck_of(r, pc);
  const uint32_t ctx = t->ctx_handle;
  if (dc_unlikely(!ctx || e->npc != ~pc || e->node != t->node)) return RD_SITE_NONE;
  const uint32_t k = e->k;
  if (dc_likely(k < RD_SITE_MERGED))
    return ctx == r->site_ctx ? r->site_c0 << RD_SITE_K_BITS | k : RD_SITE_NONE;
  uint32_t *slot;
  return rd_page_site(r, ctx, k, &slot);
}
int rd_site_same_ctx_slow(const rd_thread *r, uint32_t ca, uint32_t cb);
/* site marked merged */
static inline uint32_t rd_site_merged(uint32_t site) { return site | RD_SITE_MERGED; }
/* Do sites a and b (both r's) name one context?  Nearly always the same
 * entry (merged or not): no table read then. */
static inline int rd_site_same_ctx(const rd_thread *r, uint32_t a, uint32_t b) {
  const uint32_t ca = a >> RD_SITE_K_BITS, cb = b >> RD_SITE_K_BITS;
  return ca == cb || rd_site_same_ctx_slow(r, ca, cb);
}
/* The site of a cell that joins cell p (site had) and the access cur (site
 * site) of this thread, epoch and kind, from another context, on bytes
 * next to or over p's, neither holding all the other's: a split site, which
 * names had for the bytes on p's side of a boundary and site for cur's
 * (access.c, merged). */
uint32_t rd_site_split(rd_thread *r, uint64_t p, uint64_t cur, uint32_t site);
void rd_sites_renew(rd_thread *r); /* the thread's table is nearly full (sites_full) */
/* A cell's context handle, held set (unless held is 0) and pc (0 when
 * unknown: returns 0), and whether the cell merged accesses by several
 * pcs, the first of which is pc.  Of a split cell (rd_site_split), the
 * access to the first of the bytes *bytes (the cell's first byte when bytes
 * is 0 or names none of the cell's); *bytes becomes the cell's bytes that
 * this access had. */
int rd_cell_site(uint64_t cell, unsigned *bytes, uint32_t *ctx, uint32_t *held, uintptr_t *pc,
                 int *merged);
/* site.c's side of incarnations (rd_thread.c) */
rd_sites *rd_sites_new(void);
void rd_sites_begin(rd_thread *r, rd_sites *s);
void rd_sites_end(rd_thread *r);
/* byte: the byte of the granule whose access a split site is asked for;
 * *bytes (a cell's) loses those that the access did not have. */
int rd_site_decode(const rd_sites *s, uint32_t site, unsigned byte, unsigned *bytes,
                   uint32_t *ctx, uint32_t *held, uintptr_t *pc, int *merged);
void rd_sites_init(void);
/* Context handles: the interned snapshots the shadow refers to. */
typedef struct rd_ctxrec {
  uint64_t id;
  uint32_t node, cc;
  uint32_t aux; /* rd_ctxaux: what a thread's contexts mostly share */
  /* not part of the key: the last entry in a table of sites (site.c) made
   * for it, by any thread (threads that run the same code share its
   * contexts: the thread of an access is its cell's), which holds in the
   * reader's current incarnation if that table's entry cidx names it
   * (rd_site_names): a hint.  Checked so instead of kept with the
   * incarnation's number, and with the rest in aux, a record is 24 bytes,
   * not 40. */
  uint32_t cidx;
} rd_ctxrec;
_Static_assert(sizeof(rd_ctxrec) == 24, "a context record is 24 bytes");
/* The rest of a context, interned apart: a program has a few (one per
 * dictionary, and per set of interrupted pcs in signal handlers).  The held
 * mutexes are not part of a context but of a site (site.c). */
typedef struct rd_ctxaux {
  uint32_t ts;  /* the dictionary's timestamp */
  uint32_t sig; /* interned rd_sigpcs of the handlers running (0 = none) */
} rd_ctxaux;
const rd_ctxaux *rd_ctx_aux(const rd_ctxrec *c);
/* Where the signals of the handlers running at a context arrived: n
 * handlers, outermost first; pc[i] the pc that the (i+1)-th one's signal
 * interrupted (0: not known), for the first DC_SIG_NEST. */
typedef struct rd_sigpcs {
  uint64_t n;
  uintptr_t pc[DC_SIG_NEST];
} rd_sigpcs;
const rd_sigpcs *rd_sigpcs_get(uint32_t id);
/* The context's entry in its thread's table of sites (site.c). */
void rd_ctx_set_cidx(uint32_t handle, uint32_t cidx);
/* Is entry cidx of the thread's current table of sites context ctx's (of
 * page 0, not merged), under the thread's held set now? */
int rd_site_names(const rd_thread *r, uint32_t cidx, uint32_t ctx);
const rd_ctxrec *rd_ctx_get(uint32_t handle);
/* Mutex sets: what a thread held at an access (low bit: read-locked). */
typedef struct rd_lockset {
  uint32_t n;
  uintptr_t a[16];
} rd_lockset;
/* The set with that id (rd_lockset_now) into *out; 0 when there is none. */
int rd_lockset_read(uint32_t id, rd_lockset *out);

/* ------------------------------------------------------------ sync objects (sync.c) */
typedef struct rd_sync {
  uintptr_t addr;
  rd_vc vc;  /* released by writers / unlockers / posters */
  rd_vc rvc; /* released by read-unlockers (rwlock) */
  struct rd_sync *next; /* on its granule's chain, or the free list (sync.c) */
  uint32_t idx;         /* its index in the pool, for the meta map's words */
  _Atomic int lock;
  /* version: odd while a holder of the lock may change the clocks (or
   * store to the location), one more when it unlocks (rd_sync_get,
   * rd_sync_unlock); what an atomic load reads without the lock (access.c,
   * rd_atomic_load_pre) */
  _Atomic uint32_t seq;
  /* A lock's creation site (init, else the first lock), for reports: its
   * context handle and pc, the pc stored last (0: not recorded); read
   * without the lock (rd_lock_creation). */
  uint32_t created_ctx;
  uint64_t uid; /* this object, never reused: the graph's name for it */
  uintptr_t created_pc;
  /* The last release into vc, for the releaser to take back when it takes
   * the lock again and nothing read or wrote vc in between (sync.c,
   * take_back): its thread (serial), and its count of releases (pubs)
   * and floorw from before it; rel_live: nothing has since.  read_aside:
   * another thread has read vc other than by taking the lock (an acquire
   * by annotation, an atomic operation on the address): none is taken back
   * again. */
  uint64_t rel_pubs, rel_floorw;
  uint32_t rel_serial;
  uint8_t rel_live, read_aside;
  uint8_t creation_known; /* a lock: its creation site is being or was recorded */
  uint8_t in_graph;       /* a node of the lock-order graph (deadlock.c) */
  uint8_t linked;         /* on its granule's chain; cleared under lock (sync.c, found) */
  _Atomic uint32_t gen;   /* the fork generation it was last locked in (sync.c, obj_adopt) */
} rd_sync;
_Static_assert(sizeof(rd_sync) == 112, "rd_sync: 112 bytes (one per lock, atomic location)");
/* returned locked, or 0 when there is none; with create, made if need be
 * and marked as changing (seq odd until unlocked) */
rd_sync *rd_sync_get(uintptr_t addr, int create);
void rd_sync_unlock(rd_sync *s);
void rd_sync_fork_child(void); /* a fork's child, before anything else: a generation of its own */
/* (locked) its clock was read or written other than by a lock's release
 * and acquire: no release into it is taken back from now on (sync.c) */
void rd_sync_touched(rd_sync *s);
/* An atomic load's lookup: the object, locked, or 0 and what
 * rd_sync_none_since (after the load) needs to tell whether one was made
 * meanwhile. */
rd_sync *rd_sync_find(uintptr_t addr, uint64_t *none);
int rd_sync_none_since(uintptr_t addr, uint64_t none);
void rd_sync_forget(uintptr_t addr, uintptr_t size);
void rd_sync_thread_end(rd_thread *r); /* its cache of objects back to the pool */
/* A lock (mutex, rwlock, spinlock, annotated mutex) was taken: the thread
 * acquires what its holders released (a reader: only the writers' clock;
 * with_readers: the read-unlockers' too), and it joins the thread's held
 * set (as_reader: read-locked).  The first time the lock is seen, this is
 * its creation site for reports, unless rd_lock_created named one. */
void rd_lock_acquired(uintptr_t m, int as_reader, int with_readers, uintptr_t pc);
/* A lock is initialised at pc (its old history goes): its creation site. */
void rd_lock_created(uintptr_t m, uintptr_t pc);
/* Where lock m was created (0: unknown): context handle and pc. */
int rd_lock_creation(uintptr_t m, uint32_t *ctx, uintptr_t *pc);
void rd_acquire(uintptr_t addr);      /* thread clock joins the object's */
void rd_release(uintptr_t addr);      /* object's clock joins the thread's; tick */
void rd_release_read(uintptr_t addr);          /* rwlock read unlock */
static inline void rd_sync_acquire(uintptr_t addr) { rd_acquire(addr); }
static inline void rd_sync_release(uintptr_t addr) { rd_release(addr); }
/* bookkeeping for reports: addr (low bit: read-locked) joins the held set;
 * uid: its object (0: unknown), taken in context ctx at pc (deadlock.c) */
void rd_mutex_locked(uintptr_t addr, uint64_t uid, uint32_t ctx, uintptr_t pc);
void rd_mutex_unlocked(uintptr_t addr);

/* ------------------------------------------------------------ lock order (deadlock.c) */
/* How a lock call behaves when its thread holds the lock already. */
enum {
  RD_RELOCK_OK,           /* it returns: a recursive mutex, an error, a read lock */
  RD_RELOCK_HANGS,        /* it never returns: a normal mutex, a spinlock */
  RD_RELOCK_HANGS_IF_READ /* never over the thread's read hold: an rwlock's write lock */
};
/* The calling thread is about to block for lock m (type: RD_LOCK_*;
 * as_reader: a read lock) at pc: a lock it holds already is checked for a
 * double lock (relock: RD_RELOCK_*); else an edge from each lock it holds
 * to m, and a report when one closes a cycle of lock orders that can
 * deadlock.  Not for try-locks (they do not wait) nor timed ones (they
 * give up). */
void rd_lock_wanted(uintptr_t m, int type, int as_reader, int relock, uintptr_t pc);
/* Lock object uid is gone (freed, destroyed, initialised again). */
void rd_dl_forget(uint64_t uid);
/* One edge of a cycle: thread (serial) wanted lock `to` in context ctx at
 * pc while holding lock `from`, which it had taken in from_ctx at from_pc. */
#define RD_DL_MAX 6 /* the longest cycle looked for, in edges (and threads) */
typedef struct rd_dl_edge {
  uintptr_t from, to;
  int from_read, to_read;
  uint32_t thread, ctx, from_ctx;
  uintptr_t pc, from_pc;
} rd_dl_edge;
DC_COLD void rd_report_deadlock(const rd_dl_edge *e, int n);

/* ------------------------------------------------------------ mutex misuse (misuse.c) */
/* The index of the thread's innermost hold of lock m (either mode) among
 * the held entries it keeps (the first 16), or -1. */
static inline int rd_held_find(const rd_thread *r, uintptr_t m) {
  for (uint32_t i = r->nheld < 16 ? r->nheld : 16; i-- > 0;)
    if ((r->held[i] | 1) == (m | 1)) return (int)i;
  return -1;
}
/* The same, -2 when the set overflowed (whether it holds m is unknown). */
static inline int rd_held_index(const rd_thread *r, uintptr_t m) {
  return r->nheld > 16 ? -2 : rd_held_find(r, m);
}
/* What a lock is, for asking it who holds it: a pthread mutex or C11
 * mtx_t, a spinlock, an rwlock, or something else (annotated). */
enum { RD_LOCK_OTHER, RD_LOCK_MUTEX, RD_LOCK_SPIN, RD_LOCK_RWLOCK };
/* m (of type RD_LOCK_*) is about to be locked at pc: 1 when the thread
 * holds it already (a double lock is reported if relock says the call
 * never returns). */
int rd_relock_check(uintptr_t m, int type, int relock, uintptr_t pc);
void rd_unlock_check(uintptr_t m, int type, uintptr_t pc);  /* about to unlock m */
void rd_destroy_check(uintptr_t m, int type, uintptr_t pc); /* about to destroy lock m */
enum { RD_MISUSE_UNLOCK, RD_MISUSE_DOUBLE_LOCK, RD_MISUSE_DESTROY };
typedef struct rd_misuse_desc {
  int what; /* RD_MISUSE_* */
  uintptr_t mutex, pc;
  uint32_t thread, ctx;
  int has_held, held_read; /* where the thread took the lock (double lock, destroy) */
  uint32_t holder;         /* an unlock's: the thread holding the lock + 1 (0: none known) */
  uint32_t held_ctx;
  uintptr_t held_pc;
} rd_misuse_desc;
DC_COLD void rd_report_misuse(const rd_misuse_desc *d);

/* ------------------------------------------------------------ signal handlers (intercept_signal.c) */
/* A handler called fn (of the malloc family) at pc, or returned with errno
 * changed (pc: where the signal arrived, 0 when unknown). */
enum { RD_SIG_UNSAFE, RD_SIG_ERRNO };
typedef struct rd_signal_desc {
  int what, sig; /* RD_SIG_*, the signal whose handler was running */
  const char *fn; /* unsafe: the function called */
  int errno_before, errno_after;
  uint32_t thread, ctx;
  uintptr_t pc, handler; /* errno: the handler's address */
} rd_signal_desc;
DC_COLD void rd_report_signal(const rd_signal_desc *d);
/* Calls handler fn (sa_sigaction when siginfo); the return address of a
 * handler's frame is in this function (report.c: stacks through handlers). */
void dacce_deliver_signal(void *fn, int siginfo, int sig, siginfo_t *info, void *uc);
/* fn called at pc while t->sig_depth says a handler runs */
DC_COLD void rd_signal_unsafe_call(dc_thread *t, const char *fn, uintptr_t pc);

/* ------------------------------------------------------------ reports (report.c) */
typedef struct rd_access_desc {
  unsigned tid;
  int is_write, is_atomic, freed;
  unsigned size;
  uintptr_t addr, pc;
  uint32_t ctx; /* context handle (0 = unknown) */
  uint32_t held; /* the held set, interned (rd_lockset_now; 0 = none) */
  int pc_merged; /* pc is the first of several merged accesses (site.c) */
  int is_vptr;   /* the current access is to a vptr (rd_vptr_access) */
} rd_access_desc;
DC_COLD void rd_report_race(const rd_access_desc *cur, const rd_access_desc *prev);
void rd_report_init(void); /* identifies the launcher's channels (report.c) */
void rd_report_started(void); /* tells the launcher this process runs (report.c) */
int rd_reports_unseen(void); /* reports went to stderr: the launcher's channel was lost */
/* A thread that finished unjoined and undetached (thread_end.c), with the number
 * of other such threads created at the same place. */
DC_COLD void rd_report_leak(uint32_t serial, uint32_t similar);
/* what leaks are grouped by: the hash of the thread's creation stack, decoded */
uint64_t rd_creation_hash(uint32_t serial);
/* ------------------------------------------------------------ side tables (umap.c) */
typedef struct rd_umap_ent {
  uintptr_t key; /* nonzero */
  uint64_t a, b;
} rd_umap_ent;
typedef struct rd_umap {
  rd_umap_ent *e;
  uint32_t cap, used; /* used: entries and tombstones */
} rd_umap;
/* key's entry, or NULL; with insert, a new one (a = b = 0) when absent */
rd_umap_ent *rd_umap_find(rd_umap *m, uintptr_t key, int insert);
void rd_umap_del(rd_umap *m, rd_umap_ent *e);
int rd_umap_live(const rd_umap_ent *e); /* m->e[i] holds an entry */
void rd_umap_clear(rd_umap *m);
/* ------------------------------------------------------------ thread ends (thread_end.c) */
/* th (a pthread_t) is the thread of this serial: said by its creator after
 * pthread_create and by the thread when it starts */
void rd_thread_named(uintptr_t th, uint32_t serial);
/* The serial of the thread th, or UINT32_MAX; asked before the real join or
 * detach, while th is still that thread's (glibc reuses it at once after) */
uint32_t rd_thread_serial_of(uintptr_t th);
void rd_thread_ended(uint32_t serial);   /* the calling thread ends */
void rd_thread_detached(uint32_t serial);
int rd_thread_is_detached(uint32_t serial);
void rd_thread_joined(uintptr_t th, uint32_t serial); /* a join of th succeeded */
void rd_thread_ends_forget_all(uint32_t self); /* a fork child */
void rd_report_leaks(void);     /* at exit */
/* A C++ handler began with the exception whose unwind header is ue
 * (__cxa_begin_catch's argument; obj: its result): its end
 * (__cxa_end_catch) synchronises on the thrown object (intercept_pthread.c). */
void rd_exception_caught(void *ue, void *obj);
/* at exit, a verdict __tsan_on_finalize changed: tells the launcher (1) */
int rd_report_verdict(int failed, int verdict);
uint64_t rd_reports_count(void);

/* Benign races declared with AnnotateBenignRace[Sized] (annotations.c). */
int rd_benign(uintptr_t addr, uintptr_t size);

/* ------------------------------------------------------------ heap (intercept_heap.c) */
typedef struct rd_block {
  uintptr_t addr;
  uint64_t size : 48;
  /* allocated by uninstrumented code (pc there): its call from the context's
   * innermost function, as an offset from that function's node pc, or 0
   * (intercept_heap.c, alloc_via) */
  int64_t via : 16;
  uint32_t tid, ctx;
  uintptr_t pc;
} rd_block;
_Static_assert(sizeof(rd_block) == 32, "a heap block's record: 32 bytes");
int rd_heap_find(uintptr_t addr, rd_block *out); /* block containing addr */
intptr_t rd_heap_freed_via(uintptr_t addr);       /* its newest free's rd_block.via */
void rd_heap_thread_end(rd_thread *r);             /* its free records go back */
/* The runtime's own small blocks (heap_small.c): a block of n bytes, or 0
 * (larger than RD_SMALL_MAX, no thread state, no room: glibc's then); whether
 * p is one (in [rd_small_base, + rd_small_size_all)); its usable size; its
 * free; a thread's free blocks back to the classes at its end. */
extern uintptr_t rd_small_base, rd_small_size_all;
void *rd_small_alloc(size_t n);
static inline int rd_small_owns(const void *p) {
  return (uintptr_t)p - rd_small_base < rd_small_size_all;
}
size_t rd_small_usable(const void *p);
void rd_small_free(void *p);
void rd_small_thread_end(rd_thread *r);
/* File descriptors as locations (intercept_fd.c): the descriptor whose word
 * addr is in, with its creation (ctx 0: unknown), or -1. */
#define RD_FD_MAX 65536
int rd_fd_of(uintptr_t addr, uint32_t *tid, uint32_t *ctx, uintptr_t *pc);
/* The type name of the object at addr, given by ThreadSanitizer's
 * external-race API (__tsan_external_assign_tag), or 0 (annotations.c). */
const char *rd_external_type(uintptr_t addr);

#endif
