/* ccstack.c: the persistent ccStack.  An entry is an immutable, hash-consed
 * node <id, edge, count, parent>, so a thread's whole ccStack is one 32-bit
 * index, a snapshot is O(1), and equal stacks are equal indices.
 *
 * Recursion compression.  Consecutive pushes of the same edge with the same
 * id are one entry with a count.  Why that is sound: an entry <id, edge, k>
 * stands for k pushes; the segment ended by push 1 runs from the start named
 * by the entry below to caller(edge) with this id, and the segments ended by
 * pushes 2..k all run from callee(edge) to caller(edge) with this id, so they
 * are the same path (a segment's id is unique given its start and end).  The
 * decoder expands them exactly so (decode.c).
 *
 * The DACCE paper's entries hold only <id, call site>, and it merges when
 * those match.  That merges pushes through one indirect call site to
 * different callees, whose sub-paths differ: the callee of the second push is
 * lost.  Option cc_compress=2 reproduces that test (for tests only).
 */
#include <string.h>

#include "internal.h"

dc_vec dc_ccnodes;
static dc_index cc_index;
static _Atomic int cc_lock;
#define MAX_CCNODES (1u << 28)

static uint64_t cc_hash(uint64_t id, uint32_t edge, uint32_t count, uint32_t parent) {
  struct { uint64_t id; uint32_t edge, count, parent, pad; } k = {id, edge, count, parent, 0};
  return dc_hash(&k, sizeof k);
}
static uint64_t cc_rehash(uint32_t i) {
  const dc_ccnode *c = dc_cc_at(i);
  return cc_hash(c->id, c->edge, c->count, c->parent);
}

void dc_cc_init(void) {
  dc_vec_init(&dc_ccnodes, sizeof(dc_ccnode), MAX_CCNODES);
  dc_index_init(&cc_index, 12, cc_rehash);
  atomic_store(&dc_ccnodes.n, 1); /* 0 = empty ccStack */
}

/* A node's first DC_CHAIN_MAX children are chained from it, the rest are
 * in the index.  A push finds its parent in the caches (it is the thread's
 * ccStack top) and the kids it made before beside it (made one after the
 * other), where a lookup in the index misses twice, at its slot and at the
 * record: mergesort's recursion makes a node per call, 6.7% of its samples
 * in the index.  Nodes with more kids (the empty ccStack's, a recursion's
 * counts) send the rest to the index. */
_Static_assert(MAX_CCNODES <= 1u << DC_CHAIN_BITS, "a chain word names any node");
static inline int cc_is(const dc_ccnode *c, uint64_t id, uint32_t edge, uint32_t count,
                        uint32_t parent) {
  return c->id == id && c->edge == edge && c->count == count && c->parent == parent;
}

/* The node, or 0: in the index if its parent's kids are full (kids: the
 * parent's chain word, read with acquire; h: the hash), else or then among
 * those kids.  (The index first: a node with more kids than its chain
 * holds, such as a deep recursion's counts, has most of them there, and a
 * walk of the chain is as many loads, one after the other.)  Lock-free: a
 * node is written whole before a chain word or the index names it. */
static uint32_t cc_find(uint32_t kids, uint64_t id, uint32_t edge, uint32_t count,
                        uint32_t parent, uint64_t h) {
  uint32_t i;
  if (dc_chain_full(kids)) {
    const dc_itab *t = dc_index_tab(&cc_index);
    uint32_t pos = (uint32_t)(h >> 32);
    while ((i = dc_index_next(t, h, &pos)))
      if (cc_is(dc_cc_at(i), id, edge, count, parent)) return i;
  }
  for (i = dc_chain_head(kids); i; i = dc_cc_at(i)->sibling)
    if (cc_is(dc_cc_at(i), id, edge, count, parent)) return i;
  return 0;
}

static uint32_t intern(uint64_t id, uint32_t edge, uint32_t count, uint32_t parent) {
  dc_ccnode *p = dc_cc_at(parent); /* node 0, the empty ccStack, keeps its kids too */
  uint32_t kids = atomic_load_explicit(&p->kids, memory_order_acquire);
  /* (the hash only for the index: a node's first kids need none) */
  uint64_t h = dc_chain_full(kids) ? cc_hash(id, edge, count, parent) : 0;
  uint32_t i = cc_find(kids, id, edge, count, parent, h);
  if (i) return i;
  dc_lock(&cc_lock);
  kids = atomic_load_explicit(&p->kids, memory_order_relaxed);
  if (dc_chain_full(kids) && !h) h = cc_hash(id, edge, count, parent);
  if ((i = cc_find(kids, id, edge, count, parent, h))) {
    dc_unlock(&cc_lock);
    return i;
  }
  i = atomic_load_explicit(&dc_ccnodes.n, memory_order_relaxed);
  if (i >= MAX_CCNODES) dc_die("dacce: ccStack node space exhausted (%u nodes)\n", i);
  dc_ccnode *c = dc_cc_at(i);
  c->id = id;
  c->edge = edge;
  c->count = count;
  c->parent = parent;
  c->depth = (parent ? p->depth : 0) + count;
  atomic_store_explicit(&c->kids, 0, memory_order_relaxed);
  atomic_store_explicit(&dc_ccnodes.n, i + 1, memory_order_release);
  if (!dc_chain_full(kids)) {
    c->sibling = dc_chain_head(kids);
    atomic_store_explicit(&p->kids, dc_chain_add(kids, i), memory_order_release);
  } else {
    dc_index_insert(&cc_index, h, i);
  }
  dc_unlock(&cc_lock);
  return i;
}

uint32_t dc_cc_push(uint32_t cc, uint32_t edge, uint64_t id) {
  if (cc && dc_opt.cc_compress) {
    const dc_ccnode *top = dc_cc_at(cc);
    int same = top->id == id &&
               (dc_opt.cc_compress == 2 ? dc_edge_at(top->edge)->cs == dc_edge_at(edge)->cs
                                        : top->edge == edge);
    if (same) return intern(id, top->edge, top->count + 1, top->parent);
  }
  return intern(id, edge, 1, cc);
}

/* The lazy pushes under t->cc, made.  t->cc = LAZY|i names frames[i], whose
 * ccStack is its saved_cc (itself lazy or not) with <saved_id, edge> pushed.
 * Going down the chain to the first real value (or a frame already
 * resolved), each frame on the way is linked to the frame above it through
 * its cc field (DC_CC_LAZY | above, marking it in progress); then going back
 * up, each frame's push is made and kept in its cc (0 = not resolved: the
 * entry cleared it).  Each lazy push is so made once per frame, however
 * often the context is captured, and the walk needs no stack of its own (a
 * deep recursion's chain is as deep as the recursion).  Under the runtime
 * guard: a signal handler's own capture never sees a half-linked chain. */
#define NO_FRAME 0x7fffffffu
uint32_t dc_cc_resolve(dc_thread *t) {
  dc_enter(t);
  uint32_t cc = t->cc, above = NO_FRAME;
  while (cc & DC_CC_LAZY) {
    dc_frame *f = &t->frames[cc & ~DC_CC_LAZY];
    if (f->cc) {
      cc = f->cc;
      break;
    }
    f->cc = DC_CC_LAZY | above;
    above = cc & ~DC_CC_LAZY;
    cc = f->saved_cc;
  }
  while (above != NO_FRAME) {
    dc_frame *f = &t->frames[above];
    above = f->cc & ~DC_CC_LAZY;
    cc = dc_cc_push_cached(t, cc, f->edge, f->saved_id);
    f->cc = cc;
  }
  t->cc = cc;
  dc_leave(t);
  return cc;
}

__attribute__((constructor)) static void cc_locks(void) {
  dc_atfork_register(DC_RANK_CC, &cc_lock, 1, 0);
}
