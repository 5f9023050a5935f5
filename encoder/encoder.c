/* encoder.c: the per-thread encoding state machine.
 *
 * The hooks' fast paths are in hooks_x86_64.S: a raw frame pushed at a call
 * and popped at its return (one TLS load, one stack-pointer compare, four
 * stores).  A call is encoded when a context is captured above it
 * (dc_materialize_slow: one hash lookup of the edge, one add).  Here are
 * the C paths for everything else (an encoded frame's return, new edges,
 * ccStack pushes, migration, resync, verification).
 *
 * The frame stack is the truth the encoding must agree with.  It is kept
 * honest by the stack pointer, because tail calls, longjmp and exceptions
 * (gcc emits no __tsan_func_exit on unwinding) skip exits:
 *  - each frame records E, the caller's stack pointer at its entry hook;
 *  - at an entry with stack pointer s, frames with E <= s are dead (a live
 *    ancestor's E is strictly above the new frame); with E < s for
 *    -finstrument-functions hooks, which also run for inlined callees, in
 *    their caller's frame at its stack pointer (an entry at the top frame's E
 *    is its inlined child there; that hook source skips no exits at tail
 *    calls, and longjmp and exceptions resynchronise on their own);
 *  - at an exit, frames with E < s are dead; if the lowest of them was entered
 *    from the return address the exit hook was reached with, the function
 *    tail-jumped to the hook (gcc does) after popping its frame, and it is
 *    among them; otherwise the top frame left is the one exiting;
 *  - longjmp and __cxa_begin_catch resynchronise to the target's stack pointer.
 * Resync only happens while the stack pointer is inside the thread's own
 * stack, so handlers on an alternate signal stack cannot wipe the stack.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sched.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "internal.h"
#include "../racedet/capture.h"
void rd_init(void);
uint64_t rd_reports_count(void);
uint64_t rd_reports_printed(void);
void rd_report_leaks(void); /* racedet/thread_end.c */
void rd_slot_stats(uint64_t *reclaimed, uint64_t *sweeps, uint64_t *cells, uint64_t *taken); /* rd_thread.c */
uint64_t rd_taken_back(void); /* rd_thread.c */
uint64_t rd_heap_records(void); /* intercept_heap.c */
uint64_t rd_sync_objects(void); /* sync.c */
void rd_dl_stats(uint64_t *made, uint64_t *backward, uint64_t *searched); /* deadlock.c */
int rd_reports_unseen(void);
int rd_report_verdict(int failed, int verdict); /* racedet/report.c */

static _Atomic int init_state; /* 0 none, 1 running, 2 done */
static _Atomic uint64_t g_calls, g_cc_pushes, g_cc_depth_sum, g_cc_depth_samples;
_Atomic uint64_t dc_verified, dc_mismatches;
static uint64_t start_ns;

void dc_init(void) {
  int expect = 0;
  if (!atomic_compare_exchange_strong(&init_state, &expect, 1)) {
    while (atomic_load(&init_state) != 2) sched_yield();
    return;
  }
  dc_options_init();
  dc_graph_init();
  dc_cc_init();
  rd_init();
  dc_vec_init(&dc_threads, sizeof(dc_thread_rec), DC_MAX_THREADS);
  dc_reencode_init();
  start_ns = dc_now_ns();
  atomic_store(&init_state, 2);
}

/* ------------------------------------------------------------ state changes */
/* back to the state before frame f's call, f the new top.  The frame is
 * given up last: a signal handler that arrives meanwhile pushes above it.
 * Without the fence the compiler stored the top first, and a handler that
 * came before the state was back pushed its frame over f while the
 * thread's ccStack still named f (DC_CC_LAZY | f): the handler's own push
 * then named itself, and resolving it followed the cycle into a crash
 * (tests/racedet/signal_reentry.c, about one run in thirty;
 * signal_return_window.c, five runs in six). */
static inline void restore_from(dc_thread *t, dc_frame *f) {
  if (dc_frame_raw(f)) { /* it and every frame above it were never encoded */
    t->top = f;
    return;
  }
  t->ctx_handle = 0;
  *dc_state_of(&t->id) = *dc_state_of(&f->saved_id);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t->top = f;
}
static inline void restore_to(dc_thread *t, uint32_t depth) {
  restore_from(t, &t->frames[depth]);
}

static inline int on_own_stack(const dc_thread *t, uintptr_t sp) {
  return sp >= t->stack_lo && sp < t->stack_hi;
}

void dc_resync_to(dc_thread *t, uintptr_t sp) {
  if (!on_own_stack(t, sp)) return;
  uint32_t d = dc_depth(t);
  while (d > 0 && t->frames[d - 1].sp < sp) d--;
  if (d < dc_depth(t)) restore_to(t, d);
}

/* Is a frame entered at stack pointer e dead at an entry at sp?  (cyg: the
 * entry comes from a -finstrument-functions hook; see the top of the file.) */
static inline int dead_at_entry(uintptr_t e, uintptr_t sp, int cyg) {
  return cyg ? e < sp : e <= sp;
}

DC_NOINLINE static void resync_entry(dc_thread *t, uintptr_t sp, int cyg) {
  if (!on_own_stack(t, sp)) return;
  uint32_t d = dc_depth(t);
  while (d > 0 && dead_at_entry(t->frames[d - 1].sp, sp, cyg)) d--;
  restore_to(t, d);
}

/* A push over an edge the dictionary does not know: counted toward the
 * next re-encoding. */
DC_NOINLINE static void new_edge_push(void) {
  if (dc_opt.reencode) {
    uint64_t n = atomic_fetch_add_explicit(&dc_new_edge_pushes, 1, memory_order_relaxed) + 1;
    uint64_t need = (uint64_t)dc_opt.reencode_per_edge *
                    atomic_load_explicit(&dc_edges.n, memory_order_relaxed);
    if (need < (uint64_t)dc_opt.reencode_min_pushes) need = (uint64_t)dc_opt.reencode_min_pushes;
    if (n >= need) dc_reencode_now();
  }
}

/* Re-derive id, ccStack and every frame's saved state under the newest
 * dictionary.  O(depth); happens once per thread per re-encoding. */
DC_NOINLINE void dc_migrate(dc_thread *t) {
  atomic_fetch_and_explicit(&t->pending, ~DC_PENDING_MIGRATE, memory_order_relaxed);
  const dc_dict *d = atomic_load_explicit(&dc_cur_dict, memory_order_acquire);
  t->dict = d;
  if (dc_unlikely(dc_capture_mode != DC_CAPTURE_DACCE)) return; /* no encoded state to move */
  /* codes are per dict; only the slots in use are written, so that the
   * cache's untouched pages stay uncommitted (dc_ecache_set) */
  for (uint32_t i = 0; i < (1u << DC_ECACHE_BITS); i++)
    if (t->ecache[i].cs) t->ecache[i].cs = 0;
  uint64_t id = 0;
  uint32_t cc = 0;
  for (uint32_t i = 0, depth = dc_depth(t); i < depth && !dc_frame_raw(&t->frames[i]); i++) {
    dc_frame *f = &t->frames[i];
    f->saved_id = id;
    f->saved_cc = cc; /* saved_node (the edge's caller) does not change */
    uint64_t code = dc_dict_code(d, f->edge);
    if (code != DC_UNENCODED) {
      id += code;
    } else {
      f->cc = 0; /* its push, made under the old ids, is made again lazily */
      cc = DC_CC_LAZY | i;
      id = d->max_id + 1;
    }
  }
  t->id = id;
  t->cc = cc;
  t->ctx_handle = 0;
}

/* The depth of the thread's ccStack (entries, counting repetitions: what
 * dc_ccnode.depth counts) without making its lazy pushes: each push,
 * compressed or not, is one more than the ccStack under it.  (Making them
 * for the statistic was 1% of calltree's instructions, and ccStack nodes
 * that no context needed.) */
static uint32_t cc_depth(const dc_thread *t) {
  uint32_t cc = t->cc, lazy = 0;
  while (cc & DC_CC_LAZY) {
    const dc_frame *f = &t->frames[cc & ~DC_CC_LAZY];
    if (f->cc) {
      cc = f->cc;
      break;
    }
    lazy++;
    cc = f->saved_cc;
  }
  return (cc ? dc_cc_at(cc)->depth : 0) + lazy;
}

/* Every 256th call encoded (DC_TICK_DUE): sample the edge's frequency and
 * fold the tick's pushes into the count. */
DC_NOINLINE static void sample(dc_thread *t, uint32_t e) {
  t->cc_pushes += t->tick >> DC_TICK_PUSH_SHIFT;
  t->tick = 0;
  atomic_fetch_add_explicit(&dc_edge_at(e)->hits, 1, memory_order_relaxed);
  t->cc_depth_sum += cc_depth(t);
  t->cc_depth_samples++;
}

DC_NOINLINE static void verify_event(dc_thread *t) {
  t->verify_countdown = (uint64_t)dc_opt.verify;
  dc_verify(t);
}

/* Cache miss: the global table (creating the edge if new), then fill the
 * set's first slot, its entry moving to the second. */
DC_NOINLINE static dc_ecache *ecache_fill(dc_thread *t, dc_ecache *set, uintptr_t cs,
                                          uintptr_t callee) {
  uint32_t e = dc_edge_get(t->node, cs, callee);
  set[1] = set[0];
  dc_ecache *c = set;
  const dc_dict *d = t->dict;
  uint64_t code = dc_dict_code(d, e);
  c->cs = cs;
  c->callee_pc = callee;
  c->caller = t->node;
  c->edge = e;
  c->callee = dc_edge_at(e)->callee;
  c->add = code == DC_UNENCODED ? d->max_id + 1 : code;
  c->tick = e >= d->n_edges      ? DC_TICK_NEW
            : code == DC_UNENCODED ? DC_TICK_CALL + DC_TICK_PUSH
                                   : DC_TICK_CALL;
  return c;
}

/* ------------------------------------------------------------ ablations */
/* capture=stackwalk|cct (benchmarking what the encoding buys; see
 * racedet/capture.c).  DC_PENDING_CAPTURE, set in every thread, sends every
 * event here through the slow paths, so the fast paths have no check.
 * stackwalk: nothing to do at calls and returns (depth stays 0, so exits
 * return at once).  cct: the frame stack as for DACCE (same resync at
 * entries, exits, longjmp and catch), but the state is a calling context
 * tree node in t->cc and its function's graph node in t->node (the base of
 * the pc deltas in shadow cells).  The per-thread edge cache is the cache
 * in front of the global tree: (parent node, call site, callee) -> child. */
DC_NOINLINE static void capture_entry(dc_thread *t, uintptr_t cs, uintptr_t callee,
                                      uintptr_t sp, int cyg) {
  if (dc_capture_mode != DC_CAPTURE_CCT) return;
  dc_enter(t);
  if (dc_depth(t) && dead_at_entry(t->top[-1].sp, sp, cyg)) resync_entry(t, sp, cyg);
  dc_ecache *set = dc_ecache_set(t, cs, callee), *c = dc_ecache_hit(set, cs, callee, t->cc);
  if (!c) {
    set[1] = set[0];
    c = set;
    c->edge = rd_cct_child(t->cc, cs, callee, &c->callee);
    c->cs = cs;
    c->callee_pc = callee;
    c->caller = t->cc;
  }
  if (dc_unlikely(dc_depth(t) >= t->cap)) dc_thread_grow(t);
  dc_frame *f = t->top++;
  f->sp = sp;
  f->edge = c->edge; /* the tree node entered */
  f->saved_id = t->id;
  f->saved_node_cc = t->node_cc;
  t->cc = c->edge;
  t->node = c->callee;
  t->ctx_handle = 0;
  t->calls++;
  dc_leave(t);
}

/* the call site a frame was entered from */
static inline uintptr_t frame_cs(const dc_frame *f) {
  if (dc_unlikely(dc_capture_mode == DC_CAPTURE_CCT)) return rd_cct_cs(f->edge);
  if (dc_frame_raw(f)) return f->cs;
  return dc_edge_at(f->edge)->cs;
}

/* ------------------------------------------------------------ hooks */
/* Is there a newer dictionary than the thread's?  The re-encoder flags
 * threads (DC_PENDING_MIGRATE) after publishing one, so a thread can move to
 * it first (dc_capture migrates too) and get the flag afterwards.  dc_migrate
 * clears the flag, but nothing else did: the flag stayed, and every call
 * and return of that thread took the slow path for the rest of the run
 * (calltree ran in 7.1-8.1 s instead of 5.7-5.9 s in about half the runs).
 * So clear it here first, then compare: a dictionary published after the
 * clear flags the thread again. */
static inline int stale_dict(dc_thread *t) {
  if (dc_unlikely(atomic_load_explicit(&t->pending, memory_order_relaxed) & DC_PENDING_MIGRATE))
    atomic_fetch_and_explicit(&t->pending, ~DC_PENDING_MIGRATE, memory_order_seq_cst);
  return t->dict != atomic_load_explicit(&dc_cur_dict, memory_order_seq_cst);
}

/* Encode the call into raw frame f (the lowest raw one) over cached edge
 * c: the frame gets the state before the call and the edge, and the thread
 * the state the call leads to: an encoded call adds its code to the id; an
 * unencoded one (push: recursive, or past maxID's limit) starts a new id
 * and pushes lazily (DC_CC_LAZY).  Runs in the runtime (dc_materialize):
 * signal handlers wait. */
static inline void encode_frame(dc_thread *t, const dc_ecache *c, dc_frame *f, int push) {
  const dc_state s = *dc_state_of(&t->id);
  *dc_state_of(&f->saved_id) = s;
  f->edge = c->edge;
  f->cc = 0;
  if (push)
    *dc_state_of(&t->id) =
        (dc_state){c->add, DC_NODE_CC(c->callee, DC_CC_LAZY | (uint32_t)(f - t->frames))};
  else /* node was c->caller */
    *dc_state_of(&t->id) = (s + (dc_state){c->add, 0}) ^ (dc_state){0, c->caller ^ c->callee};
}

/* Encode the raw frames on top of the stack, bottom up: what every call
 * did in the eager encoder, now done when a context is needed (dc_capture,
 * rd_ctx_handle) for the calls since the last one.  The edge cache, the
 * samples for re-encoding (every 256th call encoded) and the count of
 * pushes over edges the dictionary does not know are as they were. */
DC_NOINLINE void dc_materialize_slow(dc_thread *t) {
  dc_enter(t);
  dc_frame *f = t->top;
  while (f > t->frames && dc_frame_raw(f - 1)) f--;
  /* (under the thread's dictionary, current or not: the edge cache holds its
   * codes, and a migration re-derives the frames encoded here, as it does
   * the others; dc_capture migrates) */
  for (; f < t->top; f++) {
    const uintptr_t cs = f->cs, callee = f->callee_pc;
    dc_ecache *set = dc_ecache_set(t, cs, callee), *c = dc_ecache_hit(set, cs, callee, t->node);
    if (dc_unlikely(!c)) c = ecache_fill(t, set, cs, callee);
    const uint32_t tick = c->tick;
    encode_frame(t, c, f, tick != DC_TICK_CALL);
    if (dc_unlikely(tick == DC_TICK_NEW)) { /* an edge new to the dictionary: unencoded */
      t->tick += DC_TICK_CALL + DC_TICK_PUSH;
      new_edge_push();
    } else {
      t->tick += tick;
    }
    if (dc_unlikely(t->tick & DC_TICK_DUE)) sample(t, c->edge);
  }
  dc_leave(t);
}

/* The slow entry: everything the fast one (hooks_x86_64.S) does not do
 * (reentrancy, the capture ablations, dead frames, a newer dictionary,
 * verification, growing the frame stack), then the same raw push. */
DC_NOINLINE static void func_entry_slow(uintptr_t cs, uintptr_t callee, uintptr_t sp, int cyg) {
  dc_thread *t = dc_cur();
  if (dc_unlikely(t->in_runtime)) return;
  if (dc_unlikely(atomic_load_explicit(&t->pending, memory_order_relaxed) & DC_PENDING_CAPTURE)) {
    capture_entry(t, cs, callee, sp, cyg);
    return;
  }
  dc_enter(t);
  if (dc_unlikely(dc_depth(t) && dead_at_entry(t->top[-1].sp, sp, cyg)))
    resync_entry(t, sp, cyg);
  if (dc_unlikely(stale_dict(t))) dc_migrate(t);
  if (dc_unlikely(t->top >= t->limit)) dc_thread_grow(t);
  dc_frame *f = t->top;
  f->cs = cs;
  f->callee_pc = callee;
  f->sp = sp;
  f->edge = DC_EDGE_RAW;
  t->ctx_handle = 0;
  t->top = f + 1;
  t->calls++;
  if (dc_unlikely(dc_opt.verify) && --t->verify_countdown == 0) verify_event(t);
  dc_leave(t);
}

DC_NOINLINE static void func_exit_slow(uintptr_t ra, uintptr_t sp) {
  dc_thread *t = dc_cur();
  if (dc_unlikely(t->in_runtime) || dc_unlikely(dc_depth(t) == 0)) return;
  dc_enter(t);
  uint32_t d = dc_depth(t) - 1;
  if (dc_unlikely(t->frames[d].sp < sp) && on_own_stack(t, sp)) {
    /* frames below sp are gone; was the exiting one among them? */
    uint32_t lo = dc_depth(t);
    while (lo > 0 && t->frames[lo - 1].sp < sp) lo--;
    if (frame_cs(&t->frames[lo]) == ra)
      d = lo; /* tail-jump into the hook: the exiting frame is frames[lo] */
    else
      d = lo ? lo - 1 : 0;
  }
  const int stale = stale_dict(t);
  restore_to(t, d);
  if (dc_unlikely(stale)) dc_migrate(t);
  if (dc_unlikely(dc_opt.verify) && --t->verify_countdown == 0) verify_event(t);
  dc_leave(t);
}

/* The fast entries' first instructions and their stores of the new top
 * (hooks_x86_64.S). */
extern const char dc_hook_entry_start[], dc_hook_entry_publish[], dc_hook_cyg_start[],
    dc_hook_cyg_publish[], dc_hook_exit_start[], dc_hook_exit_publish[];

void dc_hook_restart(void *uc) {
  static const char *const window[][2] = {{dc_hook_entry_start, dc_hook_entry_publish},
                                          {dc_hook_cyg_start, dc_hook_cyg_publish},
                                          {dc_hook_exit_start, dc_hook_exit_publish}};
  if (!uc) return;
  greg_t *rip = &((ucontext_t *)uc)->uc_mcontext.gregs[REG_RIP];
  const uintptr_t pc = (uintptr_t)*rip;
  for (int i = 0; i < 3; i++)
    if (pc > (uintptr_t)window[i][0] && pc <= (uintptr_t)window[i][1])
      *rip = (greg_t)(uintptr_t)window[i][0];
}

/* From the fast entries' slow branches (hooks_x86_64.S), and (dc_func_entry)
 * from the unit tests, which drive the encoder with made-up call sites. */
__attribute__((visibility("hidden"))) void dc_func_entry(uintptr_t cs, uintptr_t callee,
                                                         uintptr_t sp) {
  func_entry_slow(cs, callee, sp, 0);
}
__attribute__((visibility("hidden"))) void dc_cyg_func_entry(uintptr_t cs, uintptr_t callee,
                                                             uintptr_t sp) {
  func_entry_slow(cs, callee, sp, 1);
}

/* The return hook for what the fast exit (hooks_x86_64.S) leaves: an
 * encoded top frame (its saved state back), and a raw one whose stack
 * pointer does not say plainly that it is the exiting frame (the slow
 * path).  Here too, a known thread with nothing pending; the in_runtime
 * half of the slow word keeps a signal handler that interrupts a slow path
 * away from the state. */
__attribute__((visibility("hidden"))) void dc_func_exit(uintptr_t ra, uintptr_t sp) {
  dc_thread *t = dc_tls; /* (dc_unborn_thread: its slow word is set) */
  dc_frame *const f = t->top - 1;
  /* the top frame is dead (its E below sp) when E + 1 <= sp; at depth 0
   * f is the sentinel, whose E + 1 wraps to 0: an empty stack goes to the
   * slow path without a test of its own */
  if (dc_unlikely(dc_thread_slow_word(t)) || dc_unlikely(dc_frame_raw(f))) goto slow;
  if (dc_unlikely(f->sp + 1 <= sp)) {
    /* The function jumped to the hook after popping its frame (clang and
     * gcc both emit `jmp __tsan_func_exit`: 689 of SQLite's 1814 exits, 42%
     * of its exits at run time), so sp is its caller's and the top frame
     * looks dead.  If the frame under it is alive and the top one was
     * entered from ra, the top one is the exiting frame: what
     * func_exit_slow finds too (on the thread's own stack or not), for 10
     * instructions instead of 90.  Not at depth 0 (f is the sentinel and
     * has nothing under it); the capture ablations (frames of tree nodes,
     * not edges) have their slow word set. */
    if (f->sp == UINTPTR_MAX || f[-1].sp < sp || dc_edge_at(f->edge)->cs != ra) goto slow;
  }
  restore_from(t, f);
  return;
slow:
  func_exit_slow(ra, sp);
}

/* ------------------------------------------------------------ snapshots */

DC_EXPORT void dacce_capture(dacce_ctx *out) {
  dc_thread *t = dc_cur();
  if (dc_unlikely(t == &dc_dead_thread)) { /* past its end: no context left, the root */
    *out = (dacce_ctx){.node = DC_ROOT, .thread = t->serial};
    return;
  }
  dc_capture(t, out);
  if (dc_unlikely(dc_capture_mode != DC_CAPTURE_DACCE)) { /* no encoded context: the root */
    out->id = 0;
    out->node = DC_ROOT;
    out->cc = 0;
  }
}

DC_EXPORT void dacce_reencode(void) {
  dc_thread *t = dc_cur();
  while (!dc_reencode_now()) sched_yield();
  dc_migrate(t);
}

/* ------------------------------------------------------------ statistics */
static uint64_t thread_calls(const dc_thread *t) {
  return t->calls;
}
static uint64_t thread_pushes(const dc_thread *t) {
  return t->cc_pushes + (t->tick >> DC_TICK_PUSH_SHIFT);
}

void dc_stats_add_thread(const dc_thread *t) {
  atomic_fetch_add(&g_calls, thread_calls(t));
  atomic_fetch_add(&g_cc_pushes, thread_pushes(t));
  atomic_fetch_add(&g_cc_depth_sum, t->cc_depth_sum);
  atomic_fetch_add(&g_cc_depth_samples, t->cc_depth_samples);
}

DC_EXPORT void dacce_get_stats(dacce_stats *o) {
  *o = (dacce_stats){0};
  const dc_dict *d = atomic_load(&dc_cur_dict);
  o->nodes = atomic_load(&dc_nodes.n) - 1;
  o->edges = atomic_load(&dc_edges.n) - 1;
  o->max_id = d->max_id;
  o->reencodings = atomic_load(&dc_n_dicts) - 1;
  o->encoded_edges = d->n_encoded;
  o->back_edges = d->n_back;
  o->overflow_edges = d->n_overflow;
  o->cc_nodes = atomic_load(&dc_ccnodes.n) - 1;
  o->verified = atomic_load(&dc_verified);
  o->mismatches = atomic_load(&dc_mismatches);
  /* live threads' counters are added when they exit; add the caller's own */
  uint64_t calls = atomic_load(&g_calls), pushes = atomic_load(&g_cc_pushes);
  uint64_t dsum = atomic_load(&g_cc_depth_sum), dn = atomic_load(&g_cc_depth_samples);
  dc_thread *t = dc_self();
  if (t && t->serial != UINT32_MAX) {
    calls += thread_calls(t);
    pushes += thread_pushes(t);
    dsum += t->cc_depth_sum;
    dn += t->cc_depth_samples;
  }
  o->calls = calls;
  o->cc_pushes = pushes;
  o->avg_cc_depth = dn ? (double)dsum / (double)dn : 0.0;
  o->heap_records = rd_heap_records();
  o->sync_objects = rd_sync_objects();
}

static void print_stats(void) {
  dacce_stats s;
  dacce_get_stats(&s);
  double secs = (double)(dc_now_ns() - start_ns) / 1e9;
  dc_printf("==dacce== encoder statistics (pid %d)\n"
            "==dacce==   nodes %llu  edges %llu (encoded %llu, back %llu, overflow %llu)\n"
            "==dacce==   maxID %llu  re-encodings %llu\n"
            "==dacce==   calls %llu  ccStack pushes %llu (%.0f/s)  avg ccStack depth %.2f  "
            "ccStack nodes %llu\n",
            (int)getpid(), (unsigned long long)s.nodes, (unsigned long long)s.edges,
            (unsigned long long)s.encoded_edges, (unsigned long long)s.back_edges,
            (unsigned long long)s.overflow_edges, (unsigned long long)s.max_id,
            (unsigned long long)s.reencodings, (unsigned long long)s.calls,
            (unsigned long long)s.cc_pushes, secs > 0 ? (double)s.cc_pushes / secs : 0.0,
            s.avg_cc_depth, (unsigned long long)s.cc_nodes);
  uint64_t reclaimed, sweeps, cells, taken;
  rd_slot_stats(&reclaimed, &sweeps, &cells, &taken);
  if (sweeps)
    dc_printf("==dacce==   thread slots reclaimed %llu in %llu sweeps (%llu cells cleared)\n",
              (unsigned long long)reclaimed, (unsigned long long)sweeps,
              (unsigned long long)cells);
  if (taken)
    dc_printf("==dacce==   thread slots taken over from threads that ended unseen %llu\n",
              (unsigned long long)taken);
  if (s.heap_records)
    dc_printf("==dacce==   heap block records %llu\n", (unsigned long long)s.heap_records);
  if (s.sync_objects)
    dc_printf("==dacce==   sync objects %llu\n", (unsigned long long)s.sync_objects);
  uint64_t dl_made, dl_backward, dl_searches;
  rd_dl_stats(&dl_made, &dl_backward, &dl_searches);
  if (dl_made)
    dc_printf("==dacce==   lock-order edges %llu (against the order %llu), searches %llu\n",
              (unsigned long long)dl_made, (unsigned long long)dl_backward,
              (unsigned long long)dl_searches);
  const uint64_t back = rd_taken_back();
  if (back) dc_printf("==dacce==   releases taken back %llu\n", (unsigned long long)back);
  if (dc_opt.verify)
    dc_printf("==dacce==   verified contexts %llu  mismatches %llu\n",
              (unsigned long long)s.verified, (unsigned long long)s.mismatches);
}

extern int __tsan_on_finalize(int failed) __attribute__((weak));

/* At exit: statistics, the dump, then the exit status.  A verification
 * failure wins over races.  _exit skips stdio's own flush, so flush first. */
__attribute__((destructor)) static void dc_fini(void) {
  if (atomic_load(&init_state) != 2) return;
  if (dc_opt.stats) print_stats();
  if (*dc_opt.dump) dc_dump_write(dc_opt.dump);
  if (atomic_load(&dc_mismatches)) {
    dc_printf("==dacce== verification FAILED: %llu mismatches\n",
              (unsigned long long)atomic_load(&dc_mismatches));
    fflush(NULL);
    _exit(99);
  }
  dc_options_program_defaults();
  if (dc_opt.report_thread_leaks) rd_report_leaks();
  uint64_t races = rd_reports_count();
  if (races && dc_opt.report_text)
    dc_printf("==dacce== reported %llu warning%s\n", (unsigned long long)races, races > 1 ? "s" : "");
  /* The program's hook may change the verdict, as under ThreadSanitizer
   * (its return value decides between exitcode and the program's own
   * status); the launcher is told, and decides so too. */
  const int failed = races != 0;
  int verdict = failed, told = 0;
  if (__tsan_on_finalize) {
    verdict = __tsan_on_finalize(failed) != 0;
    if (verdict != failed) told = rd_report_verdict(failed, verdict);
  }
  /* reports the launcher never saw (its channel was lost) decide the
   * status here, or a run with races would pass; so does a verdict it was
   * not told.  override_exit_status=2 (a program that a command run under
   * --trace-children started, whose status is for that command: a test
   * runner): the reports the launcher printed decide, or the hook's word. */
  int override = rd_reports_unseen() || (!failed && !told);
  if (dc_opt.override_exit_status == 2) override |= rd_reports_printed() != 0 || verdict != failed;
  else if (dc_opt.override_exit_status) override = 1;
  if (verdict && override) {
    fflush(NULL);
    _exit(dc_opt.exitcode);
  }
}

/* The program's own hook, called once the runtime is up, as ThreadSanitizer
 * calls it (sanitizer/tsan_interface.h); from the constructor, not from
 * dc_init, which runs before the first thread has its state. */
extern void __tsan_on_initialize(void) __attribute__((weak));

__attribute__((constructor)) static void dc_ctor(void) {
  dc_cur();
  if (__tsan_on_initialize) __tsan_on_initialize();
}
