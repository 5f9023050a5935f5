/* sync.c: synchronisation objects (mutexes, condition variables, atomics'
 * release clocks, annotations) in a hash table keyed by address.  Buckets
 * have their own lock; an object's clock has its own. */

#include "racedet.h"

/* A bucket's objects are on one chain (head), or, once it holds more than
 * CHAIN_MAX, on chains[nchains] chosen by other bits of the address's hash,
 * doubled under the bucket's own lock whenever they average CHAIN_MAX: the
 * buckets' locks (taken all at once at every fork) stay 65,536, and a
 * lookup walks a few objects however many there are.  With one chain per
 * bucket, LevelDB's issue178_test, whose skiplists' atomic pointers are 2.2
 * million objects at once (34 a chain), ran for more than 15 minutes, nearly
 * all of it walking chains in frees (drop_range), where clang's TSan takes
 * 18-26 s; with the chains, about 60 s (docs/architecture.md). */
#define NBUCKETS (1u << 16)
#define CHAIN_MAX 4u
typedef struct bucket {
  _Atomic int lock;
  _Atomic uint32_t made; /* objects made in it so far (rd_sync_find) */
  uint32_t n, nchains;   /* objects; chains (0: head alone) */
  rd_sync *head;
  rd_sync **chains;
} bucket;
static bucket buckets[NBUCKETS];

static bucket *bucket_of(uintptr_t addr) {
  return &buckets[(dc_hash_word(addr) >> 20) & (NBUCKETS - 1)];
}

/* The chain of addr in its bucket b (b's lock held). */
static rd_sync **chain_of(bucket *b, uintptr_t addr) {
  return b->nchains ? &b->chains[(uint32_t)(dc_hash_word(addr) >> 40) & (b->nchains - 1)]
                    : &b->head;
}
static rd_sync **chain_at(bucket *b, uint32_t i) { return b->nchains ? &b->chains[i] : &b->head; }
static uint32_t chain_count(const bucket *b) { return b->nchains ? b->nchains : 1; }

/* Twice the chains, the objects moved over (b's lock held). */
static void chains_grow(bucket *b) {
  const uint32_t old = chain_count(b), n = b->nchains ? 2 * b->nchains : 2 * CHAIN_MAX;
  rd_sync **c = dc_alloc((size_t)n * sizeof *c);
  for (uint32_t i = 0; i < old; i++)
    for (rd_sync *s = *chain_at(b, i), *next; s; s = next) {
      next = s->next;
      rd_sync **to = &c[(uint32_t)(dc_hash_word(s->addr) >> 40) & (n - 1)];
      s->next = *to;
      *to = s;
    }
  if (b->nchains) dc_free(b->chains, (size_t)b->nchains * sizeof *b->chains);
  b->head = 0;
  b->chains = c;
  b->nchains = n;
}

/* How many objects each 64-byte line may hold, as counts by line: a page's
 * 64 lines have their 64 counts in one cache line, the page's place among
 * LINE_PAGES chosen by a hash of its number (pages that share a place add
 * up).  A count goes up when an object is made and down when it goes; one
 * that reaches 255 stays there.  A free of memory whose lines count none
 * (nearly every free) skips the lookups at each of its 4-byte steps.
 * Before, a bit per hashed page, set for good: in the LevelDB workload,
 * whose skiplist nodes each hold atomic pointers, nearly every heap page
 * had its bit set, and the lookups of freed strings were 7% of its
 * instructions. */
#define LINE_PAGES (1u << 14)
static _Atomic uint8_t line_count[LINE_PAGES * 64];
static inline _Atomic uint8_t *line_of(uintptr_t addr) {
  const uint32_t page = (uint32_t)(((addr >> 12) * 0x9E3779B97F4A7C15ull) >> 50);
  return &line_count[page * 64 + ((addr >> 6) & 63)];
}
/* A count's step: up (+1) or down (-1), but never past 255 nor from it. */
static void line_step(uintptr_t addr, int up) {
  _Atomic uint8_t *c = line_of(addr);
  uint8_t v = atomic_load_explicit(c, memory_order_relaxed);
  while (v != 255 && !atomic_compare_exchange_weak_explicit(c, &v, (uint8_t)(v + (up ? 1 : -1)),
                                                             memory_order_relaxed,
                                                             memory_order_relaxed)) {
  }
}

static _Atomic uint64_t last_uid;

static rd_sync *in_bucket(bucket *b, uintptr_t addr) {
  rd_sync *s = *chain_of(b, addr);
  while (s && s->addr != addr) s = s->next;
  return s;
}

/* An atomic load's lookup, before the load: the object, locked, or none,
 * and then *none for rd_sync_none_since after the load.  An object made in
 * between (its maker raised its line's count and its bucket's made before
 * its store, and a release fence came between, rd_sync_get) may have been
 * made by the store the load read: the load must then be done again, with
 * the object locked, or it would miss that store's release (a false race:
 * the first store to a flag that a reader already spins on).  *none: 1 when
 * the line counted no object (a load, no lock), else the bucket's made
 * count, shifted up one. */
rd_sync *rd_sync_find(uintptr_t addr, uint64_t *none) {
  if (!atomic_load_explicit(line_of(addr), memory_order_acquire)) {
    *none = 1;
    return 0;
  }
  bucket *b = bucket_of(addr);
  dc_lock(&b->lock);
  rd_sync *s = in_bucket(b, addr);
  if (s)
    dc_lock(&s->lock);
  else
    *none = (uint64_t)atomic_load_explicit(&b->made, memory_order_relaxed) << 1;
  dc_unlock(&b->lock);
  return s;
}

/* After the load (and an acquire fence): no object made at addr since
 * rd_sync_find found none? */
int rd_sync_none_since(uintptr_t addr, uint64_t none) {
  if (none & 1) return !atomic_load_explicit(line_of(addr), memory_order_relaxed);
  return ((uint64_t)atomic_load_explicit(&bucket_of(addr)->made, memory_order_relaxed) << 1) ==
         none;
}

rd_sync *rd_sync_get(uintptr_t addr, int create) {
  uint64_t none; /* (an acquire's lookup: no load to do again) */
  if (!create) return rd_sync_find(addr, &none);
  bucket *b = bucket_of(addr);
  dc_lock(&b->lock);
  rd_sync *s = in_bucket(b, addr);
  if (!s) {
    s = dc_alloc(sizeof *s);
    s->addr = addr;
    s->uid = atomic_fetch_add_explicit(&last_uid, 1, memory_order_relaxed) + 1;
    line_step(addr, 1);
    atomic_store_explicit(&b->made, atomic_load_explicit(&b->made, memory_order_relaxed) + 1,
                          memory_order_relaxed);
    rd_sync **chain = chain_of(b, addr);
    s->next = *chain;
    *chain = s;
    if (++b->n > CHAIN_MAX * chain_count(b)) chains_grow(b);
  }
  dc_lock(&s->lock);
  dc_unlock(&b->lock);
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

/* Where each lock was created, for reports: address -> a: context handle,
 * b: pc.  A leaf lock: reports read it holding other locks (an atomic
 * operation's object), so it is never held while taking another. */
static rd_umap created;
static _Atomic int created_lock;

static void creation_del(uintptr_t m) {
  dc_lock(&created_lock);
  rd_umap_ent *e = rd_umap_find(&created, m, 0);
  if (e) rd_umap_del(&created, e);
  dc_unlock(&created_lock);
}

/* The current context is where lock m was created (or first seen). */
static void creation_here(uintptr_t m, uintptr_t pc) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return;
  uint32_t h = rd_ctx_handle(t); /* before the lock: interning takes others */
  dc_lock(&created_lock);
  rd_umap_ent *e = rd_umap_find(&created, m, 1);
  e->a = h;
  e->b = pc;
  dc_unlock(&created_lock);
}

int rd_lock_creation(uintptr_t m, uint32_t *ctx, uintptr_t *pc) {
  dc_lock(&created_lock);
  rd_umap_ent *e = rd_umap_find(&created, m, 0);
  int found = e != NULL;
  if (found) *ctx = (uint32_t)e->a, *pc = (uintptr_t)e->b;
  dc_unlock(&created_lock);
  return found;
}

/* Drop the objects of one bucket whose address lies in [lo, lo + size). */
static void drop_chain(bucket *b, rd_sync **pp, uintptr_t lo, uintptr_t size) {
  while (*pp) {
    rd_sync *s = *pp;
    if (s->addr - lo < size) {
      *pp = s->next;
      b->n--;
      if (s->creation_known) creation_del(s->addr);
      /* wait for a thread that still holds it (it got it before the
       * bucket's lock was ours, and will not touch it after) */
      dc_lock(&s->lock);
      dc_unlock(&s->lock);
      line_step(s->addr, 0);
      if (s->in_graph) rd_dl_forget(s->uid);
      rd_vc_free(&s->vc);
      rd_vc_free(&s->rvc);
      dc_free(s, sizeof *s);
    } else {
      pp = &s->next;
    }
  }
}

/* b's objects in [lo, lo + size): of one chain for one address (size 4,
 * objects keyed by their exact address), else of every chain. */
static void drop_range(bucket *b, uintptr_t lo, uintptr_t size) {
  if (!__atomic_load_n(&b->n, __ATOMIC_RELAXED)) return; /* (a peek: nothing to drop) */
  dc_lock(&b->lock);
  const uint32_t one = size <= 4, n = one ? 1 : chain_count(b);
  for (uint32_t i = 0; i < n; i++)
    drop_chain(b, one ? chain_of(b, lo) : chain_at(b, i), lo, size);
  dc_unlock(&b->lock);
}

/* Memory is gone (free, munmap): its objects go too, so a later object at
 * the same address starts without history.  Objects are keyed by their exact
 * address: small ranges look up every 4-byte step (mutexes, semaphores and
 * atomics of 4 bytes or more are at least that aligned), large ones scan
 * every bucket. */
void rd_sync_forget(uintptr_t addr, uintptr_t size) {
  if (size > (1u << 20)) {
    for (uint32_t i = 0; i < NBUCKETS; i++) drop_range(&buckets[i], addr, size);
    return;
  }
  uintptr_t end = addr + size;
  for (uintptr_t a = addr & ~(uintptr_t)3; a < end;) {
    uintptr_t line_end = (a | 63) + 1, stop = end < line_end ? end : line_end;
    if (atomic_load_explicit(line_of(a), memory_order_relaxed))
      for (; a < stop; a += 4) drop_range(bucket_of(a), a, 4);
    a = (stop + 3) & ~(uintptr_t)3;
  }
}

static int active(rd_thread **r) {
  dc_thread *t = dc_self();
  if (!t) t = dc_cur();
  *r = &t->rd;
  return !(*r)->ignore_sync && !(*r)->disabled;
}

/* ------------------------------------------------------------ releases taken back
 * A release starts a new epoch, and the thread's cells from before it no
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
 * The epoch itself goes on (cells stored since carry the new one, and
 * clocks only grow).  Releases are taken back last first: taking one back
 * makes the one before it the last again.
 *
 * Anything else that reads the lock's clock (another thread's acquire of
 * any kind, an atomic operation on its address) or writes it clears
 * rel_live first.  What remains is a reader of the clock that comes after
 * the release was taken back and before the next one, while the releaser
 * holds the lock: a program that acquires a held mutex by annotation
 * (__tsan_acquire) or reads its word atomically.  It gets the released
 * epoch, and may then miss a race with an access of the holder that an
 * older cell covered. */
static inline void seen_by(rd_sync *s, rd_thread *r) {
  if (s->rel_serial != rd_owner(r)->serial) s->rel_live = 0;
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
  if (!s->rel_live || s->rel_serial != rd_owner(r)->serial || r->pubs != s->rel_pubs + 1) return;
  s->rel_live = 0;
  r->pubs = s->rel_pubs;
  r->floorw = s->rel_floorw;
  r->taken_back++;
}

void rd_sync_touched(rd_sync *s) { s->rel_live = 0; }

/* The thread's clock joins the object's (writers') clock. */
void rd_acquire(uintptr_t addr) {
  rd_thread *r;
  if (!active(&r)) return;
  rd_sync *s = rd_sync_get(addr, 0);
  if (!s) return;
  seen_by(s, r);
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
    if (first) creation_here(m, pc);
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
  rd_sync *s = rd_sync_get(m, 1);
  s->creation_known = 1;
  rd_sync_unlock(s);
  creation_here(m, pc);
}

void rd_release(uintptr_t addr) { release(addr, 0); }
void rd_release_read(uintptr_t addr) { release(addr, 1); }

/* The set of held mutexes is part of every access's context (reports name
 * the mutexes both accesses held): a change gives the thread a new set and
 * a new context handle. */
static void lockset_changed(rd_thread *r, uintptr_t addr, int unlock, uint32_t n_before) {
  rd_lockset_step(r, addr, unlock, n_before);
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

/* Fork: with every bucket held (common.c), take or drop every object's lock. */
static void sync_objects_fork(int lock) {
  for (uint32_t i = 0; i < NBUCKETS; i++)
    for (uint32_t c = 0; c < chain_count(&buckets[i]); c++)
      for (rd_sync *s = *chain_at(&buckets[i], c); s; s = s->next) {
        if (lock)
          dc_lock(&s->lock);
        else
          dc_unlock(&s->lock);
      }
}

__attribute__((constructor)) static void sync_locks(void) {
  dc_atfork_register_inner(DC_RANK_SYNC, &buckets[0].lock, NBUCKETS, sizeof(bucket),
                           sync_objects_fork);
  dc_atfork_register(DC_RANK_CREATED, &created_lock, 1, 0);
}
