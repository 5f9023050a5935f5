/* rd_thread.c: the detector's per-thread state, thread start/exit
 * synchronisation, and the interning of contexts for shadow cells.
 *
 * A shadow cell names the accessing context by a 32-bit handle (through its
 * site, site.c): the encoder's snapshot {id, node, cc} interned in a global
 * table with what a thread's contexts mostly share, the dictionary's
 * timestamp and the pcs that signals interrupted, interned apart
 * (rd_ctxaux).  The held mutexes are interned too (rd_lockset_now), but kept
 * in the site's entry, not in the context: a program with a mutex per
 * object holds a new set at nearly every access, and when the set was part
 * of the context, each made a record in this table and one in the aux
 * table, both global (two threads locking down a list hand over hand,
 * bench/micro/many_locks.sh coupling: 55% of the run in the three tables).
 * The encoder invalidates the thread's handle at every call and return; the
 * first access afterwards re-interns, normally through a small per-thread
 * cache, so a handle costs a few compares per function invocation that
 * touches memory, and nothing per access. */
#include <stddef.h>
#include <string.h>

#include "racedet.h"
#include "capture.h"

/* Hash-consed tables (contexts, their shared parts, held sets): records
 * found through an index by hash and eq without a lock, appended under
 * ctx_lock, where a miss is looked up again (the reader may have been in a
 * table that growth emptied). */
typedef struct hcons {
  dc_vec tab; /* records by number; 0 unused */
  dc_index ix;
  uint32_t max;
  const char *full; /* the error when max is reached */
} hcons;
static _Atomic int ctx_lock;

static void hcons_init(hcons *x, size_t elem, uint32_t max, uint32_t log2cap,
                       uint64_t (*rehash)(uint32_t), const char *full) {
  dc_vec_init(&x->tab, elem, max);
  atomic_store(&x->tab.n, 1);
  dc_index_init(&x->ix, log2cap, rehash);
  x->max = max;
  x->full = full;
}

/* Record key (size bytes) appended, under ctx_lock: its number. */
static inline uint32_t hcons_append(hcons *x, const void *key, size_t size) {
  const uint32_t i = atomic_load_explicit(&x->tab.n, memory_order_relaxed);
  if (i >= x->max) dc_die("%s", x->full);
  dc_memcpy(dc_vec_at(&x->tab, i), key, size);
  atomic_store_explicit(&x->tab.n, i + 1, memory_order_release);
  return i;
}

/* The number of the record equal to key (size bytes, hash h; eq compares a
 * record with it), appended if new.  Inlined, so that eq and the copy are
 * the caller's own (called through pointers, they cost mergesort's 196
 * thousand internings at size 2,000,000 14% more instructions). */
DC_INLINE uint32_t hcons_get(hcons *x, const void *key, size_t size, uint64_t h,
                             int (*eq)(const void *rec, const void *key)) {
  for (int locked = 0;; locked = 1) {
    const dc_itab *t = dc_index_tab(&x->ix);
    uint32_t pos = (uint32_t)(h >> 32), i;
    while ((i = dc_index_next(t, h, &pos)))
      if (eq(dc_vec_at(&x->tab, i), key)) {
        if (locked) dc_unlock(&ctx_lock);
        return i;
      }
    if (locked) break;
    dc_lock(&ctx_lock);
  }
  const uint32_t i = hcons_append(x, key, size);
  dc_index_insert(&x->ix, h, i);
  dc_unlock(&ctx_lock);
  return i;
}

static inline const void *hcons_at(const hcons *x, uint32_t i) {
  if (!i || i >= atomic_load_explicit(&x->tab.n, memory_order_acquire)) return 0;
  return dc_vec_at(&x->tab, i);
}

static hcons ctxs;  /* rd_ctxrec by handle */
static dc_vec cc_ctxs;  /* per ccStack node: its contexts' chain word (intern_ctx) */
static dc_vec ctx_next; /* per context record: the next older one in its node's chain */
static hcons auxes; /* rd_ctxaux */
static hcons sigs;  /* rd_sigpcs */
static hcons locks; /* rd_lockset by id; 0 = the empty set */
static hcons pairs; /* held sets of one or two mutexes, ids tagged LOCKS_SMALL */
static void slots_init(void);

/* the key of a context record: everything before cidx (no padding) */
#define CTX_KEY offsetof(rd_ctxrec, cidx)
_Static_assert(CTX_KEY == 20, "rd_ctxrec's key is its first 20 bytes");
static uint64_t ctx_hash(const rd_ctxrec *c) { return dc_hash(c, CTX_KEY); }
static uint64_t ctx_rehash(uint32_t i) { return ctx_hash(dc_vec_at(&ctxs.tab, i)); }
static int ctx_eq(const void *rec, const void *key) {
  const rd_ctxrec *a = rec, *b = key;
  return a->id == b->id && a->node == b->node && a->cc == b->cc && a->aux == b->aux;
}

static uint64_t aux_hash(const rd_ctxaux *a) { return dc_hash(a, sizeof *a); }
static uint64_t aux_rehash(uint32_t i) { return aux_hash(dc_vec_at(&auxes.tab, i)); }
static int aux_eq(const void *rec, const void *key) {
  const rd_ctxaux *a = rec, *b = key;
  return a->ts == b->ts && a->sig == b->sig;
}

static uint64_t sig_hash(const rd_sigpcs *a) { return dc_hash(a, sizeof *a); }
static uint64_t sig_rehash(uint32_t i) { return sig_hash(dc_vec_at(&sigs.tab, i)); }
static int sig_eq(const void *rec, const void *key) {
  const rd_sigpcs *a = rec, *b = key;
  int eq = a->n == b->n;
  for (uint64_t i = 0; eq && i < b->n && i < DC_SIG_NEST; i++) eq = a->pc[i] == b->pc[i];
  return eq;
}

/* A held set of one or two mutexes (a[1] 0 for one), kept in 16 bytes
 * instead of rd_lockset's 136: a program with a mutex per object (a lock
 * per node, per bucket, per page) makes a set per mutex, or per pair when
 * it locks hand over hand.  1 million mutexes, each locked by two threads,
 * made 136 MB of sets and 33,000 page faults for them. */
typedef struct lockpair {
  uintptr_t a[2];
} lockpair;
#define LOCKS_SMALL (1u << 24) /* an id's tag: a set in pairs */
static uint64_t pair_hash(const lockpair *p) { return dc_hash(p, sizeof *p); }
static uint64_t pair_rehash(uint32_t i) { return pair_hash(dc_vec_at(&pairs.tab, i)); }
static int pair_eq(const void *rec, const void *key) {
  const lockpair *a = rec, *b = key;
  return a->a[0] == b->a[0] && a->a[1] == b->a[1];
}

static uint64_t lockset_hash(const rd_lockset *k) {
  return dc_hash(k->a, k->n * sizeof k->a[0]) ^ k->n;
}
static uint64_t lockset_rehash(uint32_t i) { return lockset_hash(dc_vec_at(&locks.tab, i)); }
static int lockset_eq(const void *rec, const void *key) {
  const rd_lockset *c = rec, *k = key;
  int eq = c->n == k->n;
  for (uint32_t j = 0; eq && j < k->n; j++) eq = c->a[j] == k->a[j];
  return eq;
}

void rd_init(void) {
  hcons_init(&ctxs, sizeof(rd_ctxrec), DC_INDEX_MAX, 12, ctx_rehash,
             "dacce: too many distinct access contexts\n");
  dc_vec_init(&ctx_next, sizeof(uint32_t), DC_INDEX_MAX);
  dc_vec_init(&cc_ctxs, sizeof(uint32_t), DC_INDEX_MAX); /* ccStack nodes are index numbers */
  hcons_init(&auxes, sizeof(rd_ctxaux), DC_INDEX_MAX, 6, aux_rehash,
             "dacce: too many distinct (dictionary, signals) of contexts\n");
  hcons_init(&locks, sizeof(rd_lockset), LOCKS_SMALL, 8, lockset_rehash,
             "dacce: too many distinct sets of held mutexes\n");
  hcons_init(&pairs, sizeof(lockpair), LOCKS_SMALL, 8, pair_rehash,
             "dacce: too many distinct sets of held mutexes\n");
  hcons_init(&sigs, sizeof(rd_sigpcs), 1u << 24, 6, sig_rehash,
             "dacce: too many distinct pcs interrupted by signals\n");
  slots_init();
  rd_sites_init();
  if (dc_capture_mode != DC_CAPTURE_DACCE) rd_capture_init();
  rd_report_init();
  rd_report_started();
}

int rd_lockset_read(uint32_t id, rd_lockset *out) {
  out->n = 0;
  if (!id) return 1;
  if (id & LOCKS_SMALL) {
    const lockpair *p = hcons_at(&pairs, id & ~LOCKS_SMALL);
    if (!p) return 0;
    for (int i = 0; i < 2 && p->a[i]; i++) out->a[out->n++] = p->a[i];
    return 1;
  }
  const rd_lockset *k = hcons_at(&locks, id);
  if (k) *out = *k;
  return k != 0;
}

/* hash-consed like contexts (rare: at lock changes) */
static uint32_t intern_lockset(const rd_lockset *k) {
  if (!k->n) return 0;
  if (k->n <= 2) {
    const lockpair p = {{k->a[0], k->n == 2 ? k->a[1] : 0}};
    return LOCKS_SMALL | hcons_get(&pairs, &p, sizeof p, pair_hash(&p), pair_eq);
  }
  return hcons_get(&locks, k, sizeof *k, lockset_hash(k), lockset_eq);
}

/* Threads that share a context each write their own table's entry here:
 * a hint, which rd_site_names checks against the reader's table. */
void rd_ctx_set_cidx(uint32_t h, uint32_t cidx) {
  __atomic_store_n(&((rd_ctxrec *)dc_vec_at(&ctxs.tab, h))->cidx, cidx, __ATOMIC_RELAXED);
}

const rd_ctxrec *rd_ctx_get(uint32_t h) { return hcons_at(&ctxs, h); }

const rd_ctxaux *rd_ctx_aux(const rd_ctxrec *c) { return dc_vec_at(&auxes.tab, c->aux); }

const rd_sigpcs *rd_sigpcs_get(uint32_t id) { return hcons_at(&sigs, id); }

/* The interned pcs that the signals of t's running handlers interrupted;
 * 0 outside handlers, and once the table is full (a report then shows the
 * interrupted functions' entries, as before it kept them). */
static uint32_t sig_of(const dc_thread *t) {
  if (dc_likely(!t->sig_depth)) return 0;
  if (atomic_load_explicit(&sigs.tab.n, memory_order_relaxed) >= sigs.max - 1) return 0;
  rd_sigpcs k = {.n = t->sig_depth};
  for (uint64_t i = 0; i < k.n && i < DC_SIG_NEST; i++) k.pc[i] = t->sig_pc[i];
  return hcons_get(&sigs, &k, sizeof k, sig_hash(&k), sig_eq);
}

/* The shared part of the thread's context (c: its timestamp), as last
 * made, or interned. */
static uint32_t aux_of(dc_thread *t, const dacce_ctx *c) {
  rd_thread *r = &t->rd;
  const uint32_t sig = sig_of(t);
  if (dc_likely(r->aux && r->aux_ts == c->ts && r->aux_sig == sig)) return r->aux;
  const rd_ctxaux a = {c->ts, sig};
  r->aux_ts = c->ts;
  r->aux_sig = sig;
  return r->aux = hcons_get(&auxes, &a, sizeof a, aux_hash(&a), aux_eq);
}

/* A change of the held set is a function of (the set before, the mutex,
 * lock or unlock) while held[] does not overflow: a thread that takes and
 * drops the same mutexes over and over (a lock per call, per lookup) finds
 * the next set's id here instead of hashing and looking up its held[]
 * (intern_lockset) at every change. */
static inline rd_lstep *lstep_at(rd_thread *r, uint32_t from, uintptr_t m, int unlock) {
  uint64_t k = ((uint64_t)m ^ ((uint64_t)from << 40) ^ (uint64_t)unlock) * 0x9E3779B97F4A7C15ull;
  return &r->lsteps[k >> (64 - RD_LSTEP_BITS)];
}

void rd_lockset_step(rd_thread *r, uintptr_t m, int unlock, uint32_t n_before) {
  if (!r->nheld) { /* nothing held: the empty set, id 0, whatever came before */
    r->lockset = 0;
    r->lockset_dirty = 0;
    r->step_pending = 0;
    return;
  }
  if (r->lockset_dirty || n_before > 16 || r->nheld > 16) { /* unknown start, or overflow */
    r->lockset_dirty = 1;
    r->step_pending = 0;
    return;
  }
  const rd_lstep *e = lstep_at(r, r->lockset, m, unlock);
  if (e->mutex == m && e->from == r->lockset && (e->to_op & 1) == (uint32_t)unlock) {
    r->lockset = e->to_op >> 1;
    return;
  }
  r->lockset_dirty = 1; /* interned at the next access, which fills the entry */
  r->step = (rd_lstep){m, r->lockset, (uint32_t)unlock};
  r->step_pending = 1;
}

/* The thread's cache entry of a context (node_cc: DC_NODE_CC). */
static inline rd_ictx *ictx_of(rd_thread *r, uint64_t id, uint64_t node_cc, uint32_t locks) {
  return &r->ictx[((id ^ node_cc << 20 ^ (uint64_t)locks << 52) * 0x9E3779B97F4A7C15ull) >>
                  (64 - RD_ICTX_BITS)];
}
/* Does entry e hold that context (ts_locks: the dictionary's timestamp |
 * the held set's id << 32)? */
static inline int ictx_is(const rd_ictx *e, uint64_t id, uint64_t node_cc, uint64_t ts_locks) {
  return e->handle && e->id == id && e->node_cc == node_cc && e->ts_locks == ts_locks;
}

uint32_t rd_lockset_now(rd_thread *r) {
  if (r->lockset_dirty) {
    rd_lockset k = {.n = r->nheld < 16 ? r->nheld : 16};
    for (uint32_t i = 0; i < k.n; i++) k.a[i] = r->held[i];
    r->lockset = intern_lockset(&k);
    r->lockset_dirty = 0;
    if (r->step_pending) {
      rd_lstep *e = lstep_at(r, r->step.from, r->step.mutex, (int)r->step.to_op);
      *e = (rd_lstep){r->step.mutex, r->step.from, r->lockset << 1 | r->step.to_op};
      r->step_pending = 0;
    }
  }
  return r->lockset;
}

/* The contexts of a ccStack node (a recursion's, an indirect call's): the
 * first DC_CHAIN_MAX of each are chained from the node, only the rest are
 * in the global index.  A recursion makes a ccStack node per call and
 * contexts under each (mergesort: 393 thousand), each a lookup that missed
 * twice in the index, at its slot and at the record; the node's chain word
 * and its records were made one after the other and are found together.
 * Contexts of the empty ccStack, most programs' all, use the index. */
_Static_assert(DC_INDEX_MAX <= 1u << DC_CHAIN_BITS, "a chain word names any record");
static uint32_t ctx_chained(uint32_t w, const rd_ctxrec *k) {
  for (uint32_t i = dc_chain_head(w); i; i = *(const uint32_t *)dc_vec_at(&ctx_next, i))
    if (ctx_eq(dc_vec_at(&ctxs.tab, i), k)) return i;
  return 0;
}

/* Context c's record, under the thread's held set. */
static uint32_t intern_ctx(dc_thread *t, const dacce_ctx *c) {
  const rd_ctxrec k = {c->id, c->node, c->cc, aux_of(t, c), 0};
  if (!k.cc) return hcons_get(&ctxs, &k, sizeof k, ctx_hash(&k), ctx_eq);
  _Atomic uint32_t *head = dc_vec_at(&cc_ctxs, k.cc);
  uint32_t w = atomic_load_explicit(head, memory_order_acquire), i = ctx_chained(w, &k);
  if (i) return i;
  if (!dc_chain_full(w)) {
    dc_lock(&ctx_lock);
    w = atomic_load_explicit(head, memory_order_relaxed);
    if (!(i = ctx_chained(w, &k)) && !dc_chain_full(w)) {
      /* a new record, in the chain (written whole before the word names it) */
      i = hcons_append(&ctxs, &k, sizeof k);
      *(uint32_t *)dc_vec_at(&ctx_next, i) = dc_chain_head(w);
      atomic_store_explicit(head, dc_chain_add(w, i), memory_order_release);
    }
    dc_unlock(&ctx_lock);
    if (i) return i;
  }
  /* a full chain (maybe filled meanwhile) grows no more: the rest are in
   * the index only */
  return hcons_get(&ctxs, &k, sizeof k, ctx_hash(&k), ctx_eq);
}

/* The held set, then the per-thread cache, then the global table. */
static uint32_t handle_of(dc_thread *t, dacce_ctx c) {
  rd_thread *r = &t->rd;
  rd_lockset_now(r);
  /* A signal handler's contexts carry the pcs its signal interrupted, which
   * the per-thread cache of contexts is not keyed by: while a handler runs
   * (sig_depth), this and rd_ctx_handle leave the cache alone.  A handler's
   * entry emptied it before, and a handler that came while the code it
   * interrupted was between its lookup here and its read of the entry's
   * handle made that code take handle 0 for its context, and its report say
   * "context could not be decoded" (one run in fifteen of
   * tests/racedet/signal_entry_window.c's first version, with the eager
   * encoder too). */
  if (dc_unlikely(t->sig_depth)) return intern_ctx(t, &c);
  const uint64_t node_cc = DC_NODE_CC(c.node, c.cc), ts_locks = c.ts | (uint64_t)r->lockset << 32;
  rd_ictx *e = ictx_of(r, c.id, node_cc, r->lockset);
  /* the entry also keeps the context's entry in the table of sites, which
   * the first store of the invocation then finds here (site.c) */
  r->site_e = e;
  if (!ictx_is(e, c.id, node_cc, ts_locks))
    /* no entry of a table of sites yet (0: none, as slot records start at 1) */
    *e = (rd_ictx){c.id, node_cc, ts_locks, intern_ctx(t, &c), 0, 0};
  if (e->cinc != r->inc) { /* the record may have it (an entry made in this incarnation) */
    const uint32_t cidx =
        __atomic_load_n(&((const rd_ctxrec *)dc_vec_at(&ctxs.tab, e->handle))->cidx, __ATOMIC_RELAXED);
    if (rd_site_names(r, cidx, e->handle)) e->cinc = r->inc, e->cidx = cidx;
  }
  if (e->cinc == r->inc) {
    r->site_ctx = e->handle;
    r->site_c0 = e->cidx;
  }
  return e->handle;
}

/* Everything but the hit of rd_ctx_handle: the capture modes, a newer
 * dictionary, a lazy ccStack, a held set to intern, a cache miss, an entry
 * of another incarnation. */
static DC_NOINLINE uint32_t ctx_handle_slow(dc_thread *t) {
  /* capture=stackwalk|cct: racedet/capture.c */
  if (dc_unlikely(dc_capture_mode != DC_CAPTURE_DACCE)) return rd_capture_handle(t);
  dacce_ctx c;
  dc_capture(t, &c);
  return t->ctx_handle = handle_of(t, c);
}

/* The hit, the first slow access after most calls and returns (SQLite: 1.3
 * million a run), without a frame: the thread's state as it is (dc_capture
 * would find nothing to do), three 64-bit compares.  (Built as handle_of's
 * copy of the dacce_ctx, with five 32-bit compares, it took 86
 * instructions, its frame set up for the miss.) */
static inline uint32_t ctx_handle_now(dc_thread *t) {
  rd_thread *r = &t->rd;
  const dc_dict *d = t->dict;
  if (dc_likely(dc_capture_mode == DC_CAPTURE_DACCE) && dc_likely(!(t->cc & DC_CC_LAZY)) &&
      dc_likely(!r->lockset_dirty) && dc_likely(!t->sig_depth) &&
      dc_likely(d == atomic_load_explicit(&dc_cur_dict, memory_order_relaxed))) {
    const uint64_t id = t->id, node_cc = t->node_cc;
    rd_ictx *e = ictx_of(r, id, node_cc, r->lockset);
    if (dc_likely(ictx_is(e, id, node_cc, d->ts | (uint64_t)r->lockset << 32) &&
                  e->cinc == r->inc)) {
      r->site_e = e;
      r->site_ctx = e->handle;
      r->site_c0 = e->cidx;
      return t->ctx_handle = e->handle;
    }
  }
  return ctx_handle_slow(t);
}

/* Calls not encoded yet (encoder/internal.h, dc_materialize) are encoded
 * first, in a copy of its own, so that the hit keeps no frame. */
static DC_NOINLINE uint32_t ctx_handle_raw(dc_thread *t) {
  dc_materialize_slow(t);
  return ctx_handle_now(t);
}

DC_NOINLINE uint32_t rd_ctx_handle(dc_thread *t) {
  if (t->ctx_handle) return t->ctx_handle;
  if (dc_unlikely(dc_frame_raw(t->top - 1))) return ctx_handle_raw(t);
  return ctx_handle_now(t);
}

uint32_t rd_ctx_intern(dc_thread *t, const dacce_ctx *c) { return handle_of(t, *c); }

rd_thread *rd_cur(void) { return &dc_cur()->rd; }

static void move_slot(rd_thread *r);
static uint32_t slot_epochs = SH_MAX_EPOCH; /* the last epoch of a slot (option slot_epochs) */

/* The next epoch; a thread whose slot has none left moves to another. */
static void advance(rd_thread *r) {
  if (dc_unlikely(r->epoch >= slot_epochs)) { /* the slot's epochs are used up */
    move_slot(r);
    return;
  }
  r->epoch++;
  r->vc.c[r->tid] = rd_ext_of(r->tid, r->epoch);
}

/* After a release: the thread's cells from before it no longer stand for
 * its accesses from now on (sh_covers). */
void rd_tick(rd_thread *r) {
  advance(r);
  r->pubs++;
  r->floorw = sh_self(0, r->epoch);
  rd_restamp(r);
  rd_floor_count(r);
}

/* ------------------------------------------------------------ thread slots
 * A shadow cell names its thread by a 13-bit slot, and vector clocks are
 * indexed by slot.  A thread that ended leaves its slot to a later thread
 * only when that thread's creator has seen its end (the creator's clock
 * covers the last epoch it released: it joined it, directly or through
 * others).  Then every access of the old thread happens before the new one,
 * which continues the slot's epochs: the old cells it meets as "its own"
 * could not race with it anyway, and other threads tell the two apart by
 * epoch.  So clocks are as long as the most threads alive at once, not as
 * the threads ever created (each creation copied a clock that long: 70,000
 * short threads took 48 s and 1.2 GB, and past 65,535 detection stopped).
 * A detached thread's slot is reused only when something ordered its end
 * before the new thread's creation, or when no other slot is left
 * (slot_take's takeover).
 *
 * A cell has 20 bits of epoch, shared by a slot's successive threads.  A
 * thread that uses up its slot's epochs (a million releases) moves to
 * another slot, as a new thread would, but with its own clock as its
 * creator's (rd_tick): its clock keeps the old slot's last epoch, so its
 * own earlier cells are, to it, another thread's that happen before it.
 * The spent slot serves again, a generation on, once a sweep has taken its
 * cells out of the shadow (reclaim, below).  Past 8192 threads alive at
 * once, the threads without a slot go on slotless (no_slot), with a
 * warning.  (The split was 4096 slots of two million epochs until 8192
 * threads alive at once were wanted: clang's TSan checks 6,000,
 * tests/racedet/live_threads.c.)
 *
 * Each stretch of one thread on one slot is an incarnation, a record with
 * the slot's epoch it starts at; a slot's records are kept, newest first,
 * so that a cell's (slot, epoch) names its thread and its table of sites. */
typedef struct slot_rec {
  uint32_t start_epoch, serial, prev; /* start_epoch extended (rd_ext); prev: the occupant
                                         before, 0 none */
  rd_sites *sites;                    /* the contexts of its cells' sites (site.c) */
} slot_rec;
static dc_vec slot_recs;                         /* slot_rec; 0 unused */
static _Atomic uint32_t slot_head[SH_MAX_TID + 1]; /* newest occupant's record */
_Atomic uint32_t rd_slot_gen[SH_MAX_TID + 1];
/* Under slot_lock.  slot_final: the last released extended epoch of a slot
 * without a thread; free: slots a new thread may take (if its creator saw
 * that epoch); spent: slots with too few epochs left; swept: spent slots
 * that a sweep took out of the shadow, serving again at their next
 * generation from the next reclamation on (quarantine: a slow path that
 * loaded one of their cells before the sweep may still be deciding on it,
 * and must see the old generation). */
static uint32_t slot_final[SH_MAX_TID + 1];
static uint32_t free_slots[SH_MAX_TID + 1], n_free, n_slots;
static uint32_t spent[SH_MAX_TID + 1], n_spent;
static uint32_t swept[SH_MAX_TID + 1], n_swept;
static uint64_t n_reclaimed, n_sweeps, n_swept_cells;
static _Atomic int slot_lock, sweep_lock;
/* hints for reclaim(), read without the lock: few slots left to take; spent
 * or swept slots exist */
static _Atomic int slots_low, slots_reclaimable;
#define SLOT_SCAN 64 /* free slots looked at for one the creator has seen end */
/* a slot whose next occupant would have fewer epochs left than this is spent */
static uint32_t slot_headroom = 1u << 12;
/* generations a slot can have: the extended epoch is 32 bits */
#define SLOT_GENS (1u << (32 - SH_EPOCH_BITS))
static uint32_t slot_count = SH_MAX_TID + 1; /* slots in use (option slots) */
/* reclaim when fewer slots than this are left to take */
#define SLOT_LOW (slot_count / 8)
/* or when this many are spent: slots reclaimed early and given out before
 * slots never used keep the slot numbers low, and so the clocks short
 * (every acquire and release joins a whole clock; with slots numbered up to
 * 8191 a lock and unlock cost 6 us instead of 0.1) */
#define SLOT_BATCH (slot_count / 128 > 4 ? slot_count / 128 : 4)

/* Under slot_lock: the hints, after a change. */
static void hints(void) {
  const uint32_t left = n_free + (slot_count - n_slots);
  atomic_store_explicit(&slots_low, left < SLOT_LOW || n_spent >= SLOT_BATCH,
                        memory_order_relaxed);
  atomic_store_explicit(&slots_reclaimable, n_spent + n_swept > 0, memory_order_relaxed);
}

static void slots_init(void) {
  dc_vec_init(&slot_recs, sizeof(slot_rec), DC_MAX_THREADS);
  atomic_store(&slot_recs.n, 1);
  slot_epochs = (uint32_t)dc_opt.slot_epochs;
  slot_count = (uint32_t)dc_opt.slots;
  if (slot_headroom > slot_epochs / 4) slot_headroom = slot_epochs / 4;
}

/* A slot for a thread whose creator's clock is start (0: none).  When no
 * other is left, it takes over a free slot whose last occupant ended
 * unseen by the creator (a detached thread whose end nothing synchronised
 * with): the new thread continues its epochs, so that its clock covers that
 * thread's accesses as its own past.  Their races with each other are lost
 * (as ThreadSanitizer loses them when it gives a slot to a new thread);
 * without it, a program that starts detached threads all run long ran out
 * of slots after 8192 of them, and every later thread went unchecked. */
static uint64_t n_taken_over;
/* *final: the slot's last released extended epoch, for the first epoch */
static int slot_take(const rd_vc *start, uint32_t *tid, uint32_t *final) {
  dc_lock(&slot_lock);
  for (uint32_t k = 0; k < n_free && k < SLOT_SCAN; k++) {
    uint32_t i = n_free - 1 - k, s = free_slots[i];
    /* a generation that nobody has used yet, or the creator saw its last
     * occupant's end */
    if (!(slot_final[s] & SH_MAX_EPOCH) || (start && rd_vc_get(start, s) >= slot_final[s])) {
      free_slots[i] = free_slots[--n_free];
      hints();
      *final = slot_final[s];
      dc_unlock(&slot_lock);
      *tid = s;
      return 1;
    }
  }
  int ok = n_slots < slot_count;
  if (ok) {
    *tid = n_slots++;
  } else if (n_free) {
    *tid = free_slots[0]; /* (the list's oldest end, roughly) */
    free_slots[0] = free_slots[--n_free];
    n_taken_over++;
    ok = 1;
  }
  if (ok) *final = slot_final[*tid];
  hints();
  dc_unlock(&slot_lock);
  return ok;
}

/* The slot's thread ended (or left it) at extended epoch final: free it,
 * unless its epochs are used up. */
static void slot_release(uint32_t tid, uint32_t final) {
  dc_lock(&slot_lock);
  slot_final[tid] = final;
  if ((final & SH_MAX_EPOCH) <= slot_epochs - slot_headroom)
    free_slots[n_free++] = tid;
  else
    spent[n_spent++] = tid;
  hints();
  dc_unlock(&slot_lock);
}

/* Under slot_lock: the swept slots begin their next generation and are
 * free, for any thread (no clock has seen an epoch of it: slot_final is
 * below them all). */
static void unquarantine(void) {
  for (uint32_t k = 0; k < n_swept; k++) {
    const uint32_t s = swept[k], g = atomic_load_explicit(&rd_slot_gen[s], memory_order_relaxed);
    atomic_store_explicit(&rd_slot_gen[s], g + 1, memory_order_release);
    slot_final[s] = (g + 1) << SH_EPOCH_BITS;
    free_slots[n_free++] = s;
  }
  n_reclaimed += n_swept;
  n_swept = 0;
}

/* Spent slots serve again once no cell of theirs is left in the shadow.
 * A spent slot whose last epoch every thread has seen (the floor, floor.c)
 * has only dead cells: a sweep of the shadow (sh_sweep) clears them, and
 * the slot begins a new generation, its epochs from 1 again, behind every
 * clock that saw the old one (rd_ext).  The sweep runs twice: a settled
 * cell that another thread moved from plane A to plane B while the first
 * pass ran (access.c, keep_a_live) is caught by the second, and nothing
 * moves such a cell after that.  Freed marks of those threads go too (a
 * use of such a block after the sweep is not reported).
 *
 * When SLOT_BATCH slots are spent or fewer than SLOT_LOW are left (now:
 * 0), only such slots are swept, and they serve from the next reclamation
 * on, swept once more then (the quarantine of unquarantine).  When none is
 * left (now: 1), every spent slot is swept and serves at once: a thread
 * that has not seen a slot's last accesses (one blocked in a read since)
 * loses its races with them, as ThreadSanitizer's reset of its shadow
 * loses every race with the past; without it, detection would stop for
 * every later thread. */
static void reclaim(int now) {
  if (!atomic_load_explicit(&slots_reclaimable, memory_order_relaxed)) return;
  if (!now && !atomic_load_explicit(&slots_low, memory_order_relaxed)) return;
  if (now)
    dc_lock(&sweep_lock);
  else if (!dc_trylock(&sweep_lock))
    return; /* another thread is at it */
  if (now) rd_floor_update();
  static uint64_t set[(SH_MAX_TID + 1) / 64];
  static uint32_t fresh[SH_MAX_TID + 1];
  uint32_t n = 0, swept_before = 0;
  dc_lock(&slot_lock);
  const uint32_t left = n_free + (slot_count - n_slots);
  if (now || left < SLOT_LOW || n_spent >= SLOT_BATCH) {
    dc_memset(set, 0, sizeof set);
    /* the quarantined slots are swept once more before they serve: a
     * settled cell copied to plane B by a slow path that had read it
     * before their sweep may have landed since */
    for (uint32_t k = 0; k < n_swept; k++) set[swept[k] / 64] |= 1ull << (swept[k] % 64);
    swept_before = n_swept;
    for (uint32_t k = 0; k < n_spent;) {
      const uint32_t s = spent[k];
      const int seen = atomic_load_explicit(&rd_floor[s], memory_order_relaxed) >= slot_final[s];
      if ((now || seen) && atomic_load_explicit(&rd_slot_gen[s], memory_order_relaxed) + 1 < SLOT_GENS) {
        set[s / 64] |= 1ull << (s % 64);
        fresh[n++] = s;
        spent[k] = spent[--n_spent];
      } else {
        k++;
      }
    }
  }
  dc_unlock(&slot_lock);
  if (n | swept_before) {
    uint64_t cleared = sh_sweep(set);
    cleared += sh_sweep(set);
    dc_lock(&slot_lock);
    unquarantine(); /* (only this function adds to swept, under sweep_lock) */
    for (uint32_t k = 0; k < n; k++) swept[n_swept++] = fresh[k];
    if (now) unquarantine();
    n_sweeps++;
    n_swept_cells += cleared;
    hints();
    dc_unlock(&slot_lock);
  }
  dc_unlock(&sweep_lock);
}

void rd_slot_stats(uint64_t *reclaimed, uint64_t *sweeps, uint64_t *cells, uint64_t *taken) {
  dc_lock(&slot_lock);
  *taken = n_taken_over;
  *reclaimed = n_reclaimed;
  *sweeps = n_sweeps;
  *cells = n_swept_cells;
  dc_unlock(&slot_lock);
}

/* A new incarnation of the thread on its slot from its current epoch on:
 * a record with an empty table of sites. */
static void begin_incarnation(rd_thread *r) {
  rd_sites *s = rd_sites_new();
  dc_lock(&slot_lock);
  uint32_t i = atomic_load_explicit(&slot_recs.n, memory_order_relaxed);
  if (i >= DC_MAX_THREADS) dc_die("dacce: too many threads\n");
  *(slot_rec *)dc_vec_at(&slot_recs, i) =
      (slot_rec){rd_ext_of(r->tid, r->epoch), rd_owner(r)->serial,
                 atomic_load_explicit(&slot_head[r->tid], memory_order_relaxed), s};
  atomic_store_explicit(&slot_recs.n, i + 1, memory_order_release);
  atomic_store_explicit(&slot_head[r->tid], i, memory_order_release);
  dc_unlock(&slot_lock);
  r->inc = i;
  r->incw = sh_self(0, r->epoch);
  rd_restamp(r);
  rd_sites_begin(r, s);
}

/* The table of sites is nearly full: tick, and a new incarnation (rd_tick
 * may have begun one already, on another slot). */
void rd_sites_renew(rd_thread *r) {
  const uint32_t inc = r->inc;
  advance(r); /* not a release: the floor stays */
  if (r->inc == inc && !r->disabled && !r->slotless) begin_incarnation(r);
}

/* The record of the incarnation that a cell's (slot, extended epoch) names,
 * or 0. */
static const slot_rec *rec_at(uint32_t tid, uint32_t ext) {
  if (tid > SH_MAX_TID) return 0;
  uint32_t i = atomic_load_explicit(&slot_head[tid], memory_order_acquire);
  while (i) {
    const slot_rec *s = dc_vec_at(&slot_recs, i);
    if (s->start_epoch <= ext || !s->prev) return s;
    i = s->prev;
  }
  return 0;
}

uint32_t rd_slot_serial(uint32_t tid, uint32_t ext) {
  const slot_rec *s = rec_at(tid, ext);
  return s ? s->serial : UINT32_MAX;
}

int rd_cell_site(uint64_t cell, unsigned *bytes, uint32_t *ctx, uint32_t *held, uintptr_t *pc,
                 int *merged) {
  const slot_rec *s = rec_at(SH_TID(cell), rd_ext(cell));
  unsigned have = SH_MASK(cell), want = bytes ? *bytes & have : 0;
  if (!want) want = have;
  const int ok = s && rd_site_decode(s->sites, SH_SITE(cell), (unsigned)__builtin_ctz(want | 0x100u),
                                     &have, ctx, held, pc, merged);
  if (bytes) *bytes = have;
  return ok;
}

/* The first epoch on a slot (extended: the slot's generation and the
 * epoch): nothing before it is this thread's there. */
static void set_epoch(rd_thread *r, uint32_t ext) {
  r->epoch = ext & SH_MAX_EPOCH;
  r->vc.c[r->tid] = ext;
  r->self = sh_self(r->tid, r->epoch);
  r->floorw = sh_self(0, r->epoch);
  r->pubs++; /* nothing from the slot before is taken back (sync.c) */
}

/* Take a slot with the clock start as the creator's (for a thread moving
 * on, its own): the first epoch is past everything start has seen of the
 * slot and past its last occupant's (or the first of a generation begun
 * since).  0: no slot. */
static int take(rd_thread *r, const rd_vc *start) {
  uint32_t tid, final;
  reclaim(0);
  int ok = slot_take(start, &tid, &final);
  if (!ok) {
    reclaim(1);
    ok = slot_take(start, &tid, &final);
  }
  if (!ok) return 0;
  r->tid = tid;
  r->has_slot = 1;
  if (r->slotless) r->ignore_accesses--;
  r->slotless = 0;
  rd_vc_ensure(&r->vc, tid + 1);
  uint32_t e = rd_vc_get(&r->vc, tid) + 1;
  if (e <= final) e = final + 1;
  set_epoch(r, e);
  begin_incarnation(r);
  return 1;
}

#define SLOT_RETRY 1024 /* releases of a slotless thread between asks for a slot */

/* No slot for the thread: it goes on without recording its accesses (a
 * thread that had one keeps it, at its last epoch, so that what it
 * recorded stays ordered before its releases), and asks again later.  Its
 * synchronisation goes on: a thread that passes a lock from one thread to
 * another must carry the first one's history to the second, or the second
 * reports false races (the runtime of before turned such a thread's
 * synchronisation off). */
static void no_slot(rd_thread *r) {
  static _Atomic int warned;
  if (!atomic_exchange(&warned, 1))
    dc_printf("==dacce== warning: more than %u threads alive at once; accesses of threads "
              "without a thread slot are not checked\n", slot_count);
  if (!r->slotless) r->ignore_accesses++; /* (a count: the annotations' too) */
  r->slotless = SLOT_RETRY;
  r->epoch = slot_epochs; /* advance asks for a slot (move_slot) */
}

static int occupy(rd_thread *r, const rd_vc *start) {
  if (take(r, start)) return 1;
  r->has_slot = 0;
  no_slot(r);
  return 0;
}

/* The slot's epochs are used up, or the thread has none: a fresh slot.
 * The old slot is given up only when there is one: it is then spent, and
 * this clock keeps its last epoch. */
static void move_slot(rd_thread *r) {
  if (r->slotless > 1) {
    r->slotless--;
    return;
  }
  const int had = r->has_slot;
  const uint32_t old = r->tid, final = rd_ext_of(old, r->epoch);
  if (take(r, &r->vc)) {
    if (had) slot_release(old, final);
    return;
  }
  no_slot(r);
}

/* A thread starts after everything its creator did before pthread_create. */
void rd_thread_start(dc_thread *t) {
  rd_thread *r = &t->rd;
  dc_thread_rec *rec = dc_vec_at(&dc_threads, t->serial);
  rd_vc_reserve_all(&r->vc); /* it is read by rd_floor_update: it must not move */
  /* the creator's clock, needed only until now, gives way to the thread's */
  rd_floor_started(&r->vc, rec->has_creator ? &rec->start_vc : 0);
  occupy(r, rec->has_creator ? &r->vc : 0);
}

static _Atomic uint64_t taken_back_ended; /* by threads that ended */

uint64_t rd_taken_back(void) {
  return atomic_load_explicit(&taken_back_ended, memory_order_relaxed) + dc_cur()->rd.taken_back;
}

/* The thread's end was released (thread_end.c): that was its last epoch,
 * the one before its current one (the release ticked).  Here its clocks go
 * and its slot is freed. */
void rd_thread_finish(dc_thread *t) {
  rd_thread *r = &t->rd;
  atomic_fetch_add_explicit(&taken_back_ended, r->taken_back, memory_order_relaxed);
  /* (a slotless thread kept its slot at the epoch it stopped at) */
  if (!r->disabled && r->has_slot)
    slot_release(r->tid, rd_ext_of(r->tid, r->slotless ? r->epoch : r->epoch - 1));
  rd_floor_forget(&r->vc);
  rd_vc_free(&r->acq_fence);
  rd_vc_free(&r->rel_fence);
  rd_sync_thread_end(r);
  rd_heap_thread_end(r);
  rd_small_thread_end(r);
  rd_sites_end(r);
}

__attribute__((constructor)) static void ctx_locks(void) {
  dc_atfork_register(DC_RANK_CTX, &ctx_lock, 1, 0);
  dc_atfork_register(DC_RANK_SWEEP, &sweep_lock, 1, 0);
  dc_atfork_register(DC_RANK_SLOTS, &slot_lock, 1, 0);
}
