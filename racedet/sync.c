/* sync.c: synchronisation objects (mutexes, condition variables, atomics'
 * release clocks, annotations), found by address through a meta map.
 * Stripes of granules have their own lock; an object's clock has its own. */

#include "racedet.h"

/* ------------------------------------------------------------ the meta map
 * Like the shadow (shadow.h), the meta map splits addresses into 1 GiB
 * regions, reserved (MAP_NORESERVE) the first time an object is made in
 * one and found through a flat table.  A region's map has a 32-bit word per
 * 8-byte granule: the index of the first of the granule's objects (0: none;
 * objects are keyed by their exact address, so a granule may hold more
 * than one, on a chain through next), and, per 8 KiB of memory, a count of
 * its objects, so that a free or an munmap reads the words only where some
 * object lives.  A lookup is a load of the word, a free of n bytes reads
 * n / 2 bytes of words at most, and neither depends on how many objects
 * there are.  Until 2026-11-29 the objects were in a hash table of 65,536
 * buckets with per-line counts of objects: with 2.2 million atomic
 * locations alive at once (LevelDB's issue178_test) the counts saturated,
 * every free looked up each 4-byte step of its block in a bucket's chains,
 * and the table was 40% of the run's samples, 52 s against clang TSan's 30 s
 * (docs/architecture.md). */
#define META_GRANULES ((uintptr_t)1 << (SH_REGION_BITS - 3))
#define META_SPAN_BITS 9u /* a 512-byte span of memory has a count */
#define META_SPANS ((uintptr_t)1 << (SH_REGION_BITS - META_SPAN_BITS))
#define META_SPAN_GRANULES ((uintptr_t)1 << (META_SPAN_BITS - 3))
typedef struct meta_region {
  _Atomic uint32_t count[META_SPANS]; /* objects in each 512-byte span */
  _Atomic uint32_t word[META_GRANULES];
} meta_region;
/* Regions by address bits 30..46; an address above 2^47 shares a region
 * with one below (objects compare their exact address: only slower). */
static _Atomic(meta_region *) meta[SH_REGIONS];

static inline uintptr_t meta_ri(uintptr_t addr) {
  return (addr >> SH_REGION_BITS) & (SH_REGIONS - 1);
}
static inline uintptr_t meta_gi(uintptr_t addr) { return (addr >> 3) & (META_GRANULES - 1); }
static inline meta_region *meta_at(uintptr_t addr) {
  return atomic_load_explicit(&meta[meta_ri(addr)], memory_order_acquire);
}
static meta_region *meta_map(uintptr_t addr) {
  return dc_mmap_once((void *_Atomic *)&meta[meta_ri(addr)], sizeof(meta_region));
}

/* Stripes: a granule's chain and word change under its stripe's lock
 * (4,096 of them: a fork takes them all, and writes each page they are on
 * in both processes; 65,536 until 2026-12-01, when only making and
 * dropping objects still took them: found); made counts the objects made
 * in the stripe (rd_sync_find). */
#define NSTRIPES (1u << 12)
typedef struct stripe {
  _Atomic int lock;
  _Atomic uint32_t made;
} stripe;
static stripe stripes[NSTRIPES];
static inline stripe *stripe_of(uintptr_t addr) {
  return &stripes[(dc_hash_word(addr >> 3) >> 20) & (NSTRIPES - 1)];
}

/* ------------------------------------------------------------ objects' locks
 * A fork takes the stripes' locks and the pool's (dc_atfork), not the
 * objects': taking and giving back the lock of every live object wrote
 * every page of the pool after the fork, each a copy-on-write fault, in the
 * parent and again in the child (100,000 mutexes alive: 164 ms a fork,
 * against clang TSan's 9.7 ms; 4.1 ms now: bench/micro/fork.sh).  Instead, an object
 * keeps the fork generation it was last locked in (gen), and a child
 * begins a generation of its own (rd_sync_fork_child): the first lock of an
 * object in it adopts the object (obj_adopt).  If its lock was held at the
 * fork, the holder was a thread of the parent, which is gone, and it may
 * have been changing the object: its clocks are dropped, not freed (their
 * memory may be half moved), and the lock freed.  That loses nothing: the
 * child's thread acquired every thread's clock at the fork
 * (after_fork_child), so every release an object held is its own already.
 * The version goes on too (odd while changing: access.c's lock-free loads
 * compare it), so that no load takes the old clocks for current. */
static uint32_t fork_gen; /* (changed only in a child before its threads: rd_sync_fork_child) */

void rd_sync_fork_child(void) { fork_gen++; }

static DC_NOINLINE void obj_adopt(rd_sync *s) {
  uint32_t g = atomic_load_explicit(&s->gen, memory_order_acquire);
  if (g == fork_gen || !atomic_compare_exchange_strong_explicit(&s->gen, &g, fork_gen,
                                                                memory_order_acq_rel,
                                                                memory_order_acquire))
    return; /* (adopted by another thread of the child: its lock is as usual) */
  if (!atomic_load_explicit(&s->lock, memory_order_acquire)) return; /* free at the fork: whole */
  s->vc = s->rvc = (rd_vc){0};
  s->rel_live = 0;
  const uint32_t v = atomic_load_explicit(&s->seq, memory_order_relaxed);
  atomic_store_explicit(&s->seq, (v | 1) + 1, memory_order_release);
  if (atomic_exchange_explicit(&s->lock, 0, memory_order_release) == 2) dc_lock_wake(&s->lock);
}

static inline void obj_lock(rd_sync *s) {
  if (dc_unlikely(atomic_load_explicit(&s->gen, memory_order_relaxed) != fork_gen)) obj_adopt(s);
  dc_lock(&s->lock);
}

/* ------------------------------------------------------------ the objects
 * In blocks of POOL_BLOCK, never unmapped (a lock-free atomic load may read
 * an object that has gone: access.c, aload_current), an index naming one;
 * the ones that went are kept on a free list and made again. */
#define POOL_BLOCK_BITS 10u
#define POOL_BLOCK (1u << POOL_BLOCK_BITS)
#define POOL_BLOCKS (1u << 18) /* 2^28 objects alive at once */
static rd_sync *pool[POOL_BLOCKS];
static _Atomic int pool_lock;
static uint32_t pool_used = 1; /* indices handed out (0: none) */
static rd_sync *pool_free;

static inline rd_sync *obj(uint32_t i) {
  return i ? &pool[i >> POOL_BLOCK_BITS][i & (POOL_BLOCK - 1)] : 0;
}

static _Atomic uint64_t last_uid;

/* Objects made so far (dacce_stats.sync_objects; read without the lock). */
uint64_t rd_sync_objects(void) { return __atomic_load_n(&pool_used, __ATOMIC_RELAXED) - 1; }

/* An object never used before (pool_lock held). */
static rd_sync *pool_new(void) {
  const uint32_t i = pool_used;
  if (i >> POOL_BLOCK_BITS >= POOL_BLOCKS)
    dc_die("dacce: more than %u synchronisation objects alive at once\n", POOL_BLOCKS * POOL_BLOCK);
  if (!pool[i >> POOL_BLOCK_BITS])
    pool[i >> POOL_BLOCK_BITS] = dc_mmap(POOL_BLOCK * sizeof(rd_sync));
  rd_sync *s = obj(i);
  s->idx = i;
  __atomic_store_n(&pool_used, i + 1, __ATOMIC_RELAXED);
  return s;
}

/* The next free object, or a new one (pool_lock held). */
static rd_sync *pool_take(void) {
  rd_sync *s = pool_free;
  if (s)
    pool_free = s->next;
  else
    s = pool_new();
  return s;
}

/* A thread takes POOL_TAKE objects at a time into its own cache, which
 * only pool_get touches, under a stripe's lock (so no signal handler of the
 * thread's runs in between: it is deferred while the runtime holds a
 * lock); the threads that made and freed atomic locations at once waited
 * for each other at the pool's lock at every one (bench/kernels/atomics.c:
 * 6% of the samples in dc_lock_wait, with the allocator's lock). */
#define POOL_TAKE 32u

/* A new uid (never 0), from the thread's own run of UID_TAKE (r: 0 for a
 * thread without a record): two threads that made objects at once took
 * turns at last_uid's line, 40% of rd_sync_get's samples in
 * bench/micro/heap.sh locked.  Uids are only ever compared for equality. */
#define UID_TAKE 256u
static uint64_t next_uid(rd_thread *r) {
  if (!r) return atomic_fetch_add_explicit(&last_uid, 1, memory_order_relaxed) + 1;
  if (r->uid_next == r->uid_end) {
    r->uid_next = atomic_fetch_add_explicit(&last_uid, UID_TAKE, memory_order_relaxed) + 1;
    r->uid_end = r->uid_next + UID_TAKE;
  }
  return r->uid_next++;
}

/* A fresh object at addr (its stripe's lock held). */
static rd_sync *pool_get(uintptr_t addr) {
  dc_thread *t = dc_self();
  rd_thread *r = t && t != &dc_dead_thread ? &t->rd : 0;
  rd_sync *s;
  if (r && r->sync_cache) {
    s = r->sync_cache;
    r->sync_cache = s->next;
    r->sync_cached--;
  } else {
    dc_lock(&pool_lock);
    for (uint32_t k = r ? POOL_TAKE : 0; k; k--) { /* the thread's next ones */
      rd_sync *c = pool_take();
      c->next = r->sync_cache;
      r->sync_cache = c;
    }
    if (r) r->sync_cached = POOL_TAKE;
    s = pool_take();
    dc_unlock(&pool_lock);
  }
  atomic_store_explicit(&s->gen, fork_gen, memory_order_relaxed);
  /* everything but the index, the lock (free) and the version (which only
   * grows: access.c's lock-free loads compare it) starts anew */
  __atomic_store_n(&s->addr, addr, __ATOMIC_RELAXED);
  s->next = 0; /* (its clocks went when it did: drop_granule) */
  s->creation_known = s->in_graph = 0;
  __atomic_store_n(&s->created_pc, 0, __ATOMIC_RELAXED);
  s->rel_serial = s->rel_live = s->read_aside = 0;
  s->rel_pubs = s->rel_floorw = 0;
  __atomic_store_n(&s->uid, next_uid(r), __ATOMIC_RELAXED);
  return s;
}

/* The objects on the list gone (through next, last its last) are free
 * again: one lock for all of a free's objects. */
static void pool_put_all(rd_sync *gone, rd_sync *last) {
  dc_lock(&pool_lock);
  last->next = pool_free;
  pool_free = gone;
  dc_unlock(&pool_lock);
}

/* The objects on the list gone are free again: into the calling thread's
 * own cache while it holds at most POOL_KEEP (its next pool_get takes them
 * from there), else into the pool.  A free of a block with a mutex in it,
 * one object a free, took the pool's lock at each (bench/micro/heap.sh
 * locked: a third of rd_sync_forget's samples at its locks).  (The cache
 * changes inside dc_enter: a signal handler that makes an object waits.) */
#define POOL_KEEP (2 * POOL_TAKE)
static void pool_put(rd_sync *gone) {
  if (!gone) return;
  rd_sync *last = gone;
  uint32_t n = 0;
  for (rd_sync *s = gone; s; s = s->next) {
    __atomic_store_n(&s->uid, 0, __ATOMIC_RELAXED);
    last = s;
    n++;
  }
  dc_thread *t = dc_guard_owner();
  if (t && t->rd.sync_cached + n <= POOL_KEEP) {
    dc_enter(t);
    last->next = t->rd.sync_cache;
    t->rd.sync_cache = gone;
    t->rd.sync_cached += n;
    dc_leave(t);
    return;
  }
  pool_put_all(gone, last);
}

void rd_sync_thread_end(rd_thread *r) {
  rd_sync *c = r->sync_cache, *last = c;
  r->sync_cache = 0;
  r->sync_cached = 0;
  if (!c) return;
  while (last->next) last = last->next;
  pool_put_all(c, last);
}

/* The object at addr, locked, found without the stripe's lock, or 0 (then
 * the caller asks under it).  A lock or unlock of a lock that exists, most
 * of them, took the stripe's lock and the object's, and the stripe's lines
 * went from CPU to CPU with every lock operation of any thread (rwhash:
 * rd_sync_get 14% of the samples of a build that records no accesses,
 * most at the stripe's lock).  The chain is read as it is (the objects'
 * memory stays mapped, and a chain that changes under the walk is left
 * after a few steps); what was found counts only if, under its lock, it is
 * still on its chain at addr: drop_granule clears linked under the lock
 * before it frees the clocks, and rd_sync_get sets it when the object is
 * whole, just before the granule's word names it. */
#define FOUND_STEPS 8
static rd_sync *found(meta_region *m, uintptr_t addr) {
  if (!m) return 0;
  rd_sync *s = obj(atomic_load_explicit(&m->word[meta_gi(addr)], memory_order_acquire));
  for (int k = 0; s && k < FOUND_STEPS; k++, s = __atomic_load_n(&s->next, __ATOMIC_RELAXED)) {
    if (__atomic_load_n(&s->addr, __ATOMIC_RELAXED) != addr) continue;
    obj_lock(s);
    if (__atomic_load_n(&s->linked, __ATOMIC_ACQUIRE) && s->addr == addr) return s;
    dc_unlock(&s->lock);
    return 0;
  }
  return 0;
}

/* The object at addr on its granule's chain (its stripe's lock held). */
static rd_sync *in_granule(meta_region *m, uintptr_t addr) {
  rd_sync *s = m ? obj(atomic_load_explicit(&m->word[meta_gi(addr)], memory_order_relaxed)) : 0;
  while (s && s->addr != addr) s = s->next;
  return s;
}

/* An atomic load's lookup, before the load: the object, locked, or none,
 * and then *none for rd_sync_none_since after the load.  An object made in
 * between (its maker set its granule's word and its stripe's made before
 * its store, and a release fence came between, rd_sync_get) may have been
 * made by the store the load read: the load must then be done again, with
 * the object locked, or it would miss that store's release (a false race:
 * the first store to a flag that a reader already spins on).  *none: 1 when
 * the granule had no object (a load, no lock), else the stripe's made
 * count, shifted up one. */
rd_sync *rd_sync_find(uintptr_t addr, uint64_t *none) {
  meta_region *m = meta_at(addr);
  if (!m || !atomic_load_explicit(&m->word[meta_gi(addr)], memory_order_acquire)) {
    *none = 1;
    return 0;
  }
  rd_sync *s = found(m, addr);
  if (s) return s;
  stripe *st = stripe_of(addr);
  dc_lock(&st->lock);
  s = in_granule(m, addr);
  if (s)
    obj_lock(s);
  else
    *none = (uint64_t)atomic_load_explicit(&st->made, memory_order_relaxed) << 1;
  dc_unlock(&st->lock);
  return s;
}

/* After the load (and an acquire fence): no object made at addr since
 * rd_sync_find found none? */
int rd_sync_none_since(uintptr_t addr, uint64_t none) {
  if (none & 1) {
    meta_region *m = meta_at(addr);
    return !m || !atomic_load_explicit(&m->word[meta_gi(addr)], memory_order_relaxed);
  }
  return ((uint64_t)atomic_load_explicit(&stripe_of(addr)->made, memory_order_relaxed) << 1) ==
         none;
}

rd_sync *rd_sync_get(uintptr_t addr, int create) {
  uint64_t none; /* (an acquire's lookup: no load to do again) */
  if (!create) return rd_sync_find(addr, &none);
  meta_region *m = meta_map(addr);
  rd_sync *s = found(m, addr);
  if (s) goto changing;
  stripe *st = stripe_of(addr);
  dc_lock(&st->lock);
  s = in_granule(m, addr);
  if (!s) {
    s = pool_get(addr);
    _Atomic uint32_t *w = &m->word[meta_gi(addr)];
    s->next = obj(atomic_load_explicit(w, memory_order_relaxed));
    /* (last: found() takes an object only once it is whole, which a walk
     * that kept it from its last life may meet before the word names it) */
    __atomic_store_n(&s->linked, 1, __ATOMIC_RELEASE);
    atomic_store_explicit(w, s->idx, memory_order_release);
    atomic_fetch_add_explicit(&m->count[meta_gi(addr) / META_SPAN_GRANULES], 1,
                              memory_order_relaxed);
    atomic_store_explicit(&st->made, atomic_load_explicit(&st->made, memory_order_relaxed) + 1,
                          memory_order_relaxed);
  }
  obj_lock(s);
  dc_unlock(&st->lock);
changing:
  /* Every change to the object's clocks, and every atomic store or
   * read-modify-write of its location, is made by a holder that asked with
   * create, between an odd version and the next one (a seqlock's writer):
   * an atomic load that finds the version even and the same before and
   * after it read the location did not read such a store, and the clocks
   * did not change (access.c, rd_atomic_load_pre). */
  atomic_store_explicit(&s->seq, atomic_load_explicit(&s->seq, memory_order_relaxed) + 1,
                        memory_order_relaxed);
  atomic_thread_fence(memory_order_release);
  return s;
}

void rd_sync_unlock(rd_sync *s) {
  const uint32_t v = atomic_load_explicit(&s->seq, memory_order_relaxed);
  if (v & 1) atomic_store_explicit(&s->seq, v + 1, memory_order_release);
  dc_unlock(&s->lock);
}

/* Lock m's creation site is the current context (its object s, locked;
 * h: the context's handle, taken before: interning takes other locks). */
static void creation_is(rd_sync *s, uint32_t h, uintptr_t pc) {
  __atomic_store_n(&s->created_ctx, h, __ATOMIC_RELAXED);
  __atomic_store_n(&s->created_pc, pc, __ATOMIC_RELEASE);
}

/* The current thread's context into *h, when it may intern one. */
static int creation_ctx(uint32_t *h) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return 0;
  *h = rd_ctx_handle(t);
  return 1;
}

/* Where lock m was created, for a report, which may hold other objects'
 * locks (an atomic operation's): so no lock here.  The chain of m's
 * granule is walked as a lock-free atomic load reads an object (access.c,
 * aload_current): objects are never unmapped, and what is read counts only
 * if the object still has m's address and the same uid after it.  (Until
 * 2026-11-30 a global map under a lock of its own, a miss per lock made:
 * 8% of the samples of a program with a million mutexes.) */
int rd_lock_creation(uintptr_t m, uint32_t *ctx, uintptr_t *pc) {
  meta_region *mr = meta_at(m);
  if (!mr) return 0;
  const rd_sync *s = obj(atomic_load_explicit(&mr->word[meta_gi(m)], memory_order_acquire));
  for (int steps = 0; s && steps < 64; steps++) {
    const uint64_t uid = __atomic_load_n(&s->uid, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&s->addr, __ATOMIC_RELAXED) == m && uid) {
      const uintptr_t p = __atomic_load_n(&s->created_pc, __ATOMIC_ACQUIRE);
      const uint32_t h = __atomic_load_n(&s->created_ctx, __ATOMIC_RELAXED);
      atomic_thread_fence(memory_order_acquire);
      if (!p || __atomic_load_n(&s->uid, __ATOMIC_RELAXED) != uid ||
          __atomic_load_n(&s->addr, __ATOMIC_RELAXED) != m)
        return 0;
      *ctx = h;
      *pc = p;
      return 1;
    }
    s = __atomic_load_n(&s->next, __ATOMIC_RELAXED);
  }
  return 0;
}

/* The objects of granule g (its word nonzero) whose address lies in
 * [lo, lo + size): off its chain, under its stripe's lock; then each waits
 * for a thread that still holds it (it got it before the stripe's lock was
 * ours, and will not touch it after), its clocks go, and it joins *gone.
 * (Keeping the clocks' memory for the object's next life instead saved no
 * time in bench/kernels/atomics.c and raised its peak RSS from 196 to 346
 * MB.) */
static void drop_granule(meta_region *m, uintptr_t g, uintptr_t lo, uintptr_t size,
                         rd_sync **gone_all) {
  stripe *st = stripe_of(g);
  _Atomic uint32_t *w = &m->word[meta_gi(g)];
  rd_sync *gone = 0, *prev = 0;
  dc_lock(&st->lock);
  for (rd_sync *s = obj(atomic_load_explicit(w, memory_order_relaxed)), *next; s; s = next) {
    next = s->next;
    if (s->addr - lo >= size) {
      prev = s;
      continue;
    }
    if (prev)
      prev->next = next;
    else
      atomic_store_explicit(w, next ? next->idx : 0, memory_order_relaxed);
    atomic_fetch_sub_explicit(&m->count[meta_gi(g) / META_SPAN_GRANULES], 1, memory_order_relaxed);
    s->next = gone;
    gone = s;
  }
  dc_unlock(&st->lock);
  while (gone) {
    rd_sync *s = gone;
    gone = s->next;
    obj_lock(s);
    s->linked = 0; /* (found) */
    dc_unlock(&s->lock);
    if (s->in_graph) rd_dl_forget(s->uid);
    rd_vc_free(&s->vc);
    rd_vc_free(&s->rvc);
    s->next = *gone_all;
    *gone_all = s;
  }
}

/* Memory is gone (free, munmap): its objects go too, so a later object at
 * the same address starts without history.  Only the words of 512-byte
 * spans that count an object are read. */
void rd_sync_forget(uintptr_t addr, uintptr_t size) {
  if (!size) return;
  const uintptr_t region = (uintptr_t)1 << SH_REGION_BITS, span = (uintptr_t)1 << META_SPAN_BITS;
  /* the last byte; a range of more than the regions' table covers once
   * visits each region once, whole (an address above 2^47 shares one) */
  uintptr_t lo = addr & ~(uintptr_t)7,
            last = size - 1 > UINTPTR_MAX - addr ? UINTPTR_MAX : addr + size - 1;
  if (last - lo >= (uintptr_t)SH_REGIONS << SH_REGION_BITS)
    lo = 0, last = ((uintptr_t)SH_REGIONS << SH_REGION_BITS) - 1;
  rd_sync *gone = 0;
  for (uintptr_t a = lo;;) {
    const uintptr_t region_last = a | (region - 1), stop = last < region_last ? last : region_last;
    meta_region *m = meta_at(a);
    for (uintptr_t s = a; m;) { /* the region's spans in the range */
      const uintptr_t span_last = s | (span - 1), s_stop = stop < span_last ? stop : span_last;
      if (atomic_load_explicit(&m->count[meta_gi(s) / META_SPAN_GRANULES], memory_order_relaxed))
        for (uintptr_t g = s & ~(uintptr_t)7; g <= s_stop; g += 8)
          if (atomic_load_explicit(&m->word[meta_gi(g)], memory_order_relaxed))
            drop_granule(m, g, addr, size, &gone);
      if (s_stop == stop) break;
      s = span_last + 1;
    }
    if (stop == last) break;
    a = region_last + 1;
  }
  pool_put(gone);
}

static int active(rd_thread **r) {
  dc_thread *t = dc_self();
  if (!t) t = dc_cur();
  *r = &t->rd;
  return !(*r)->ignore_sync && !(*r)->disabled;
}

/* ------------------------------------------------------------ releases taken
 * back A release starts a new epoch, and the thread's cells from before it no
 * longer cover its accesses (shadow.h, sh_covers): each location it touches
 * again costs the slow path, a store and often a site.  A program that
 * takes and drops a lock around every call into a library (SQLite in
 * serialized mode: a lock per connection, held for each API call) pays
 * that for nearly every access, though nobody else ever takes that lock.
 *
 * What makes the old cells stale is only that some clock may hold the
 * release's epoch: an observer whose clock holds it sees the cells before
 * the release as ordered before itself, and not those after.  A release
 * into a lock's clock that nobody acquired, taken again by the releaser
 * itself, could still be seen later only by reading that clock before the
 * releaser's next release into it, which the lock itself rules out: every
 * later holder gets the next release's epoch, which covers every access
 * until then.  So when the releaser takes the lock again, the release is
 * the thread's last one that counts (its count of releases, pubs, is one
 * past the one recorded), and nothing read or wrote the lock's clock in
 * between (rel_live), the release is taken back: the thread's floor goes
 * back to what it was before it, and its cells since then cover again.
 * The epoch itself goes on (clocks only grow); the stamp of its accesses
 * goes back with the floor (racedet.h, rd_restamp), so that the cells
 * stored before the release match the inline check again, and those
 * stored between the release and now are moved to the stamp when they are
 * met (access.c, more_renewed).  Releases are taken back last first:
 * taking one back makes the one before it the last again.
 *
 * Anything else that reads the lock's clock (another thread's acquire of
 * any kind, an atomic operation on its address) or writes it clears
 * rel_live first.  What remains is a reader of the clock that comes after
 * the release was taken back and before the next one, while the releaser
 * holds the lock: a program that acquires a held mutex by annotation
 * (__tsan_acquire) or reads its word atomically.  It gets the released
 * epoch, and may then miss a race with an access of the holder until the
 * holder's next release: the holder's accesses are stamped with an epoch
 * from before the release (before the stamp, only those that an older cell
 * covered).  Only the first such reader of a lock: from then on its
 * releases are not taken back (read_aside). */
static inline void seen_by(rd_sync *s, rd_thread *r) {
  if (s->rel_serial != rd_owner(r)->serial) s->rel_live = 0;
}

/* The same by such a reader, which may come again while the releaser
 * holds the lock: from the first one on, the lock's releases are not
 * taken back (read_aside), so that the hole above is open only to the
 * first such read (tests/racedet/taken_back_aside.c). */
static inline void read_aside_by(rd_sync *s, rd_thread *r) {
  if (s->rel_serial != rd_owner(r)->serial) s->rel_live = 0, s->read_aside = 1;
}

/* a release into s's writers' clock (as_reader: its readers') */
static inline void released_into(rd_sync *s, rd_thread *r, int as_reader) {
  s->rel_serial = rd_owner(r)->serial;
  s->rel_live = !as_reader && r->has_slot && !r->slotless && s->rel_serial != UINT32_MAX;
  s->rel_pubs = r->pubs;
  s->rel_floorw = r->floorw;
}

/* r takes the lock s: its last release, if into s and unseen, is taken back */
static inline void take_back(rd_sync *s, rd_thread *r) {
  if (!s->rel_live || s->read_aside || s->rel_serial != rd_owner(r)->serial ||
      r->pubs != s->rel_pubs + 1)
    return;
  s->rel_live = 0;
  r->pubs = s->rel_pubs;
  r->floorw = s->rel_floorw;
  rd_restamp(r);
  r->taken_back++;
}

void rd_sync_touched(rd_sync *s) { s->rel_live = 0, s->read_aside = 1; }

/* The thread's clock joins the object's (writers') clock. */
void rd_acquire(uintptr_t addr) {
  rd_thread *r;
  if (!active(&r)) return;
  rd_sync *s = rd_sync_get(addr, 0);
  if (!s) return;
  read_aside_by(s, r);
  rd_vc_join(&r->vc, &s->vc);
  rd_sync_unlock(s);
}

/* The object's writers' (or readers') clock joins the thread's; the thread
 * moves on to a new epoch. */
static void release(uintptr_t addr, int as_reader) {
  rd_thread *r;
  if (!active(&r)) return;
  rd_sync *s = rd_sync_get(addr, 1);
  released_into(s, r, as_reader);
  rd_vc_join(as_reader ? &s->rvc : &s->vc, &r->vc);
  rd_sync_unlock(s);
  rd_tick(r);
}

void rd_lock_acquired(uintptr_t m, int as_reader, int with_readers, uintptr_t pc) {
  rd_thread *r;
  uint64_t uid = 0;
  uint32_t ctx = 0;
  if (active(&r)) {
    rd_sync *s = rd_sync_get(m, 1);
    seen_by(s, r);
    if (!as_reader) take_back(s, r);
    rd_vc_join(&r->vc, &s->vc);
    if (with_readers) rd_vc_join(&r->vc, &s->rvc);
    const int first = !s->creation_known;
    s->creation_known = 1;
    uid = s->uid;
    rd_sync_unlock(s);
    /* (first seen at a lock: a static initialiser; the object again, as
     * its stripe's lock orders it after interning's locks) */
    uint32_t h;
    if (first && creation_ctx(&h) && (s = rd_sync_get(m, 0))) {
      if (s->uid == uid) creation_is(s, h, pc);
      rd_sync_unlock(s);
    }
    /* where it was taken, for a lock-order report that names it as held
     * (the context before the held set changes: the one the accesses
     * before the lock interned already) */
    dc_thread *t = dc_guard_owner();
    if (dc_opt.detect_deadlocks && t && !t->in_runtime) ctx = rd_ctx_handle(t);
  }
  rd_mutex_locked(m | (as_reader ? 1 : 0), uid, ctx, pc);
}

void rd_lock_created(uintptr_t m, uintptr_t pc) {
  rd_sync_forget(m, 1);
  rd_thread *r;
  if (!active(&r)) return;
  uint32_t h;
  const int known = creation_ctx(&h);
  rd_sync *s = rd_sync_get(m, 1);
  s->creation_known = 1;
  if (known) creation_is(s, h, pc);
  rd_sync_unlock(s);
}

void rd_release(uintptr_t addr) { release(addr, 0); }
void rd_release_read(uintptr_t addr) { release(addr, 1); }

/* The set of held mutexes is part of every access's site (reports name the
 * mutexes both accesses held): a change gives the thread a new set, and its
 * next access looks its context's entry up again (the handle is the same,
 * the entry is not: site_ctx and site_e no longer hold for it). */
static void lockset_changed(rd_thread *r, uintptr_t addr, int unlock, uint32_t n_before) {
  rd_lockset_step(r, addr, unlock, n_before);
  r->site_ctx = 0;
  r->site_e = 0;
  dc_thread *t = dc_self();
  if (t) t->ctx_handle = 0;
}

/* (The held set of a thread past its end is not kept: its state is
 * dc_dead_thread, one for all of them.) */
void rd_mutex_locked(uintptr_t addr, uint64_t uid, uint32_t ctx, uintptr_t pc) {
  if (dc_unlikely(dc_tls == &dc_dead_thread)) return;
  rd_thread *r = rd_cur();
  const uint32_t n0 = r->nheld;
  if (n0 < 16) r->held[n0] = addr, r->held_at[n0] = (struct rd_held){uid, ctx, pc};
  r->nheld++;
  lockset_changed(r, addr, 0, n0);
}

void rd_mutex_unlocked(uintptr_t addr) {
  if (dc_unlikely(dc_tls == &dc_dead_thread)) return;
  rd_thread *r = rd_cur();
  const uint32_t n0 = r->nheld, n = n0 < 16 ? n0 : 16;
  uint32_t i = n;
  while (i > 0 && r->held[i - 1] != addr) i--;
  if (i > 0) { /* the innermost hold of addr goes */
    for (uint32_t j = i - 1; j + 1 < n; j++) {
      r->held[j] = r->held[j + 1];
      r->held_at[j] = r->held_at[j + 1];
    }
    r->nheld--;
  } else if (r->nheld > 16) {
    r->nheld--;
  }
  lockset_changed(r, addr, 1, n0);
}

/* Fork: with every stripe held (common.c), take or drop the pool's lock
 * (the objects' locks: obj_adopt). */
static void sync_objects_fork(int lock) {
  if (lock)
    dc_lock(&pool_lock);
  else
    dc_unlock(&pool_lock);
}

__attribute__((constructor)) static void sync_locks(void) {
  dc_atfork_register_inner(DC_RANK_SYNC, &stripes[0].lock, NSTRIPES, sizeof(stripe),
                           sync_objects_fork);
}
