/* decode.c: DACCE decoding (the paper's Algorithm 1, with its gaps closed).
 *
 * Input: a snapshot {ts, node n, id, cc}.  The dictionary of timestamp ts
 * gives each node's encoded incoming edges, whose codes cut [0, numCC(n))
 * into disjoint ranges [code, code + numCC(caller)).
 *
 * A thread's context is a chain of segments separated by ccStack entries.
 * The innermost segment starts at the callee of the top entry (or at ROOT
 * when the ccStack is empty) with id maxID+1 (0 for ROOT), and ends at n.
 * Walking it backwards: at node v with relative id r, take the incoming edge
 * whose range holds r, emit the frame, subtract the code, move to the caller;
 * stop at the segment start with r = 0.  Then the entry itself: its callee
 * frame (entered through the unencoded edge), count-1 repeated segments from
 * the callee back to the caller with the entry's id (recursion compression),
 * and the walk continues below from the caller with the entry's id.
 *
 * Fixes over the paper's listing: the start of each segment is named by the
 * entry below (so a segment may start at a node with encoded incoming edges),
 * repetitions are expanded, and every step is bounded: a walk longer than the
 * number of nodes, a missing range, an unknown timestamp/node/entry, or
 * reaching the start with r != 0 is an error, never a loop or a crash.
 */
#include "../encoder/internal.h"

typedef struct out {
  dacce_frame *f;
  int n, max;
} out;

static void emit(out *o, uint32_t node, uint32_t edge, uint32_t thread) {
  if (o->n >= o->max) {
    o->n++;
    return;
  }
  const dc_edge *e = dc_edge_at(edge);
  dacce_frame *f = &o->f[o->n++];
  f->function = dc_node_at(node)->pc;
  f->callsite = e->cs;
  f->thread = thread;
  f->flags = e->caller == DC_ROOT ? DACCE_FRAME_THREAD_ROOT : 0;
}

/* Find the encoded incoming edge of v whose range holds r. */
static uint32_t find_in_edge(const dc_dict *d, uint32_t v, uint64_t r) {
  uint32_t lo = d->in_off[v], hi = d->in_off[v + 1];
  /* last edge with code <= r */
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (d->code[d->in_edges[mid]] <= r)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo == d->in_off[v]) return 0;
  uint32_t e = d->in_edges[lo - 1];
  uint64_t rel = r - d->code[e];
  if (rel >= d->numcc[dc_edge_at(e)->caller]) return 0;
  return e;
}

/* Walk one segment from v (relative id r) back to start; emit frames. */
static int walk(const dc_dict *d, uint32_t v, uint64_t r, uint32_t start, uint32_t thread,
                out *o) {
  for (uint32_t steps = 0;; steps++) {
    if (v == start && r == 0) return 0;
    if (v == start || v == DC_ROOT || v >= d->n_nodes || steps > d->n_nodes) return -2;
    uint32_t e = find_in_edge(d, v, r);
    if (!e) return -2;
    emit(o, v, e, thread);
    r -= d->code[e];
    v = dc_edge_at(e)->caller;
  }
}

static int decode_one(const dacce_ctx *c, out *o) {
  uint32_t n_dicts = atomic_load_explicit(&dc_n_dicts, memory_order_acquire);
  if (c->ts >= n_dicts) return -1;
  const dc_dict *d = dc_dicts[c->ts];
  uint32_t n_nodes = atomic_load_explicit(&dc_nodes.n, memory_order_acquire);
  uint32_t n_cc = atomic_load_explicit(&dc_ccnodes.n, memory_order_acquire);
  uint32_t n_edges = atomic_load_explicit(&dc_edges.n, memory_order_acquire);
  if (c->node >= n_nodes || c->cc >= n_cc) return -1;
  uint64_t base = d->max_id + 1;
  uint32_t v = c->node, cc = c->cc;
  uint64_t id = c->id;
  for (uint32_t guard = 0;; guard++) {
    if (guard > n_cc) return -1;
    if (!cc) {
      int r = walk(d, v, id, DC_ROOT, c->thread, o);
      return r;
    }
    const dc_ccnode *en = dc_cc_at(cc);
    if (en->edge == 0 || en->edge >= n_edges || en->parent >= cc) return -1;
    const dc_edge *e = dc_edge_at(en->edge);
    if (id < base) return -2;
    int r = walk(d, v, id - base, e->callee, c->thread, o);
    if (r) return r;
    emit(o, e->callee, en->edge, c->thread);
    for (uint32_t k = 1; k < en->count; k++) {
      if (en->id < base) return -2;
      r = walk(d, e->caller, en->id - base, e->callee, c->thread, o);
      if (r) return r;
      emit(o, e->callee, en->edge, c->thread);
    }
    v = e->caller;
    id = en->id;
    cc = en->parent;
  }
}

int dc_decode_thread(const dacce_ctx *c, dacce_frame *frames, int max) {
  out o = {frames, 0, max};
  int r = decode_one(c, &o);
  if (r) return r;
  return o.n < max ? o.n : max;
}

DC_EXPORT int dacce_decode(const dacce_ctx *ctx, dacce_frame *frames, int max, int ancestry) {
  out o = {frames, 0, max};
  dacce_ctx c = *ctx;
  uint32_t n_threads = atomic_load(&dc_threads.n);
  for (uint32_t hops = 0;; hops++) {
    int first = o.n;
    int r = decode_one(&c, &o);
    if (r) return r;
    if (hops && first < o.max && first < o.n) o.f[first].flags |= DACCE_FRAME_CREATE;
    if (!ancestry || c.thread >= n_threads || hops > n_threads) break;
    const dc_thread_rec *rec = dc_vec_at(&dc_threads, c.thread);
    if (!rec->has_creator) break;
    c = rec->created_at;
  }
  return o.n < max ? o.n : max;
}
