/* capture.c: context-capture ablations, for measuring what DACCE buys
 * (option capture; issue #6).  The detector is the same; only what a shadow
 * cell's 32-bit context handle stands for changes:
 *
 *  dacce      the encoder's snapshot {id, node, ccStack, dictionary}: O(1)
 *             at every call and return, nothing per access (rd_thread.c).
 *  stackwalk  nothing at calls and returns; at every access the detector
 *             records, a walk of the frame-pointer chain, interned in a
 *             hash-consed stack table (a stack depot).  No caching by the
 *             thread's current context: one walk per recorded access.
 *             Needs the program built with -fno-omit-frame-pointer.
 *  cct        a calling context tree: at each call the thread moves to the
 *             child (call site, callee) of its node in a global hash-consed
 *             tree (behind the per-thread edge cache), at each return back
 *             to the node saved in the frame (encoder.c capture_entry; the
 *             frame stack's resync covers longjmp, exceptions, tail calls).
 *
 * Either way the handle is then interned exactly like a DACCE snapshot
 * (rd_ctx_intern), the record's id being the stack or tree node, and the
 * held mutexes go with the access's site (site.c).  Reports print the
 * frames of both accesses (no thread ancestry for stackwalk; creation
 * stacks from the tree for cct) and say the mode.
 *
 * The walk starts from the caller's %rbp: the runtime is compiled with
 * -ffixed-rbp (CMakeLists.txt), so none of its frames between the program
 * and here touches the register, and it still holds the frame pointer of
 * the innermost instrumented function.  Its own frame is found from the
 * access pc (the cell's pc), the walk gives its callers.  Robustness: only
 * frames strictly above the current stack pointer and inside the thread's
 * stack, 16-byte aligned, each above the previous, at most 64. */

#include "racedet.h"
#include "capture.h"

extern void *__libc_stack_end;

static _Atomic int cap_lock; /* inserts into the stack table and the tree */
static void lock(void) {
  dc_lock(&cap_lock);
}
static void unlock(void) { dc_unlock(&cap_lock); }

const char *rd_capture_name(void) {
  return dc_capture_mode == DC_CAPTURE_STACKWALK ? "stackwalk"
         : dc_capture_mode == DC_CAPTURE_CCT     ? "cct"
                                                 : "dacce";
}

/* ------------------------------------------------------------ stack table */
#define SW_MAX_FRAMES 64
#define SW_MAX_STACKS (1u << 26)
#define SW_MAX_PCS (1u << 28)
typedef struct sw_stack {
  uint32_t off, n; /* pcs [off, off + n) of sw_pcs */
} sw_stack;
static dc_vec sw_stacks; /* by id; 0 unused */
static dc_vec sw_pcs;    /* uintptr_t return addresses, innermost first */
static dc_index sw_index;

static int sw_equal(const sw_stack *s, const uintptr_t *pcs, uint32_t n) {
  if (s->n != n) return 0;
  const uintptr_t *q = dc_vec_at(&sw_pcs, s->off);
  for (uint32_t i = 0; i < n; i++)
    if (q[i] != pcs[i]) return 0;
  return 1;
}

static uint64_t sw_hash(const uintptr_t *pcs, uint32_t n) {
  return dc_hash(pcs, n * sizeof *pcs) ^ ((uint64_t)n << 40);
}
static uint64_t sw_rehash(uint32_t i) {
  const sw_stack *s = dc_vec_at(&sw_stacks, i);
  return sw_hash(dc_vec_at(&sw_pcs, s->off), s->n);
}

static uint32_t sw_intern(const uintptr_t *pcs, uint32_t n) {
  const uint64_t h = sw_hash(pcs, n);
  for (int locked = 0;; locked = 1) {
    const dc_itab *t = dc_index_tab(&sw_index);
    uint32_t pos = (uint32_t)(h >> 32), i;
    while ((i = dc_index_next(t, h, &pos)))
      if (sw_equal(dc_vec_at(&sw_stacks, i), pcs, n)) {
        if (locked) unlock();
        return i;
      }
    if (locked) break;
    lock();
  }
  uint32_t i = atomic_load_explicit(&sw_stacks.n, memory_order_relaxed);
  uint32_t off = atomic_load_explicit(&sw_pcs.n, memory_order_relaxed);
  if (i >= SW_MAX_STACKS || off > SW_MAX_PCS - n)
    dc_die("dacce: capture=stackwalk: stack table full\n");
  dc_memcpy(dc_vec_at(&sw_pcs, off), pcs, n * sizeof *pcs);
  atomic_store_explicit(&sw_pcs.n, off + n, memory_order_release);
  *(sw_stack *)dc_vec_at(&sw_stacks, i) = (sw_stack){off, n};
  atomic_store_explicit(&sw_stacks.n, i + 1, memory_order_release);
  dc_index_insert(&sw_index, h, i);
  unlock();
  return i;
}

/* The return addresses of the frame-pointer chain above the caller of the
 * runtime, innermost first. */
__attribute__((noinline)) static uint32_t sw_walk(const dc_thread *t, uintptr_t *pcs) {
  uintptr_t fp, sp;
  __asm__ volatile("mov %%rbp, %0\n\tmov %%rsp, %1" : "=r"(fp), "=r"(sp));
  uintptr_t lo = sp, hi = t->stack_hi, top = (uintptr_t)__libc_stack_end;
  if (hi == UINTPTR_MAX || sp < t->stack_lo || sp >= hi) return 0; /* unknown or another stack */
  if (top > sp && top < hi) hi = top; /* the main thread: nothing mapped is sure above it */
  uint32_t n = 0;
  while (n < SW_MAX_FRAMES && fp > lo && !(fp & 15) && fp <= hi - 16) {
    const uintptr_t *rec = (const uintptr_t *)fp;
    uintptr_t next = rec[0], ret = rec[1];
    if (!ret) break;
    pcs[n++] = ret;
    lo = fp;
    fp = next;
  }
  return n;
}

/* A cell's pc is numbered under a graph node (site.c), and the stack does
 * not name the accessing function (its pc is in the cell): any node that
 * the same pc always gets will do, the node of the middle of a 1 GiB window
 * of the innermost return address. */
#define WINDOW_BITS 30
static _Atomic uint64_t anchors[16]; /* (window + 1) << 32 | node */
static uint32_t anchor_node(uintptr_t pc) {
  uint64_t w = pc >> WINDOW_BITS;
  _Atomic uint64_t *slot = &anchors[w & 15];
  uint64_t v = atomic_load_explicit(slot, memory_order_relaxed);
  if ((v >> 32) == w + 1) return (uint32_t)v;
  uint32_t node = dc_node_get((uintptr_t)(w << WINDOW_BITS) + ((uintptr_t)1 << (WINDOW_BITS - 1)));
  atomic_store_explicit(slot, ((w + 1) << 32) | node, memory_order_relaxed);
  return node;
}

/* ------------------------------------------------------------ calling context tree */
#define CCT_MAX (1u << 27)
typedef struct cct_node {
  uintptr_t cs, callee;
  uint32_t parent, gnode;
} cct_node;
static dc_vec cct; /* by node; 0 is the root */
static dc_index cct_index;
static inline cct_node *cct_at(uint32_t i) { return dc_vec_at(&cct, i); }

static uint64_t cct_hash(uint32_t parent, uintptr_t cs, uintptr_t callee) {
  uintptr_t k[3] = {cs, callee, parent};
  return dc_hash(k, sizeof k);
}

static uint64_t cct_rehash(uint32_t i) {
  const cct_node *e = cct_at(i);
  return cct_hash(e->parent, e->cs, e->callee);
}

static uint32_t cct_find(uint64_t h, uint32_t parent, uintptr_t cs, uintptr_t callee) {
  const dc_itab *t = dc_index_tab(&cct_index);
  uint32_t pos = (uint32_t)(h >> 32), i;
  while ((i = dc_index_next(t, h, &pos))) {
    const cct_node *e = cct_at(i);
    if (e->cs == cs && e->callee == callee && e->parent == parent) return i;
  }
  return 0;
}

uint32_t rd_cct_child(uint32_t parent, uintptr_t cs, uintptr_t callee, uint32_t *gnode) {
  uint64_t h = cct_hash(parent, cs, callee);
  uint32_t i = cct_find(h, parent, cs, callee);
  if (!i) {
    uint32_t g = dc_node_get(callee); /* the graph's lock ranks before ours: first */
    lock();
    i = cct_find(h, parent, cs, callee);
    if (!i) {
      i = atomic_load_explicit(&cct.n, memory_order_relaxed);
      if (i >= CCT_MAX) dc_die("dacce: capture=cct: calling context tree full\n");
      *cct_at(i) = (cct_node){cs, callee, parent, g};
      atomic_store_explicit(&cct.n, i + 1, memory_order_release);
      dc_index_insert(&cct_index, h, i);
    }
    unlock();
  }
  *gnode = cct_at(i)->gnode;
  return i;
}

uintptr_t rd_cct_cs(uint32_t node) {
  return node && node < atomic_load_explicit(&cct.n, memory_order_acquire) ? cct_at(node)->cs : 0;
}

/* ------------------------------------------------------------ handles */
void rd_capture_init(void) {
  if (dc_capture_mode == DC_CAPTURE_STACKWALK) {
    dc_vec_init(&sw_stacks, sizeof(sw_stack), SW_MAX_STACKS);
    dc_vec_init(&sw_pcs, sizeof(uintptr_t), SW_MAX_PCS);
    atomic_store(&sw_stacks.n, 1);
    dc_index_init(&sw_index, 12, sw_rehash);
#ifndef DACCE_FIXED_RBP
    dc_printf("==dacce== warning: capture=stackwalk: the runtime was built without "
              "-ffixed-rbp; stack walks may stop early\n");
#endif
  } else {
    dc_vec_init(&cct, sizeof(cct_node), CCT_MAX);
    atomic_store(&cct.n, 1);
    dc_index_init(&cct_index, 12, cct_rehash);
  }
}

uint32_t rd_capture_handle(dc_thread *t) {
  dacce_ctx c = {.thread = t->serial};
  if (dc_capture_mode == DC_CAPTURE_CCT) {
    /* the tree node is current until the next call or return, like a
     * DACCE snapshot: cached in the thread until then */
    c.id = t->cc;
    c.node = t->node;
    return t->ctx_handle = rd_ctx_intern(t, &c);
  }
  uintptr_t pcs[SW_MAX_FRAMES];
  uint32_t n = sw_walk(t, pcs);
  c.id = sw_intern(pcs, n);
  c.node = t->node = anchor_node(n ? pcs[0] : (uintptr_t)&rd_capture_handle);
  return rd_ctx_intern(t, &c); /* not cached: the next access walks again */
}

/* ------------------------------------------------------------ reports */
int rd_capture_frames(uint64_t id, uintptr_t pc, uintptr_t *out, int max, int *truncated) {
  int n = 0;
  *truncated = 0;
  if (dc_capture_mode == DC_CAPTURE_STACKWALK) {
    if (pc && n < max) out[n++] = pc;
    if (!id || id >= atomic_load_explicit(&sw_stacks.n, memory_order_acquire)) return n;
    const sw_stack *s = dc_vec_at(&sw_stacks, (uint32_t)id);
    const uintptr_t *q = dc_vec_at(&sw_pcs, s->off);
    for (uint32_t i = 0; i < s->n; i++) {
      if (n == max) {
        *truncated = 1;
        break;
      }
      out[n++] = q[i] - 1;
    }
    return n;
  }
  if (dc_capture_mode != DC_CAPTURE_CCT) return 0;
  uint32_t node = id < atomic_load_explicit(&cct.n, memory_order_acquire) ? (uint32_t)id : 0;
  const cct_node *e = node ? cct_at(node) : 0;
  if (pc || e) out[n++] = pc ? pc : e->callee;
  /* made by uninstrumented code the function called: the function follows */
  if (pc && e && n < max) {
    const char *a = dc_symtab_name(pc, 0), *f = dc_symtab_name(e->callee, 0);
    if (a && f && !dc_streq(a, f)) out[n++] = e->callee;
  }
  /* the call sites, without the entry from outside the program */
  for (; node && cct_at(node)->parent; node = cct_at(node)->parent) {
    if (n == max) {
      *truncated = 1;
      break;
    }
    out[n++] = cct_at(node)->cs - 1;
  }
  return n;
}

__attribute__((constructor)) static void capture_locks(void) {
  dc_atfork_register(DC_RANK_CAPTURE, &cap_lock, 1, 0);
}
