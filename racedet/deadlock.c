/* deadlock.c: the lock-order graph, and lock-order inversions (potential
 * deadlocks) reported with the full calling context of every acquisition.
 *
 * A thread that blocks for lock B while it holds lock A adds the edge
 * A -> B; a cycle of edges is a way the threads can wait for each other
 * forever, even if this run never did.  Locks are named by their object
 * (rd_sync.uid), not their address: an object goes when its memory is
 * freed, or it is destroyed or initialised again, so a lock made after
 * that at the old address is a new node (ThreadSanitizer names locks by
 * address).  A C++ std::mutex in a reused stack slot shows none of these
 * and stays one node; libstdc++'s try_lock/2.cc, where TSan sees a cycle
 * through such slots, is one thread's, which the first rule below drops.
 *
 * Each edge keeps the ways it was taken (instances: thread, held set,
 * modes, contexts).  A cycle is reported only if one instance per edge can
 * be chosen so that the threads could all be there at once, waiting:
 *  - the instances are of different threads (a thread waits for one lock
 *    at a time: a cycle that one thread made alone, over time, cannot
 *    block, which is ThreadSanitizer's most common false report);
 *  - each waits for a lock the next one holds in a conflicting mode (a
 *    read lock wanted where a read lock is held does not block);
 *  - no two of them held one lock at the same time, unless both held it
 *    for reading: a lock that both held (a "gate" taken before either of
 *    the cycle's) keeps them from both being there.
 * The search runs when an edge gains an instance, with that instance as
 * its edge's, unless the graph has no cycle and the instance makes none
 * (the nodes' order, below); cycles of up to RD_DL_MAX edges.  A thread
 * remembers the edges it added (dl_seen), so a lock taken under others
 * again and again costs a hash per held lock and no global lock. */
#include "racedet.h"

#define DL_INST 6      /* instances kept per edge */
#define DL_STEPS 20000 /* edges looked at per search, at most */

/* An instance: 32 bytes, the modes in the pcs' top bits (a user-space pc
 * leaves it clear), so that an edge keeps two of them in its 128-byte
 * block. */
typedef struct dl_inst {
  uint32_t thread, lockset; /* serial; held set (rd_lockset_now) */
  uint32_t ctx, from_ctx;   /* where `to` was wanted; where `from` was taken */
  uint64_t pc : 63, to_read : 1;
  uint64_t from_pc : 63, from_read : 1;
} dl_inst;
_Static_assert(sizeof(dl_inst) == 32, "two instances in an edge");

/* ------------------------------------------------------------ the graph
 * Nodes and edges are found through open-addressed tables of (hash, item)
 * slots, probed linearly, at most 3/4 full, doubling beyond: a lookup that
 * misses reads its slots' line or two and no item.  Until 2026-11-30 they
 * were chained tables of 4,096 buckets each, and a program that locks down
 * a list hand over hand (an edge per pair of nodes) walked chains as long
 * as the list over 4,096: two threads down 400,000 nodes took 25 s against
 * clang TSan's 2.0, 3.4 s with chained tables that doubled; their bucket
 * and chain misses (an edge's lookup, and two nodes' for a new edge) were
 * the largest part of the graph's own time, under its lock.  An edge keeps
 * two instances in its block (a lock coupling's two threads); from the
 * third on all are in a block of their own, for 4, then DL_INST (128 and
 * 256 bytes).  Until 2026-12-01 it kept one, and the second thread's
 * instance took a second 128-byte block for each edge.  With both changes
 * (2026-12-01, bench/micro/many_locks.sh coupling, six alternating runs)
 * the peak RSS went from 322 to 296 MB (clang TSan 313), the CPU time
 * from 4.77-5.20 to 4.04-4.67 s and the wall time by 5% (medians; the
 * runs' spread is 10%). */
typedef struct dl_slot {
  uint64_t hash;
  void *item; /* 0: empty */
} dl_slot;

typedef struct dl_table {
  dl_slot *s;
  uint32_t bits; /* 2^bits slots (0: none yet) */
  uint32_t n;
} dl_table;

typedef struct dl_edge {
  uint64_t from, to; /* lock objects */
  uintptr_t from_addr, to_addr;
  struct dl_edge *out_next; /* the from node's edges */
  dl_inst *more;            /* past two instances: all of them */
  uint32_t n, cap;          /* instances; room in more */
  dl_inst first[2];
  uint8_t backward;         /* made against the nodes' order (below) */
} dl_edge;

/* A node: its lock's uid is its slot's hash, pair_hash(uid, 0), which is
 * uid times an odd number, one to one (node_is). */
typedef struct dl_node {
  dl_edge *out;
  int64_t ord; /* its place in the nodes' order (below) */
} dl_node;
_Static_assert(sizeof(dl_edge) <= 128 && sizeof(dl_node) <= 16, "dc_alloc's classes");

static dl_table nodes, edges;
static _Atomic int graph_lock;

/* The nodes' order.  A cycle of edges has an edge from a node to one not
 * above it in any order of the nodes, so while every edge goes up in this
 * one (backward_edges 0) the graph has no cycle, and an edge or instance
 * added that goes up too makes none: no search.  A program whose locks are
 * always taken in one order (a lock hierarchy; a list locked hand over hand
 * in one direction) never searches; until 2026-12-02 every new instance
 * searched from its `to` lock, up to RD_DL_MAX edges deep and 20,000
 * edges: 400,000 objects made in turn, each locked before a registry's
 * lock that has 1,024 locks under it, took 2.8-3.8 s, now 0.31 s
 * (bench/micro/lock_order.sh hub; clang TSan 1.5 s).  The order is made as
 * the graph grows, with no reordering: a new node goes above every other
 * when it is an edge's `to`, below every other when it is its `from` (it
 * has no edges yet, so each of its edges goes up); an edge between two
 * nodes that are there already goes up or not as they stand, except that
 * its `to` moves to the top if it has no edges out (an edge into it from
 * anywhere then goes up).  An edge against the order is counted until it
 * goes; while any is there, every new instance searches, as before. */
static int64_t ord_top, ord_bottom;
static uint64_t backward_edges;
/* made so far, for the stats option (rd_dl_stats) */
static uint64_t edges_made, backward_made, searches;

void rd_dl_stats(uint64_t *made, uint64_t *backward, uint64_t *searched) {
  dc_lock(&graph_lock);
  *made = edges_made, *backward = backward_made, *searched = searches;
  dc_unlock(&graph_lock);
}

static uint64_t pair_hash(uint64_t a, uint64_t b) {
  return (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full);
}

static inline uint64_t mask(const dl_table *t) { return ((uint64_t)1 << t->bits) - 1; }
static inline uint64_t home(const dl_table *t, uint64_t h) { return h >> (64 - t->bits); }

/* The slot of the item with hash h that eq(item, key) accepts, or the
 * empty slot where the probe ended; 0 with no slots yet. */
static dl_slot *probe(const dl_table *t, uint64_t h, int (*eq)(const void *, const void *),
                      const void *key) {
  if (!t->bits) return 0;
  for (uint64_t i = home(t, h);; i = (i + 1) & mask(t)) {
    dl_slot *x = &t->s[i];
    if (!x->item || (x->hash == h && eq(x->item, key))) return x;
  }
}

/* Slot x into the first empty slot of its probe (t has room). */
static void place(dl_table *t, dl_slot x) {
  uint64_t i = home(t, x.hash);
  while (t->s[i].item) i = (i + 1) & mask(t);
  t->s[i] = x;
}

static void table_add(dl_table *t, void *item, uint64_t h) {
  if (!t->bits || t->n + 1 > (3ull << t->bits) / 4) {
    const uint32_t bits = t->bits ? t->bits + 1 : 10;
    dl_table g = {dc_alloc(sizeof(dl_slot) << bits), bits, t->n};
    for (uint64_t i = 0; t->bits && i <= mask(t); i++)
      if (t->s[i].item) place(&g, t->s[i]);
    if (t->bits) dc_free(t->s, sizeof(dl_slot) << t->bits);
    *t = g;
  }
  place(t, (dl_slot){h, item});
  t->n++;
}

/* The item out of its slot (hash h), and the slots after it moved back
 * where their probes would miss the hole (no tombstones). */
static void table_del(dl_table *t, const void *item, uint64_t h) {
  uint64_t i = home(t, h);
  while (t->s[i].item != item) i = (i + 1) & mask(t);
  for (uint64_t j = (i + 1) & mask(t); t->s[j].item; j = (j + 1) & mask(t)) {
    const uint64_t k = home(t, t->s[j].hash); /* j's probe covers k .. j */
    if (((j - k) & mask(t)) >= ((j - i) & mask(t))) { /* ... and the hole */
      t->s[i] = t->s[j];
      i = j;
    }
  }
  t->s[i] = (dl_slot){0, 0};
  t->n--;
}

static inline dl_inst *inst(dl_edge *e) { return e->more ? e->more : e->first; }

/* (the slot's hash is the node's uid, one to one: nothing left to compare,
 * and a node looked up only to see that it is there is not read) */
static int node_is(const void *item, const void *key) {
  (void)item, (void)key;
  return 1;
}
static int edge_is(const void *item, const void *key) {
  const dl_edge *e = item;
  const uint64_t *k = key;
  return e->from == k[0] && e->to == k[1];
}

/* The node of lock uid, else (create) a new one, with *made set; else 0. */
static dl_node *node_get(uint64_t uid, int create, int *made) {
  const uint64_t h = pair_hash(uid, 0);
  dl_slot *x = probe(&nodes, h, node_is, 0);
  if (x && x->item) return x->item;
  if (!create) return 0;
  dl_node *n = dc_alloc(sizeof *n);
  *n = (dl_node){0};
  table_add(&nodes, n, h);
  *made = 1;
  return n;
}

static void edge_free(dl_edge *e) {
  backward_edges -= e->backward;
  table_del(&edges, e, pair_hash(e->from, e->to));
  if (e->more) dc_free(e->more, e->cap * sizeof(dl_inst));
  dc_free(e, sizeof *e);
}

/* The edge from -> to, made if need be (*fnew set if its `from` node was
 * made too). */
static dl_edge *edge_get(uint64_t from, uintptr_t from_addr, uint64_t to, uintptr_t to_addr,
                         int *fnew) {
  const uint64_t h = pair_hash(from, to), key[2] = {from, to};
  dl_slot *x = probe(&edges, h, edge_is, key);
  if (x && x->item) return x->item;
  int tnew = 0;
  dl_node *f = node_get(from, 1, fnew), *t = node_get(to, 1, &tnew);
  if (*fnew) f->ord = tnew ? ++ord_top : --ord_bottom; /* (both new: t goes above it) */
  if (tnew || (!*fnew && f->ord >= t->ord && !t->out)) t->ord = ++ord_top;
  dl_edge *e = dc_alloc(sizeof *e);
  *e = (dl_edge){.from = from, .to = to, .from_addr = from_addr, .to_addr = to_addr,
                 .out_next = f->out, .backward = f->ord >= t->ord};
  backward_edges += e->backward;
  edges_made++;
  backward_made += e->backward;
  f->out = e;
  table_add(&edges, e, h);
  return e;
}

/* The edge *pe (in its from node's list), if its `to` lock is gone: dropped
 * from the list and freed.  Returns whether it was. */
static int dropped_if_gone(dl_edge **pe) {
  dl_edge *e = *pe;
  if (node_get(e->to, 0, 0)) return 0;
  *pe = e->out_next;
  edge_free(e);
  return 1;
}

/* A node knows its edges out, not those in: when its lock goes, those stay
 * until a search meets them (dfs) or a sweep does.  A search seldom meets
 * them: a lock taken under a global one (a registry's, an allocator's) and
 * destroyed with its object leaves the global lock an edge to it, and no
 * search starts there.  So a program that made and destroyed objects with
 * a mutex each, each locked under a global mutex, grew by an edge (134
 * bytes) an object for good: 269 MB after 2 million, against clang TSan's
 * flat 19 MB, and 165 MB and 2.18 s after 200,000 objects with five kinds
 * of lock each (bench/micro/churn.c's locks), against 2.7 MB and 0.44 s
 * with the sweep (clang TSan 0.37 s; tests/racedet/lock_churn_memory.c).
 * The sweep goes over every node's edges out once as many locks went as
 * there are nodes left (at least 1024): its cost, the table's slots and
 * the edges, is a few steps per lock gone, on average, plus the graph's
 * mean degree. */
static uint64_t forgotten; /* nodes gone since the last sweep */
static void sweep(void) {
  for (uint64_t i = 0; nodes.bits && i <= mask(&nodes); i++) {
    dl_node *n = nodes.s[i].item;
    for (dl_edge **pe = n ? &n->out : 0; pe && *pe;)
      if (!dropped_if_gone(pe)) pe = &(*pe)->out_next;
  }
  forgotten = 0;
}

void rd_dl_forget(uint64_t uid) {
  dc_lock(&graph_lock);
  dl_node *n = node_get(uid, 0, 0);
  if (n) {
    table_del(&nodes, n, pair_hash(uid, 0));
    for (dl_edge *e = n->out, *next; e; e = next) {
      next = e->out_next;
      edge_free(e);
    }
    dc_free(n, sizeof *n);
    if (++forgotten >= (nodes.n > 1024 ? nodes.n : 1024)) sweep();
  }
  dc_unlock(&graph_lock);
}

/* ------------------------------------------------------------ the search */
typedef struct search {
  dl_edge *path[RD_DL_MAX]; /* path[0]: the edge that gained an instance */
  const dl_inst *pick[RD_DL_MAX];
  int len;
  uint32_t steps;
} search;

/* Does the thread of a, waiting for its `to`, block on b's holding of it? */
static int blocks(const dl_inst *a, const dl_inst *b) { return !(a->to_read && b->from_read); }

/* Could the threads of a and b be at these points at the same time?  Not
 * if both held one lock then, unless both read-held it. */
static int together(const dl_inst *a, const dl_inst *b) {
  rd_lockset la, lb;
  if (!rd_lockset_read(a->lockset, &la) || !rd_lockset_read(b->lockset, &lb)) return 1;
  for (uint32_t i = 0; i < la.n; i++)
    for (uint32_t j = 0; j < lb.n; j++)
      if ((la.a[i] | 1) == (lb.a[j] | 1) && !(la.a[i] & lb.a[j] & 1)) return 0;
  return 1;
}

/* An instance for each edge from i on, by backtracking over the rules
 * above; s->pick[0 .. i-1] are chosen. */
static int assign(search *s, int i) {
  if (i == s->len) return blocks(s->pick[i - 1], s->pick[0]);
  dl_edge *e = s->path[i];
  for (uint32_t k = 0; k < e->n; k++) {
    const dl_inst *x = &inst(e)[k];
    if (!blocks(s->pick[i - 1], x)) continue;
    int ok = 1;
    for (int j = 0; j < i && ok; j++) ok = x->thread != s->pick[j]->thread && together(x, s->pick[j]);
    if (!ok) continue;
    s->pick[i] = x;
    if (assign(s, i + 1)) return 1;
  }
  return 0;
}

static int on_path(const search *s, uint64_t uid) {
  for (int i = 0; i < s->len; i++)
    if (s->path[i]->from == uid) return 1;
  return 0;
}

/* Paths from lock `at` back to the first edge's `from` that close a cycle
 * the threads can deadlock in.  Edges into locks that are gone are
 * dropped on the way. */
static int dfs(search *s, uint64_t at) {
  dl_node *nd = node_get(at, 0, 0);
  if (!nd) return 0;
  const uint64_t goal = s->path[0]->from;
  for (dl_edge **pe = &nd->out; *pe;) {
    dl_edge *e = *pe;
    if (++s->steps > DL_STEPS) return 0;
    if (dropped_if_gone(pe)) continue;
    s->path[s->len++] = e;
    if (e->to == goal) {
      if (assign(s, 1)) return 1;
    } else if (s->len < RD_DL_MAX && !on_path(s, e->to)) {
      if (dfs(s, e->to)) return 1;
    }
    s->len--;
    pe = &e->out_next;
  }
  return 0;
}

/* Add instance x to edge from -> to; a cycle it makes possible goes to out
 * (returns its length, else 0). */
static int add(uint64_t from, uintptr_t from_addr, uint64_t to, uintptr_t to_addr,
               const dl_inst *x, rd_dl_edge *out, int *fnew) {
  dl_edge *e = edge_get(from, from_addr, to, to_addr, fnew);
  for (uint32_t k = 0; k < e->n; k++) {
    const dl_inst *y = &inst(e)[k];
    if (y->thread == x->thread && y->lockset == x->lockset && y->from_read == x->from_read &&
        y->to_read == x->to_read)
      return 0; /* nothing new for the rules */
  }
  if (e->n == DL_INST) return 0;
  if (e->n == (e->more ? e->cap : 2)) { /* room for 2, then 4, then DL_INST */
    const uint32_t cap = e->n * 2 < DL_INST ? e->n * 2 : DL_INST;
    dl_inst *more = dc_alloc(cap * sizeof(dl_inst));
    for (uint32_t k = 0; k < e->n; k++) more[k] = inst(e)[k];
    if (e->more) dc_free(e->more, e->cap * sizeof(dl_inst));
    e->more = more;
    e->cap = cap;
  }
  inst(e)[e->n] = *x;
  search s = {.path = {e}, .pick = {&inst(e)[e->n]}, .len = 1};
  e->n++;
  if (!backward_edges) return 0; /* (none: no cycle anywhere) */
  searches++;
  if (!dfs(&s, to)) return 0;
  for (int i = 0; i < s.len; i++) {
    const dl_edge *c = s.path[i];
    const dl_inst *p = s.pick[i];
    out[i] = (rd_dl_edge){c->from_addr, c->to_addr, p->from_read, p->to_read, p->thread,
                          p->ctx,       p->from_ctx, p->pc,       p->from_pc};
  }
  return s.len;
}

/* Lock uid (at addr), held, became a node as an edge's `from`: its object
 * is marked, as a wanted lock's is (rd_lock_wanted), so that the node and
 * its edges go when the object does (sync.c: rd_dl_forget).  Until
 * 2026-12-02 only wanted locks were: a lock only ever taken before others
 * (an object's, then a global one) kept its node and edge for good, 260
 * bytes a lock (400,000 made, each locked and destroyed, in turn: 105 MB;
 * clang TSan 19 MB).  An object gone meanwhile (destroyed by another
 * thread while this one held it) takes its node with it here. */
static void from_node_made(uintptr_t addr, uint64_t uid) {
  rd_sync *s = rd_sync_get(addr, 0);
  const int alive = s && s->uid == uid;
  if (alive) s->in_graph = 1;
  if (s) rd_sync_unlock(s);
  if (!alive) rd_dl_forget(uid);
}

void rd_lock_wanted(uintptr_t m, int type, int as_reader, int relock, uintptr_t pc) {
  dc_thread *t = dc_guard_owner();
  if (!t || t->in_runtime || !t->rd.nheld) return;
  /* held already: a double lock, or a recursive one, which cannot wait
   * for others (together() would drop its cycles too) */
  if (rd_relock_check(m, type, relock, pc) || !dc_opt.detect_deadlocks) return;
  rd_thread *r = &t->rd;
  const uint32_t n = r->nheld < 16 ? r->nheld : 16;
  /* (with report_mutex_bugs=0 the check above did not look) */
  if (r->ignore_sync || r->disabled || rd_held_find(r, m) >= 0) return;
  rd_sync *so = rd_sync_get(m, 1);
  const uint64_t to = so->uid;
  so->in_graph = 1;
  rd_sync_unlock(so);
  const uint64_t hs = dc_hash(r->held, n * sizeof r->held[0]);
  dl_inst x = {.thread = t->serial, .pc = pc, .to_read = (uint8_t)!!as_reader};
  int made = 0;
  for (uint32_t i = 0; i < n; i++) {
    const uint64_t from = r->held_at[i].uid;
    if (!from) continue;
    const uint64_t key = ((from * 0x9E3779B97F4A7C15ull) ^ (to * 0xC2B2AE3D27D4EB4Full) ^ hs ^
                          (uint64_t)as_reader) | 1;
    uint64_t *seen = &r->dl_seen[key >> 59];
    if (*seen == key) continue;
    *seen = key;
    if (!made) { /* this acquisition's context and held set, once */
      x.ctx = rd_ctx_handle(t);
      x.lockset = rd_lockset_now(r);
      made = 1;
    }
    x.from_ctx = r->held_at[i].ctx;
    x.from_pc = r->held_at[i].pc;
    x.from_read = (uint8_t)(r->held[i] & 1);
    rd_dl_edge cycle[RD_DL_MAX];
    int fnew = 0;
    dc_lock(&graph_lock);
    const int len = add(from, r->held[i] & ~(uintptr_t)1, to, m, &x, cycle, &fnew);
    dc_unlock(&graph_lock);
    if (fnew) from_node_made(r->held[i] & ~(uintptr_t)1, from);
    if (len) rd_report_deadlock(cycle, len);
  }
}

__attribute__((constructor)) static void graph_locks(void) {
  dc_atfork_register(DC_RANK_LOCKGRAPH, &graph_lock, 1, 0);
}
