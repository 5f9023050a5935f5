/* reencode.c: computing and publishing a dictionary.
 *
 * Encoding (PCCE arithmetic over the dynamically discovered graph):
 *  1. Depth-first search from ROOT, hottest edges first.  An edge into a node
 *     that is on the DFS stack is a back edge: it closes a cycle (recursion)
 *     and stays unencoded, so the rest is a DAG.
 *  2. In reverse DFS post-order (a topological order of that DAG), each node n
 *     gets numCC(n) = sum of numCC(caller) over its encoded incoming edges,
 *     taken hottest first: the hottest gets code 0, the next the numCC of the
 *     first caller, and so on.  The codes of n's incoming edges thus cut
 *     [0, numCC(n)) into disjoint ranges, one per edge, which is what makes a
 *     path's sum of codes unique and decodable.  A node with no encoded
 *     incoming edge (ROOT, or a node reached only through unencoded edges) is
 *     a segment start with numCC = 1.
 *  3. Overflow: an edge whose range would push numCC(n) past 2^max_id_bits is
 *     left unencoded instead (crossing it pushes on the ccStack); ids never
 *     wrap.  maxID = max numCC - 1.
 *
 * Publishing: the dictionary is immutable and kept forever (snapshots name it
 * by timestamp).  No thread is stopped: each one notices the new pointer at its
 * next event and re-derives its own state (encoder.c, dc_migrate).
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

_Atomic(dc_dict *) dc_cur_dict;
dc_dict *dc_dicts[DC_MAX_DICTS];
_Atomic uint32_t dc_n_dicts;
_Atomic uint64_t dc_new_edge_pushes;
static _Atomic int reencode_lock;

dc_dict *dc_dict_new(uint32_t n_edges, uint32_t n_nodes) {
  size_t sz = sizeof(dc_dict) + (size_t)n_edges * 8 + (size_t)n_nodes * 8 +
              ((size_t)n_nodes + 1) * 4 + (size_t)n_edges * 4 + 64;
  char *p = dc_mmap(sz);
  dc_dict *d = (dc_dict *)p;
  p += (sizeof(dc_dict) + 7) & ~(size_t)7;
  d->code = (uint64_t *)p;
  p += (size_t)n_edges * 8;
  d->numcc = (uint64_t *)p;
  p += (size_t)n_nodes * 8;
  d->in_off = (uint32_t *)p;
  p += ((size_t)n_nodes + 1) * 4;
  d->in_edges = (uint32_t *)p;
  d->n_edges = n_edges;
  d->n_nodes = n_nodes;
  for (uint32_t e = 0; e < n_edges; e++) d->code[e] = DC_UNENCODED;
  return d;
}

/* The decoding index (each node's encoded incoming edges by code), maxID and
 * the encoded-edge count, derived from code[] and numcc[].  Shared by the
 * re-encoder, hand-built test dictionaries and dacce-decode's loader. */
static const dc_dict *sort_dict;
static _Atomic int finish_lock; /* guards sort_dict */
/* edges by code, then by number (the order glibc's qsort, a merge sort
 * over edges filled in by number, gave ties) */
static int code_before(uint32_t a, uint32_t b) {
  const uint64_t x = sort_dict->code[a], y = sort_dict->code[b];
  return x != y ? x < y : a < b;
}

void dc_dict_finish(dc_dict *d) {
  dc_memset(d->in_off, 0, ((size_t)d->n_nodes + 1) * 4);
  d->n_encoded = 0;
  for (uint32_t e = 1; e < d->n_edges; e++)
    if (d->code[e] != DC_UNENCODED) {
      d->in_off[dc_edge_at(e)->callee + 1]++;
      d->n_encoded++;
    }
  for (uint32_t n = 0; n < d->n_nodes; n++) d->in_off[n + 1] += d->in_off[n];
  uint32_t *fill = dc_mmap((size_t)d->n_nodes * 4 + 4);
  dc_memcpy(fill, d->in_off, (size_t)d->n_nodes * 4);
  for (uint32_t e = 1; e < d->n_edges; e++)
    if (d->code[e] != DC_UNENCODED) d->in_edges[fill[dc_edge_at(e)->callee]++] = e;
  dc_munmap(fill, (size_t)d->n_nodes * 4 + 4);
  dc_lock(&finish_lock);
  sort_dict = d;
  for (uint32_t n = 0; n < d->n_nodes; n++)
    dc_sort_u32(d->in_edges + d->in_off[n], d->in_off[n + 1] - d->in_off[n], code_before);
  dc_unlock(&finish_lock);
  uint64_t m = 1;
  for (uint32_t n = 0; n < d->n_nodes; n++)
    if (d->numcc[n] > m) m = d->numcc[n];
  d->max_id = m - 1;
}

void dc_dict_publish(dc_dict *d) {
  uint32_t ts = atomic_load(&dc_n_dicts);
  if (ts >= DC_MAX_DICTS) return; /* keep the last one; never reached in practice */
  d->ts = ts;
  dc_dicts[ts] = d;
  atomic_store_explicit(&dc_n_dicts, ts + 1, memory_order_release);
  atomic_store_explicit(&dc_cur_dict, d, memory_order_release);
  dc_threads_flag(DC_PENDING_MIGRATE);
}

void dc_reencode_init(void) {
  /* timestamp 0: nothing is encoded yet, ROOT alone, maxID = 0 */
  dc_dict *d = dc_dict_new(1, 1);
  d->numcc[0] = 1;
  dc_dict_finish(d);
  dc_dict_publish(d);
}

/* ------------------------------------------------------------ scratch */
/* Scratch arrays live in one mapping per run, unmapped afterwards. */
typedef struct scratch {
  uint32_t *out_off, *out_edges; /* CSR of outgoing edges, hottest first */
  uint32_t *in_tmp;              /* incoming non-back edges per node (CSR) */
  uint32_t *in_tmp_off;
  uint32_t *order;               /* post-order */
  uint32_t *stack_node, *stack_pos;
  uint8_t *state;                /* 0 new, 1 on stack, 2 done */
  uint8_t *back;                 /* per edge */
} scratch;

/* Hit counts, copied once per run (they change under us) so the sort is
 * consistent.  Guarded by reencode_lock. */
static uint64_t *hits_copy;

/* sort edge indices by hits, descending (then by index for determinism) */
static int hot_before(uint32_t x, uint32_t y) {
  const uint64_t hx = hits_copy[x], hy = hits_copy[y];
  return hx != hy ? hx > hy : x < y;
}

int dc_reencode_now(void) {
  if (!dc_trylock(&reencode_lock)) return 0;
  uint32_t nE = atomic_load_explicit(&dc_edges.n, memory_order_acquire);
  uint32_t nN = atomic_load_explicit(&dc_nodes.n, memory_order_acquire);
  uint64_t limit = (uint64_t)1 << dc_opt.max_id_bits;

  size_t sz = (size_t)(nN + 1) * 4 * 4 + (size_t)nE * 4 * 2 + (size_t)nN * 4 * 3 + nN + nE +
              (size_t)nE * 8 + 256;
  char *mem = dc_mmap(sz), *p = mem;
#define TAKE(field, n, T) s.field = (T *)p, p += (((size_t)(n) * sizeof(T)) + 7) & ~(size_t)7
  scratch s;
  TAKE(out_off, nN + 1, uint32_t);
  TAKE(out_edges, nE, uint32_t);
  TAKE(in_tmp_off, nN + 1, uint32_t);
  TAKE(in_tmp, nE, uint32_t);
  TAKE(order, nN, uint32_t);
  TAKE(stack_node, nN, uint32_t);
  TAKE(stack_pos, nN, uint32_t);
  TAKE(state, nN, uint8_t);
  TAKE(back, nE, uint8_t);
  hits_copy = (uint64_t *)p;
  p += (size_t)nE * 8;
#undef TAKE
  for (uint32_t e = 1; e < nE; e++)
    hits_copy[e] = atomic_load_explicit(&dc_edge_at(e)->hits, memory_order_relaxed);

  /* outgoing CSR */
  for (uint32_t e = 1; e < nE; e++) s.out_off[dc_edge_at(e)->caller + 1]++;
  for (uint32_t n = 0; n < nN; n++) s.out_off[n + 1] += s.out_off[n];
  {
    uint32_t *fill = s.stack_pos; /* reuse as cursor */
    for (uint32_t n = 0; n < nN; n++) fill[n] = s.out_off[n];
    for (uint32_t e = 1; e < nE; e++) s.out_edges[fill[dc_edge_at(e)->caller]++] = e;
    for (uint32_t n = 0; n < nN; n++)
      dc_sort_u32(s.out_edges + s.out_off[n], s.out_off[n + 1] - s.out_off[n], hot_before);
  }

  /* 1. iterative DFS from ROOT (then from anything left, defensively) */
  uint32_t n_order = 0;
  for (uint32_t r = 0; r < nN; r++) {
    if (s.state[r]) continue;
    uint32_t sp = 0;
    s.stack_node[sp] = r;
    s.stack_pos[sp++] = s.out_off[r];
    s.state[r] = 1;
    while (sp) {
      uint32_t n = s.stack_node[sp - 1];
      if (s.stack_pos[sp - 1] < s.out_off[n + 1]) {
        uint32_t e = s.out_edges[s.stack_pos[sp - 1]++];
        uint32_t m = dc_edge_at(e)->callee;
        if (m >= nN) continue; /* cannot happen: nodes precede their edges */
        if (s.state[m] == 1) {
          s.back[e] = 1;
        } else if (s.state[m] == 0) {
          s.state[m] = 1;
          s.stack_node[sp] = m;
          s.stack_pos[sp++] = s.out_off[m];
        }
      } else {
        s.state[n] = 2;
        s.order[n_order++] = n;
        sp--;
      }
    }
  }

  dc_dict *d = dc_dict_new(nE, nN);

  /* incoming non-back edges per node, hottest first */
  for (uint32_t e = 1; e < nE; e++)
    if (!s.back[e]) s.in_tmp_off[dc_edge_at(e)->callee + 1]++;
  for (uint32_t n = 0; n < nN; n++) s.in_tmp_off[n + 1] += s.in_tmp_off[n];
  {
    uint32_t *fill = s.stack_pos;
    for (uint32_t n = 0; n < nN; n++) fill[n] = s.in_tmp_off[n];
    for (uint32_t e = 1; e < nE; e++)
      if (!s.back[e]) s.in_tmp[fill[dc_edge_at(e)->callee]++] = e;
    for (uint32_t n = 0; n < nN; n++)
      dc_sort_u32(s.in_tmp + s.in_tmp_off[n], s.in_tmp_off[n + 1] - s.in_tmp_off[n], hot_before);
  }

  /* 2./3. numCC and codes in topological order (reverse post-order) */
  for (uint32_t k = n_order; k-- > 0;) {
    uint32_t n = s.order[k];
    uint64_t sum = 0;
    for (uint32_t j = s.in_tmp_off[n]; j < s.in_tmp_off[n + 1]; j++) {
      uint32_t e = s.in_tmp[j];
      uint64_t c = d->numcc[dc_edge_at(e)->caller];
      if (c > limit - sum) { /* would pass 2^max_id_bits */
        d->n_overflow++;
        continue;
      }
      d->code[e] = sum;
      sum += c;
    }
    d->numcc[n] = sum ? sum : 1;
  }
  for (uint32_t e = 1; e < nE; e++) d->n_back += s.back[e];
  dc_munmap(mem, sz);
  dc_dict_finish(d);
  dc_dict_publish(d);
  atomic_store_explicit(&dc_new_edge_pushes, 0, memory_order_relaxed);
  dc_unlock(&reencode_lock);
  return 1;
}

__attribute__((constructor)) static void reencode_locks(void) {
  dc_atfork_register(DC_RANK_REENCODE, &reencode_lock, 1, 0);
  dc_atfork_register(DC_RANK_DICT, &finish_lock, 1, 0);
}
