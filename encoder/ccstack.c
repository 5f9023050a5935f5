/* ccstack.c: the persistent ccStack.  An entry is an immutable, hash-consed
 * node <id, edge, count, parent>, so a thread's whole ccStack is one 32-bit
 * index, a snapshot is O(1), and equal stacks are equal indices.
 *
 * Recursion compression.  The DACCE paper merges a push into the top entry
 * when id and call site match.  That is unsound: the segment the top entry
 * terminates may have begun at a different node than the one the new push
 * terminates, yet end at the same node with the same id (the first is a
 * suffix of the second reached through code-0 edges; the paper's own ADACDAD
 * example).  We merge only when the two terminated segments are provably the
 * same path: same edge, same id, and the same start node.  Option
 * cc_compress=2 restores the paper's test so tests can show the difference. */
#include <sched.h>
#include <string.h>

#include "internal.h"

dc_vec dc_ccnodes;
static dc_index cc_index;
static _Atomic int cc_lock;
#define MAX_CCNODES (1u << 28)

void dc_cc_init(void) {
  dc_vec_init(&dc_ccnodes, sizeof(dc_ccnode), MAX_CCNODES);
  dc_index_init(&cc_index, 12);
  atomic_store(&dc_ccnodes.n, 1); /* 0 = empty ccStack */
}

static uint32_t intern(uint64_t id, uint32_t edge, uint32_t count, uint32_t parent) {
  struct { uint64_t id; uint32_t edge, count, parent, pad; } k = {id, edge, count, parent, 0};
  uint64_t h = dc_hash(&k, sizeof k);
  for (int locked = 0;; locked = 1) {
    const dc_itab *t = dc_index_tab(&cc_index);
    uint32_t pos = (uint32_t)(h >> 32), i;
    while ((i = dc_index_next(t, h, &pos))) {
      dc_ccnode *c = dc_cc_at(i);
      if (c->id == id && c->edge == edge && c->count == count && c->parent == parent) {
        if (locked) atomic_store_explicit(&cc_lock, 0, memory_order_release);
        return i;
      }
    }
    if (locked) break;
    while (atomic_exchange_explicit(&cc_lock, 1, memory_order_acquire)) sched_yield();
  }
  uint32_t i = atomic_load_explicit(&dc_ccnodes.n, memory_order_relaxed);
  if (i >= MAX_CCNODES) dc_die("dacce: ccStack node space exhausted (%u nodes)\n", i);
  dc_ccnode *c = dc_cc_at(i);
  c->id = id;
  c->edge = edge;
  c->count = count;
  c->parent = parent;
  c->depth = (parent ? dc_cc_at(parent)->depth : 0) + count;
  atomic_store_explicit(&dc_ccnodes.n, i + 1, memory_order_release);
  dc_index_insert(&cc_index, h, i);
  atomic_store_explicit(&cc_lock, 0, memory_order_release);
  return i;
}

uint32_t dc_cc_push(uint32_t cc, uint32_t edge, uint64_t id) {
  if (cc && dc_opt.cc_compress) {
    const dc_ccnode *top = dc_cc_at(cc);
    if (top->edge == edge && top->id == id) {
      /* where the segment terminated by the top entry began */
      uint32_t callee = dc_edge_at(edge)->callee;
      int same = dc_opt.cc_compress == 2 || top->count > 1 ||
                 dc_cc_segment_start(top->parent) == callee;
      if (same) return intern(id, edge, top->count + 1, top->parent);
    }
  }
  return intern(id, edge, 1, cc);
}
