/* graph.c: the dynamically discovered call graph.  Nodes and edges live in
 * dense never-moving arrays; lock-free lookups, inserts under one lock (new
 * edges are rare: each is created once per run). */

#include "internal.h"

dc_vec dc_nodes;
dc_vec dc_edges;
dc_index dc_edge_index;
static dc_index node_index;
static _Atomic int graph_lock;

#define MAX_NODES (1u << 24)
#define MAX_EDGES (1u << 26)

static void lock(void) {
  dc_lock(&graph_lock);
}
static void unlock(void) { dc_unlock(&graph_lock); }

static uint64_t node_hash(uintptr_t pc) { return dc_hash(&pc, sizeof pc); }
static uint64_t node_rehash(uint32_t i) { return node_hash(dc_node_at(i)->pc); }
static uint64_t edge_rehash(uint32_t i) {
  const dc_edge *e = dc_edge_at(i);
  return dc_edge_hash(e->caller, e->cs, e->callee_pc);
}

void dc_graph_init(void) {
  dc_vec_init(&dc_nodes, sizeof(dc_node), MAX_NODES);
  dc_vec_init(&dc_edges, sizeof(dc_edge), MAX_EDGES);
  dc_index_init(&dc_edge_index, 12, edge_rehash);
  dc_index_init(&node_index, 10, node_rehash);
  /* node 0 is ROOT, edge 0 is a placeholder so that 0 can mean "none" */
  atomic_store(&dc_nodes.n, 1);
  atomic_store(&dc_edges.n, 1);
}

static uint32_t node_find(uintptr_t pc) {
  uint64_t h = node_hash(pc);
  const dc_itab *t = dc_index_tab(&node_index);
  uint32_t pos = (uint32_t)(h >> 32), i;
  while ((i = dc_index_next(t, h, &pos)))
    if (dc_node_at(i)->pc == pc) return i;
  return 0;
}

/* lock held */
static uint32_t node_get_locked(uintptr_t pc) {
  uint32_t i = node_find(pc);
  if (i) return i;
  i = atomic_load_explicit(&dc_nodes.n, memory_order_relaxed);
  if (i >= MAX_NODES) dc_die("dacce: more than %u functions: call graph full\n", MAX_NODES);
  dc_node_at(i)->pc = pc;
  atomic_store_explicit(&dc_nodes.n, i + 1, memory_order_release);
  dc_index_insert(&node_index, node_hash(pc), i);
  return i;
}

uint32_t dc_node_get(uintptr_t pc) {
  uint32_t i = node_find(pc);
  if (i) return i;
  lock();
  i = node_get_locked(pc);
  unlock();
  return i;
}

DC_NOINLINE uint32_t dc_edge_get_slow(uint32_t caller, uintptr_t cs, uintptr_t callee_pc) {
  uint64_t h = dc_edge_hash(caller, cs, callee_pc);
  lock();
  /* re-check in the current table: the reader may have seen an old one */
  const dc_itab *t = dc_index_tab(&dc_edge_index);
  uint32_t pos = (uint32_t)(h >> 32), i;
  while ((i = dc_index_next(t, h, &pos))) {
    dc_edge *e = dc_edge_at(i);
    if (e->cs == cs && e->callee_pc == callee_pc && e->caller == caller) {
      unlock();
      return i;
    }
  }
  uint32_t callee = node_get_locked(callee_pc);
  i = atomic_load_explicit(&dc_edges.n, memory_order_relaxed);
  if (i >= MAX_EDGES) dc_die("dacce: more than %u call edges: call graph full\n", MAX_EDGES);
  dc_edge *e = dc_edge_at(i);
  e->cs = cs;
  e->callee_pc = callee_pc;
  e->caller = caller;
  e->callee = callee;
  atomic_store_explicit(&e->hits, 1, memory_order_relaxed);
  atomic_store_explicit(&dc_edges.n, i + 1, memory_order_release);
  dc_index_insert(&dc_edge_index, h, i);
  unlock();
  return i;
}

__attribute__((constructor)) static void graph_locks(void) {
  dc_atfork_register(DC_RANK_GRAPH, &graph_lock, 1, 0);
}
