/* internal.h: the encoder's data model, shared by encoder/, decoder/ and racedet/.
 *
 * Naming: dacce_* is public (include/dacce.h); dc_* is internal across files.
 *
 * The model (see docs/encoding.md for the worked example):
 *  - node:  a function, identified by one pc inside it (for -fsanitize=thread the
 *           return address of its __tsan_func_entry call; for
 *           -finstrument-functions its address).  Node 0 is the virtual ROOT
 *           from which every thread's outermost frame is entered.
 *  - edge:  (caller node, call-site pc, callee node).  Indirect calls are
 *           ordinary edges: our lookup is keyed by the target, so unlike the
 *           DACCE paper we can encode them.
 *  - dict:  an immutable encoding of the graph known at one timestamp: an
 *           additive code per encoded edge (Ball-Larus/PCCE numbering, see
 *           reencode.c), numCC per node, maxID.
 *  - ccnode: a persistent, hash-consed ccStack entry <edge, id, count, parent>
 *           pushed when an unencoded edge is crossed.
 *  - thread: per-thread frame stack (the truth we maintain from entry/exit
 *           events and resynchronise by stack pointer) and the encoded state
 *           {id, cc, node, dict}.
 */
#ifndef DACCE_INTERNAL_H
#define DACCE_INTERNAL_H

#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dacce.h"
#include "hooks_offsets.h"

/* ---------------------------------------------------------------- macros */
#define dc_likely(x) __builtin_expect(!!(x), 1)
#define dc_unlikely(x) __builtin_expect(!!(x), 0)
#define DC_NOINLINE __attribute__((noinline))
#define DC_INLINE static inline __attribute__((always_inline))
#define DC_EXPORT __attribute__((visibility("default")))
/* Thread-local variables: in the static runtime (DACCE_IN_EXECUTABLE,
 * CMakeLists.txt), at a fixed offset from %fs (one instruction a read);
 * in libdacce.so, at an offset the loader sets (two). */
#ifdef DACCE_IN_EXECUTABLE
#define DC_TLS __thread __attribute__((tls_model("local-exec")))
#else
#define DC_TLS __thread __attribute__((tls_model("initial-exec")))
#endif
#define DC_COLD __attribute__((cold, noinline))

/* ---------------------------------------------------------------- common.c */
/* snprintf's contract, without the printf family (the runtime intercepts
 * it): d i u o x X c s p f %, flags, width, precision, length modifiers. */
int dc_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
int dc_snprintf(char *buf, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* all of p to fd (raw write(2)s; again after EINTR; stops at an error) */
void dc_write_all(int fd, const void *p, size_t n);
/* Logging that never allocates: formats into a stack buffer, write(2)s it. */
void dc_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dc_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Anonymous memory, MAP_NORESERVE; dies on failure. */
void *dc_mmap(size_t size);
void dc_munmap(void *p, size_t size);
/* The mapping of size bytes at *slot, made (dc_mmap) if there is none yet:
 * of threads that race to make it, one wins and the others' go. */
void *dc_mmap_once(void *_Atomic *slot, size_t size);
/* the raw system calls (the runtime's own mappings; MAP_FAILED, -1 and
 * errno on failure) */
void *dc_sys_mmap(void *addr, size_t size, int prot, int flags, int fd, off_t off);
int dc_sys_munmap(void *addr, size_t size);
int dc_sys_mprotect(void *addr, size_t size, int prot);
void *dc_sys_mremap(void *old, size_t old_size, size_t size, int flags, void *to);
/* Fork safety: every internal spinlock (or array of them) is registered, in
 * the order the runtime nests them; fork() takes them all in that order and
 * releases them in both processes, so the child never inherits a lock held
 * by a thread that does not exist there.  rank orders the registrations. */
void dc_atfork_register(int rank, _Atomic int *first, unsigned count, size_t stride);
/* ... with a function that takes (1) or drops (0) locks nested inside them */
void dc_atfork_register_inner(int rank, _Atomic int *first, unsigned count, size_t stride,
                              void (*inner)(int lock));
void dc_atfork_prepare(void);
void dc_atfork_release(void);
#define DC_RANK_REPORT 10
#define DC_RANK_REENCODE 20
#define DC_RANK_GRAPH 30
#define DC_RANK_CC 40
#define DC_RANK_CTX 50
#define DC_RANK_SITES 52 /* racedet/site.c: pcs of functions (a leaf) */
#define DC_RANK_CAPTURE 55 /* racedet/capture.c: stack table, calling context tree */
#define DC_RANK_STATES 60
#define DC_RANK_SWEEP 63 /* racedet/rd_thread.c: a sweep of spent slots (then slots, floor) */
#define DC_RANK_SLOTS 65 /* racedet/rd_thread.c: thread slots and incarnations */
#define DC_RANK_FDKEYS 68 /* racedet/intercept_fd.c: descriptors per file key (forgets objects) */
#define DC_RANK_SYNC 70 /* stripes, then the pool and each object (sync.c) */
#define DC_RANK_LOCKGRAPH 75 /* racedet/deadlock.c: the lock-order graph */
#define DC_RANK_HEAP 80
#define DC_RANK_SMALL 92 /* racedet/heap_small.c: a size class's stack of batches (a leaf) */
#define DC_RANK_LEAKS 95 /* racedet/thread_end.c */
#define DC_RANK_EXTERNAL 97 /* racedet/annotations.c: objects of the external-race API (a leaf) */
#define DC_RANK_FLOOR 98 /* racedet/floor.c: the registry of clocks */
#define DC_RANK_ATOMIC 100
#define DC_RANK_DICT 110
#define DC_RANK_ALLOC 120
#define DC_RANK_PERM 130
/* Bump allocator for small permanent objects (never freed). */
void *dc_perm_alloc(size_t size);
/* Size-class allocator for runtime objects that are freed (clocks, sets):
 * never malloc, which the detector intercepts.  Memory comes back zeroed. */
void *dc_alloc(size_t size);
void dc_free(void *p, size_t size);
struct dc_thread;
void dc_alloc_thread_end(struct dc_thread *t); /* its kept blocks back to everyone */
uint64_t dc_hash(const void *p, size_t n);
/* A hash of one word, inline, for tables keyed by an address that are probed
 * on every lock, unlock, malloc and free (dc_hash's call into XXH3 was 33
 * instructions of them): MurmurHash3's 64-bit finaliser, whose every output
 * bit depends on every input bit (callers use low and high bits alike). */
static inline uint64_t dc_hash_word(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}
void dc_lock_wait(_Atomic int *l); /* dc_lock's wait (after dc_thread, below) */
void dc_lock_wake(_Atomic int *l); /* dc_unlock's wake of a sleeper */
/* The runtime never calls the memory and string functions the detector
 * intercepts (tests/scripts/check_runtime_calls.sh enforces it): these are its own. */
static inline void dc_memcpy(void *d, const void *s, size_t n) {
  char *dp = d;
  const char *sp = s;
  for (size_t i = 0; i < n; i++) dp[i] = sp[i];
}
static inline void dc_memset(void *d, int c, size_t n) {
  char *dp = d;
  for (size_t i = 0; i < n; i++) dp[i] = (char)c;
}
/* Sorts a[0..n) so that before(a[i], a[j]) or neither is before the other
 * for i < j (a heapsort: no allocation, no libc qsort, whose buffer and
 * whose free of it at every call go through the program's malloc family,
 * an allocator of the program's own when it has one). */
void dc_sort_u32(uint32_t *a, uint32_t n, int (*before)(uint32_t x, uint32_t y));
static inline int dc_streq(const char *a, const char *b) {
  while (*a && *a == *b) a++, b++;
  return *a == *b;
}
static inline size_t dc_strlen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}
/* what follows path's last '/', or path */
static inline const char *dc_basename(const char *path) {
  const char *b = path;
  for (const char *p = path; *p; p++)
    if (*p == '/') b = p + 1;
  return b;
}
uint64_t dc_now_ns(void);
/* The runtime's own I/O: raw system calls, never the program's (intercepted)
 * write and read, which would order the runtime's logging between threads as
 * if the program had done it (tests/scripts/check_runtime_calls.sh). */
long dc_write(int fd, const void *p, size_t n);
long dc_read(int fd, void *p, size_t n);
/* the runtime's own files, by system call (the program's open and close are
 * intercepted: racedet/intercept_fd.c) */
int dc_open(const char *path, int flags, int mode);
int dc_close(int fd);

/* A dense array that never moves: one big NORESERVE reservation, pages are
 * committed as they are touched.  Append is under the owner's lock; readers
 * may read any index below the published count without locks. */
typedef struct dc_vec {
  char *base;
  size_t elem, cap;
  _Atomic uint32_t n;
} dc_vec;
void dc_vec_init(dc_vec *v, size_t elem, size_t cap);
static inline void *dc_vec_at(const dc_vec *v, uint32_t i) { return v->base + (size_t)i * v->elem; }

/* A chain word: the newest of up to DC_CHAIN_MAX records chained from their
 * owner (its number, below 2^28), with their count in the top 4 bits; each
 * record names the next older one.  A ccStack node's kids (ccstack.c) and
 * its contexts (racedet/rd_thread.c) are found so, their first few beside
 * it instead of through a global index. */
#define DC_CHAIN_MAX 8u
#define DC_CHAIN_BITS 28
static inline uint32_t dc_chain_head(uint32_t w) { return w & ((1u << DC_CHAIN_BITS) - 1); }
static inline int dc_chain_full(uint32_t w) { return w >> DC_CHAIN_BITS >= DC_CHAIN_MAX; }
static inline uint32_t dc_chain_add(uint32_t w, uint32_t i) {
  return ((w >> DC_CHAIN_BITS) + 1) << DC_CHAIN_BITS | i;
}

/* A grow-only hash index from 64-bit hashes to uint32 indices below
 * DC_INDEX_MAX (0 = none), over records kept elsewhere (a dc_vec), which the
 * caller compares.  A slot is 4 bytes: the index and 4 bits of the hash (a
 * tag: one candidate in 16 of another hash reaches the caller's compare);
 * growth asks the owner for each record's hash again (rehash).  With 8-byte
 * slots (the hash's high 32 bits) mergesort's contexts and ccStack nodes
 * took 48 MB of index at its peak.  Lookups are lock-free; inserts hold the
 * owner's lock.  On growth the old table stays mapped but its pages are
 * given back (readers may still be in it: they read zeros there, a miss,
 * which every reader re-checks under the lock). */
#define DC_INDEX_BITS 28
#define DC_INDEX_MAX (1u << DC_INDEX_BITS)
typedef struct dc_itab {
  uint32_t mask;
  uint32_t slots[]; /* tag << DC_INDEX_BITS | idx */
} dc_itab;
typedef struct dc_index {
  _Atomic(dc_itab *) tab;
  uint32_t used;
  uint64_t (*rehash)(uint32_t idx); /* the hash of record idx */
} dc_index;
void dc_index_init(dc_index *x, uint32_t log2cap, uint64_t (*rehash)(uint32_t idx));
static inline const dc_itab *dc_index_tab(dc_index *x) {
  return atomic_load_explicit(&x->tab, memory_order_acquire);
}
/* A hash's tag, in its slot's high bits (the probe starts from bits 32 up). */
static inline uint32_t dc_index_tag(uint64_t h) {
  return (uint32_t)h & ~(DC_INDEX_MAX - 1);
}
/* Iterate: start with *pos = (uint32_t)(h >> 32); returns the next candidate or 0. */
static inline uint32_t dc_index_next(const dc_itab *t, uint64_t h, uint32_t *pos) {
  const uint32_t tag = dc_index_tag(h);
  for (;;) {
    uint32_t s = __atomic_load_n(&t->slots[*pos & t->mask], __ATOMIC_ACQUIRE);
    (*pos)++;
    if (!s) return 0;
    if ((s & ~(DC_INDEX_MAX - 1)) == tag) return s & (DC_INDEX_MAX - 1);
  }
}
void dc_index_insert(dc_index *x, uint64_t h, uint32_t idx);

/* The launcher's answer to a raw report, on report_ack_fd: written whole
 * (atomic, well under PIPE_BUF).  pid: the reporting process's (0: whoever
 * waits, for a line the launcher could not read); printed: 1 when the
 * report was printed, 0 when suppressed or left out as a repeat.  Several
 * processes (forked, or started under --trace-children) share the pipe:
 * each waits holding a lock on it (racedet/report.c ack_lock), and an
 * answer to another pid is a stale one and is skipped. */
typedef struct dc_report_ack {
  int32_t pid, printed;
} dc_report_ack;

/* ---------------------------------------------------------------- options */
/* One table: type, name, default, description.  Generates the struct, the
 * defaults, the parser and help=1 output (options.c). */
#define DC_OPTIONS(X)                                                               \
  X(int, verify, 0, "decode the context every Nth event and compare it with the "  \
                    "frame stack (1 = every event, 0 = off)")                       \
  X(int, verify_abort, 1, "abort at the first verification mismatch")               \
  X(int, stats, 0, "print encoder statistics to stderr at exit")                    \
  X(int, reencode, 1, "adapt the encoding while the program runs (0 = never)")      \
  X(int, reencode_min_pushes, 256,                                                 \
    "ccStack pushes over new edges before a re-encoding is considered")             \
  X(int, reencode_per_edge, 4,                                                      \
    "and at least this many such pushes per known edge (amortises its cost)")       \
  X(int, cc_compress, 1, "ccStack recursion compression: 0 off, 1 exact (default), "  \
                         "2 the DACCE paper's id+call-site test (unsound; for tests)") \
  X(int, max_id_bits, 63, "numCC limit in bits; edges that would pass it stay "     \
                          "unencoded (lower it to test overflow handling)")         \
  X(int, slot_epochs, 1048575, "releases a thread slot serves before its thread "   \
                               "moves to another; used-up slots are swept out of "  \
                               "the shadow and serve again (lower it to test that)") \
  X(int, slots, 8192, "thread slots: threads alive at once that are checked (lower "\
                      "it, with slot_epochs, to test reclamation)")                  \
  X(int, heap_trim_kb, 1024, "KiB free at the top of a glibc heap before free() gives "\
                             "it back to the kernel (M_TRIM_THRESHOLD; 0: glibc's "   \
                             "own); left to glibc when GLIBC_TUNABLES or MALLOC_*_ "  \
                             "set its malloc")                                         \
  X(int, small_heap, 1, "serve heap blocks of up to 256 bytes from the runtime's "  \
                        "own size classes, with no headers (0: all from glibc)")    \
  X(int, help, 0, "print the options and exit")                                     \
  X(int, report_text, 1, "print reports as text on stderr")                         \
  X(str, raw_reports, "", "append each report as a JSON line to this file (the "    \
                          "dacce-race launcher symbolises them)")                   \
  X(int, report_ack_fd, 0, "a pipe on which the launcher acknowledges each raw "    \
                           "report once it has printed or suppressed it; the "      \
                           "reporting thread waits for it (set by dacce-race; 0: "  \
                           "none)")                                                 \
  X(str, report_via, "", "the launcher's ends of those two pipes, as PID/FD/FD/"     \
                         "INODE/INODE (reports, then answers), for a program that " \
                         "finds its own descriptors closed or reused: it opens "    \
                         "them again through /proc (set by dacce-race)")            \
  X(int, tsan_header, 0, "start text reports with 'WARNING: ThreadSanitizer:' so "  \
                         "tools that parse TSan output count them")                 \
  X(int, halt_on_error, 0, "exit after the first report")                           \
  X(int, exitcode, 66, "exit status when races were reported")                      \
  X(int, report_bugs, 1, "0: report nothing (ThreadSanitizer's report_bugs)")     \
  X(int, report_thread_leaks, 1, "at exit, report threads that finished but were "  \
                                 "neither joined nor detached")                     \
  X(int, detect_deadlocks, 1, "report lock-order inversions (potential deadlocks): "\
                              "cycles in the order threads take locks")              \
  X(int, report_mutex_bugs, 1, "report mutex misuse: unlock of a lock the thread "  \
                               "does not hold, double lock, destroy of a held lock") \
  X(int, report_signal_unsafe, 1, "report signal handlers that call the malloc family "\
                                  "(async-signal-unsafe) or change errno")             \
  X(int, override_exit_status, 1, "exit with exitcode when races were reported (0: "\
                                   "keep the program's own status; 2: only when the " \
                                   "launcher printed one of them, which it says in "  \
                                   "its acknowledgement)")                            \
  X(str, dump, "", "write the call graph and all dictionaries to this file at "     \
                   "exit (for dacce-decode)")                                       \
  X(str, log_contexts, "", "file that dacce_log() appends contexts to")                \
  X(str, capture, "dacce", "how each recorded access's calling context is captured: "  \
                           "dacce (the encoding), or for benchmarking what it buys, "  \
                           "stackwalk (a frame-pointer walk per recorded access; build "\
                           "with -fno-omit-frame-pointer) or cct (a calling context "  \
                           "tree); stackwalk reports show no thread ancestry")

typedef int dc_opt_int;
typedef const char *dc_opt_str;
typedef struct dc_options {
#define DC_OPT_FIELD(type, name, def, desc) dc_opt_##type name;
  DC_OPTIONS(DC_OPT_FIELD)
#undef DC_OPT_FIELD
} dc_options;
extern dc_options dc_opt;
void dc_options_init(void);
/* report_bugs, report_thread_leaks, detect_deadlocks, report_mutex_bugs and
 * report_signal_unsafe as the program's own __tsan_default_options() sets them, where
 * DACCE_OPTIONS does not; read at
 * the first report (calling the program's function during initialisation
 * would run its instrumentation before the runtime is up) */
void dc_options_program_defaults(void); /* idempotent; reads DACCE_OPTIONS */
/* dc_opt.capture, parsed (racedet/capture.c does the ablation modes) */
#define DC_CAPTURE_DACCE 0
#define DC_CAPTURE_STACKWALK 1
#define DC_CAPTURE_CCT 2
extern int dc_capture_mode;

/* ---------------------------------------------------------------- graph.c */
#define DC_ROOT 0u
#define DC_UNENCODED UINT64_MAX

typedef struct dc_node {
  uintptr_t pc;
} dc_node;

typedef struct dc_edge {
  uintptr_t cs;        /* call site (return address in the caller) */
  uintptr_t callee_pc; /* = dc_node_at(callee)->pc, kept here for the lookup */
  uint32_t caller;     /* node */
  uint32_t callee;    /* node */
  _Atomic uint64_t hits; /* sampled traversal count (frequency ordering) */
} dc_edge;

extern dc_vec dc_nodes;  /* dc_node, index = node id */
extern dc_vec dc_edges;  /* dc_edge, index = edge id (edge 0 is unused) */
extern dc_index dc_edge_index;

static inline dc_edge *dc_edge_at(uint32_t i) { return (dc_edge *)dc_vec_at(&dc_edges, i); }
static inline dc_node *dc_node_at(uint32_t i) { return (dc_node *)dc_vec_at(&dc_nodes, i); }
void dc_graph_init(void);
/* Slow path: find or create the edge (caller, cs, callee pc). */
uint32_t dc_edge_get_slow(uint32_t caller, uintptr_t cs, uintptr_t callee_pc);
/* Find or create the node of a pc (the capture ablations' pc bases). */
uint32_t dc_node_get(uintptr_t pc);

static inline uint64_t dc_edge_hash(uint32_t caller, uintptr_t cs, uintptr_t callee_pc) {
  uintptr_t k[3] = {cs, callee_pc, caller};
  return dc_hash(k, sizeof k);
}
/* Fast path: lock-free lookup, creating the edge on a miss. */
static inline uint32_t dc_edge_get(uint32_t caller, uintptr_t cs, uintptr_t callee_pc) {
  uint64_t h = dc_edge_hash(caller, cs, callee_pc);
  const dc_itab *tab = dc_index_tab(&dc_edge_index);
  uint32_t pos = (uint32_t)(h >> 32), i;
  while ((i = dc_index_next(tab, h, &pos))) {
    dc_edge *e = dc_edge_at(i);
    if (e->cs == cs && e->callee_pc == callee_pc && e->caller == caller) return i;
  }
  return dc_edge_get_slow(caller, cs, callee_pc);
}

/* ---------------------------------------------------------------- ccstack.c */
typedef struct dc_ccnode {
  uint64_t id;     /* id of the segment below, at the call through edge */
  uint32_t edge;   /* the unencoded edge that was crossed */
  uint32_t count;  /* repetitions (recursion compression) */
  uint32_t parent; /* ccnode below (0 = none) */
  uint32_t depth;  /* entries below and including this one, counting repetitions */
  _Atomic uint32_t kids; /* the chain (DC_CHAIN_MAX) of the first nodes pushed onto it */
  uint32_t sibling;      /* the next older one in its parent's chain (0: none) */
} dc_ccnode;
extern dc_vec dc_ccnodes;
static inline dc_ccnode *dc_cc_at(uint32_t i) { return (dc_ccnode *)dc_vec_at(&dc_ccnodes, i); }
void dc_cc_init(void);
/* Push <id, edge> on top of cc (with recursion compression); max_id is the
 * dictionary's, needed to know where the segment under the top began. */
uint32_t dc_cc_push(uint32_t cc, uint32_t edge, uint64_t id);
/* A lazy ccStack value, DC_CC_LAZY | i: the ccStack that the entry into the
 * thread's frames[i] (over an unencoded edge) pushes, not computed yet.
 * Calls push lazily, so that a push costs what an encoded call costs; the
 * push is made when a context is captured (dc_capture; most calls never
 * are).  Lazy values are only ever in a thread's t->cc and its frames'
 * saved_cc, never in a captured context: they name frames, which a pop
 * reuses, and every frame one names lies below the one holding it. */
#define DC_CC_LAZY 0x80000000u

/* ---------------------------------------------------------------- reencode.c */
typedef struct dc_dict {
  uint32_t ts;
  uint32_t n_edges;   /* edges with index < n_edges were seen by this encoding */
  uint32_t n_nodes;
  uint64_t max_id;    /* every acyclic context id lies in [0, max_id] */
  uint64_t *code;     /* [n_edges] additive code or DC_UNENCODED */
  uint64_t *numcc;    /* [n_nodes] number of encoded contexts ending there */
  /* decoding index: incoming encoded edges of node n, sorted by code, are
   * in_edges[in_off[n] .. in_off[n+1]) */
  uint32_t *in_off;
  uint32_t *in_edges;
  uint32_t n_encoded, n_back, n_overflow;
} dc_dict;

#define DC_MAX_DICTS 65536
extern _Atomic(dc_dict *) dc_cur_dict;
extern dc_dict *dc_dicts[DC_MAX_DICTS];
extern _Atomic uint32_t dc_n_dicts;
void dc_reencode_init(void);
/* Building blocks, also for hand-made dictionaries (tests, dacce-decode):
 * new (all edges unencoded), fill code[]/numcc[], finish (index, maxID),
 * publish (assigns the next timestamp, makes it current). */
dc_dict *dc_dict_new(uint32_t n_edges, uint32_t n_nodes);
void dc_dict_finish(dc_dict *d);
void dc_dict_publish(dc_dict *d);
/* Compute and publish a new dictionary; returns 0 when another thread was
 * already doing it. */
int dc_reencode_now(void);
/* Edge code in dictionary d (DC_UNENCODED for edges it does not encode). */
static inline uint64_t dc_dict_code(const dc_dict *d, uint32_t e) {
  return e < d->n_edges ? d->code[e] : DC_UNENCODED;
}
extern _Atomic uint64_t dc_new_edge_pushes; /* pushes over edges newer than the dict */

/* ---------------------------------------------------------------- thread.c */
/* A frame of the thread's frame stack.  The entry hook only records the
 * call (a raw frame: call site, callee pc, stack pointer; edge DC_EDGE_RAW);
 * the call is encoded when a context is captured (dc_materialize), which
 * turns the raw frames on top of the stack into encoded ones, bottom up.
 * The encoded frames are always a prefix of the stack, and the thread's
 * id, node and cc are the encoding of that prefix. */
typedef struct dc_frame {
  union {
    uint64_t saved_id; /* encoded state before the call, restored at exit */
    uintptr_t cs;      /* raw: the call site (the caller's return address) */
  };
  union {
    struct {
      uint32_t saved_node; /* = the edge's caller */
      uint32_t saved_cc;
    };
    uint64_t saved_node_cc;
    uintptr_t callee_pc; /* raw: a pc in the callee (its entry hook's return address) */
  };
  uintptr_t sp;        /* caller's stack pointer at the __tsan_func_entry call */
  uint32_t edge;       /* edge taken into this frame, or DC_EDGE_RAW */
  uint32_t cc;         /* entered over an unencoded edge: the ccStack the entry
                        * pushed, once resolved (0 = not yet; dc_cc_resolve) */
} dc_frame;
#define DC_EDGE_RAW 0xffffffffu
static inline int dc_frame_raw(const dc_frame *f) { return f->edge == DC_EDGE_RAW; }

/* Per-thread two-way cache in front of the global edge table (dc_ecache_set):
 * the lookup that encodes a call is one multiply, one line, three compares
 * when the edge is in the set's first slot.  Entries also hold
 * the edge's code under the thread's dictionary; migration flushes them.
 * (Indexing by a multiplicative hash, not xxHash: this is a cache probed on
 * every call, not a table; the global tables use xxHash.) */
#define DC_ECACHE_BITS 11
typedef struct dc_ecache {
  uintptr_t cs, callee_pc;
  uint64_t add;  /* the call's new id: id + add if encoded, else add (maxID + 1) */
  uint32_t caller, edge;
  uint32_t callee; /* (an encoded call's node_cc is the caller's xor caller ^ callee) */
  uint32_t tick; /* what encoding the call adds to the thread's tick: DC_TICK_CALL,
                  * plus DC_TICK_PUSH if unencoded; DC_TICK_NEW for an edge the
                  * dictionary does not know (unencoded, and counted) */
} dc_ecache;
/* A thread's tick counts the calls it encoded (dc_materialize) and its
 * ccStack pushes since its last sample of an edge's frequency, in one word:
 * calls in bits 0-8 (the 256th sets DC_TICK_DUE), pushes in bits 16-24.
 * Each sample folds the pushes into the 64-bit count (sample(),
 * encoder.c). */
#define DC_TICK_CALL 1u
#define DC_TICK_DUE 0x100u
#define DC_TICK_PUSH 0x10000u
#define DC_TICK_PUSH_SHIFT 16
#define DC_TICK_NEW 0x1000000u /* (only in dc_ecache.tick) */

/* ---------------------------------------------------------------- racedet */
typedef struct rd_vc {
  uint32_t *c; /* c[tid] = epoch */
  uint32_t n, cap;
} rd_vc;

typedef struct rd_ictx { /* per-thread cache of interned contexts */
  uint64_t id;
  uint64_t node_cc;  /* node | cc << 32, as the thread keeps them (DC_NODE_CC) */
  uint64_t ts_locks; /* the dictionary's timestamp | the held set's id << 32 */
  uint32_t handle;
  uint32_t cinc, cidx; /* the context's entry in the table of sites of incarnation cinc (site.c) */
} rd_ictx;
#define RD_ICTX_BITS 10
typedef struct rd_lstep { /* per-thread cache of held-set changes (rd_thread.c) */
  uintptr_t mutex;
  uint32_t from, to_op; /* lockset ids: from, and to << 1 | unlock */
} rd_lstep;
#define RD_LSTEP_BITS 7

typedef struct rd_pck { /* a thread's cache of pcs' indices in their functions (site.c) */
  uintptr_t npc; /* ~pc: an entry of zeroed memory holds none (pc 0 is a pc,
                  * an interceptor's unknown one) */
  uint32_t node, k;
} rd_pck;
/* The runtime's own blocks of up to RD_SMALL_MAX bytes (racedet/heap_small.c):
 * a class per RD_SMALL_ALIGN bytes; a thread's free blocks of a class, a
 * list (cur) and a full batch (spare), linked through their first words,
 * and the rest of its run of the class, [bump, bend), not yet handed out. */
#define RD_SMALL_ALIGN 16u
#define RD_SMALL_MAX 256u
#define RD_SMALL_CLASSES (RD_SMALL_MAX / RD_SMALL_ALIGN)
typedef struct rd_small {
  void *cur, *spare;
  uint32_t ncur, nspare;
  char *bump, *bend;
} rd_small;
/* 4096 entries (64 KiB, touched only where pcs land): SQLite has thousands
 * of access pcs, and with 1024 one site in five missed the cache (pc_find,
 * a probe of the global table); with 4096, one in twenty.  Until
 * 2026-12-01 a thread's start wrote an empty pc into each entry: 16 pages
 * written, each a fault, for every thread (a program that starts a thread
 * per std::promise spent 22% of its samples there, and more in the
 * kernel). */
#define RD_PCK_BITS 12
typedef struct rd_sites rd_sites;
/* An atomic load's object as this thread last joined it (racedet/access.c,
 * rd_atomic_load_pre): the object (s, its uid), and its version (seq) when
 * its clock was joined into the thread's clock (seq[0]) or into the clock
 * kept for acquire fences (seq[1]); 0: never. */
typedef struct rd_aload {
  uintptr_t addr;
  struct rd_sync *s;
  uint64_t uid;
  uint32_t seq[2];
} rd_aload;
#define RD_ALOAD_BITS 10

typedef struct rd_thread {
  rd_vc vc;           /* vc.c[tid] is this thread's extended epoch (racedet.h, rd_ext) */
  uint32_t tid;       /* thread slot (rd_thread.c), the index of clocks and cells */
  uint32_t epoch;     /* vc.c[tid]'s epoch bits, kept here for the hot path */
  /* no slot to go on with (rd_thread.c, no_slot): its accesses are ignored
   * (one count of ignore_accesses) and its epoch stands still, its
   * synchronisation goes on; a slot is asked for again after this many more
   * releases.  has_slot: tid is its own */
  uint32_t slotless, has_slot;
  uint64_t self;      /* tid and stamp as a cell holds them (racedet.h, rd_restamp) */
  uint64_t floorw;    /* the epoch after the last release, as a cell holds it (sh_covers) */
  /* releases that count: one more at each (rd_tick) and at a new slot, one
   * less for a release taken back (racedet/sync.c); and how many were */
  uint64_t pubs, taken_back;
  uint64_t incw;      /* the first epoch of the current incarnation, as floorw is */
  uint32_t floor_due; /* releases or cells found short since rd_floor_update (floor.c) */
  /* the current incarnation (rd_thread.c): its slot record and its table of
   * sites' contexts (site.c), with this thread's private index of it
   * (cmap); sites_full: the table is nearly full, and the next slow path
   * starts a new incarnation; site_ctx, site_c0: the context of the last
   * site made and its entry, valid until the context changes */
  uint32_t inc, sites_full;
  rd_sites *sites;
  uint32_t *cmap;
  uint32_t cmap_cap, cmap_n;
  uint32_t site_ctx, site_c0;
  struct rd_ictx *site_e; /* the context cache's entry of the current context */
  uint32_t pages[64][4];     /* (context, page of k, held set) -> cidx, this incarnation (site.c) */
  uint64_t split_of[64][2];  /* split entry -> its site, this incarnation (site.c) */
  rd_pck pck[1u << RD_PCK_BITS];
  int ignore_accesses, ignore_sync, disabled;
  int ignore_reads, ignore_writes; /* AnnotateIgnoreReads/Writes regions */
  struct rd_sync *sync_cache; /* sync objects taken from the pool for this
                               * thread to make, or freed by it (racedet/sync.c,
                               * pool_get, pool_put) */
  uint32_t sync_cached;        /* how many */
  uint64_t uid_next, uid_end;  /* uids taken for them, [next, end) */
  rd_vc acq_fence;    /* clocks seen by relaxed atomic loads, for acquire fences */
  rd_vc rel_fence;    /* clock at the last release fence, for relaxed stores */
  int has_rel_fence;
  rd_aload aload[1u << RD_ALOAD_BITS]; /* by address: atomic loads' objects */
  uintptr_t held[16]; /* mutexes held (low bit: read-locked), for reports */
  uint32_t nheld;
  struct rd_held {    /* per held[] entry: its lock object, where it was taken */
    uint64_t uid;     /* (racedet/deadlock.c; 0: unknown) */
    uint32_t ctx;
    uintptr_t pc;
  } held_at[16];
  uint64_t dl_seen[32]; /* lock-order edges this thread added (deadlock.c) */
  uint32_t lockset;    /* interned held[], part of every access's site (site.c) */
  int lockset_dirty;
  /* the interned (timestamp, signals' pcs) of the last context made
   * (rd_thread.c, aux_of) */
  uint32_t aux, aux_ts, aux_sig;
  rd_lstep step;       /* the one change since lockset was known (step_pending) */
  int step_pending;
  rd_lstep lsteps[1u << RD_LSTEP_BITS];
  rd_ictx ictx[1u << RD_ICTX_BITS];
  uintptr_t heap_pc;   /* the call site of operator new/delete in progress (intercept_heap.c) */
  uint32_t heap_cache, heap_ncache; /* free heap block records (intercept_heap.c, rec_get) */
  uintptr_t caught[8]; /* the objects of the C++ handlers running, innermost last */
  uint32_t ncaught;    /* handlers running (intercept_pthread.c, __cxa_begin_catch) */
  int in_vptr;         /* checking a vptr access (rd_vptr_access) */
} rd_thread;

/* Per-thread cache in front of the hash-consed ccStack: a push is a pure
 * function of (ccStack, edge, id), and recursive code pushes the same few
 * triples over and over, so a push is one multiply and a few compares
 * instead of a hash and a probe of the global table.  (Calls push lazily;
 * the pushes are made here when a context is captured: dc_cc_resolve.) */
#define DC_PCACHE_BITS 12
typedef struct dc_pcache {
  uint64_t id;
  uint32_t cc, edge, top;
  uint32_t mode; /* dc_opt.cc_compress it was computed under (tests change it) */
} dc_pcache;

/* An asynchronous signal that arrived while its thread was in the runtime,
 * delivered when it leaves (racedet/intercept_signal.c). */
#define DC_SIG_QUEUE 64 /* one per signal number at most (intercept_signal.c) */
#define DC_SIG_NEST 8   /* nested handlers whose frames are kept (dc_thread.sig_sp) */
#define DC_MAG_CLASSES 4 /* dc_alloc's size classes (16-128 bytes) a thread keeps blocks of */
typedef struct dc_deferred_sig {
  int sig;
  siginfo_t info;
  const void *oneshot; /* the handler's record if it was one-shot (SA_RESETHAND), else 0 */
} dc_deferred_sig;

typedef struct dc_thread {
  /* Hot encoded state: everything a call or a return over a cached edge
   * touches in the thread's state is in these first 64 bytes (the call
   * count and ctx_handle were on two other cache lines: dc_thread_hot_line). */
  uint64_t id;
  union { /* node and cc, read and written together by calls and returns */
    struct {
      uint32_t node;
      uint32_t cc;
    };
    uint64_t node_cc;
  };
  const dc_dict *dict;
  dc_frame *frames;
  dc_frame *top; /* frames + depth: the next call's frame (dc_depth) */
  uint32_t ctx_handle; /* interned current context for the detector, 0 = stale */
  uint32_t serial;
  /* Read together by the fast paths as one 64-bit word: nonzero means "take
   * the slow path".  in_runtime is the owner's reentrancy guard; pending is
   * set by other threads (DC_PENDING_*) and cleared by the owner. */
  uint32_t in_runtime __attribute__((aligned(8)));
  _Atomic uint32_t pending;
  dc_frame *limit;      /* frames + cap: a raw push at or past it is slow (grows) */
  uint64_t calls;       /* calls entered (statistics) */
  uint32_t tick;        /* edges encoded and pushes since the last sample (DC_TICK_*) */
  uint32_t locks_held;  /* runtime locks held (dc_lock) */
  uint32_t sig_pending; /* signals deferred while in the runtime (intercept_signal.c) */
  uint32_t cap;                 /* frames the frame stack has room for */
  uintptr_t stack_lo, stack_hi; /* the thread's own stack (resync only there) */
  uintptr_t tls_lo, tls_hi;     /* its static TLS block (reports' locations), or 0 */
  dc_ecache ecache[1u << DC_ECACHE_BITS];
  dc_pcache pcache[1u << DC_PCACHE_BITS];
  rd_thread rd;
  /* statistics (thread-local, summed at exit; calls and pushes also in tick) */
  uint64_t cc_pushes, cc_depth_sum, cc_depth_samples, verify_countdown;
  struct dc_thread *next_free;
  uint32_t exit_rounds; /* thread-specific-data destructor rounds seen at its exit (thread.c) */
  /* free blocks of dc_alloc's small size classes, kept by the thread
   * (common.c: a magazine per class, mag_n blocks on a list through mag) */
  void *mag[DC_MAG_CLASSES];
  uint32_t mag_n[DC_MAG_CLASSES];
  /* cold: the deferred signals (sig_pending of them), blocked until delivered */
  sigset_t sig_blocked;
  dc_deferred_sig sig_q[DC_SIG_QUEUE];
  uint32_t sig_depth;   /* signal handlers running on this thread (intercept_signal.c) */
  uintptr_t sig_send_sp; /* in raise, kill, ... (its frame; 0: not): the handlers it
                           * runs are synchronous (intercept_signal.c) */
  uint32_t sig_errno_moves; /* handlers that returned with errno changed: one
                             * that nests in another's run owns the change
                             * (intercept_signal.c, run_handler) */
  /* the handlers running (sig_depth of them, the first DC_SIG_NEST): their
   * signal, the trampoline's frame, which a longjmp or a catch above it
   * leaves (dc_sig_resync), and the pc the signal interrupted (from its
   * ucontext; 0: not known), which the contexts of the handler's accesses
   * keep for their reports (racedet/rd_thread.c, handle_of) */
  int sig_no[DC_SIG_NEST];
  uintptr_t sig_sp[DC_SIG_NEST];
  uintptr_t sig_pc[DC_SIG_NEST];
  /* free small blocks by class (racedet/heap_small.c); last, so that the
   * fields before keep their places */
  rd_small small[RD_SMALL_CLASSES];
} dc_thread;
/* node_cc: node in the low half, cc in the high half */
#define DC_NODE_CC(node, cc) ((uint64_t)(cc) << 32 | (node))
/* A thread's id and node_cc (and a frame's saved pair) as one 16-byte
 * value, which the call and return hooks read and write with one
 * instruction each: a signal handler that interrupts them sees the state
 * before or after, never an id of one and a node of the other (whose
 * context decodes to a wrong path, or none). */
typedef uint64_t dc_state __attribute__((vector_size(16), aligned(8), may_alias));
static inline dc_state *dc_state_of(uint64_t *id) { return (dc_state *)id; }
_Static_assert(offsetof(dc_thread, node_cc) == offsetof(dc_thread, id) + 8 &&
                   offsetof(dc_frame, saved_node_cc) == offsetof(dc_frame, saved_id) + 8,
               "dc_state: id and node_cc are adjacent");
/* The frames in use.  The thread keeps a pointer to the top, not the
 * count: the call and return hooks then find the top frame with one load
 * (the count cost them a load, a copy and a shift each, and one more
 * instruction to store). */
static inline uint32_t dc_depth(const dc_thread *t) { return (uint32_t)(t->top - t->frames); }
_Static_assert(offsetof(dc_thread, limit) + sizeof(dc_frame *) <= 64 &&
                   offsetof(dc_thread, ctx_handle) < 64,
               "dc_thread_hot_line: the fast paths' fields share the first cache line");
/* the offsets hooks_x86_64.S uses (hooks_offsets.h) */
_Static_assert(offsetof(dc_thread, top) == DC_T_TOP && offsetof(dc_thread, ctx_handle) == DC_T_CTX &&
                   offsetof(dc_thread, in_runtime) == DC_T_SLOW &&
                   offsetof(dc_thread, limit) == DC_T_LIMIT &&
                   offsetof(dc_thread, calls) == DC_T_CALLS && sizeof(dc_frame) == DC_F_SIZE &&
                   offsetof(dc_frame, cs) == DC_F_CS && offsetof(dc_frame, callee_pc) == DC_F_CALLEE &&
                   offsetof(dc_frame, sp) == DC_F_SP && offsetof(dc_frame, edge) == DC_F_EDGE &&
                   DC_EDGE_RAW == DC_EDGE_RAW_ASM,
               "hooks_offsets.h: the assembly hooks' offsets");

/* The edge cache is two-way: a pair of slots per hash, the newer entry
 * first (ecache_fill).  Direct-mapped and of 512 entries, it made a
 * call-heavy program's cost depend on where its code was loaded (a new
 * place each run, with ASLR): vcalls' 67 edges under valgrind (which loads
 * at a fixed address) had two hot ones in one slot after an unrelated
 * change moved its functions, so one call in eight missed (41 million
 * calls, 10.12 -> 11.19 G instructions); two-way of 512, three hot ones in
 * one set, as many misses.  2048 entries, two-way: 10.20 G, and calltree
 * pays 1.5 instructions a call for the second slot (7.34 -> 7.40 G).
 * Entries are touched one line each, so a thread commits only the pages
 * its edges hash to.  The key is callee_pc + 2 * cs (one lea; the shift
 * and xor it replaced cost two instructions a call), times the golden
 * ratio, whose top bits pick the set. */
static inline dc_ecache *dc_ecache_set(dc_thread *t, uintptr_t cs, uintptr_t callee_pc) {
  return &t->ecache[(uint32_t)(((callee_pc + 2 * cs) * 0x9E3779B97F4A7C15ull) >>
                               (64 - DC_ECACHE_BITS)) &
                    ~1u];
}
static inline int dc_ecache_is(const dc_ecache *c, uintptr_t cs, uintptr_t callee_pc,
                               uint32_t caller) {
  return c->cs == cs && c->callee_pc == callee_pc && c->caller == caller;
}
/* The edge's slot in set if the cache has it, else 0. */
static inline dc_ecache *dc_ecache_hit(dc_ecache *set, uintptr_t cs, uintptr_t callee_pc,
                                       uint32_t caller) {
  if (dc_ecache_is(&set[0], cs, callee_pc, caller)) return &set[0];
  if (dc_ecache_is(&set[1], cs, callee_pc, caller)) return &set[1];
  return 0;
}

/* The push cache is two-way: a pair of slots per hash, the newer entry
 * first (a direct-mapped cache of the same size missed one push in five
 * on calltree, whose recursion pushes ~3000 distinct triples). */
static inline dc_pcache *dc_pcache_set(dc_thread *t, uint32_t cc, uint32_t edge, uint64_t id) {
  return &t->pcache[(uint32_t)(((id ^ ((uint64_t)cc << 24) ^ ((uint64_t)edge << 44)) *
                                0x9E3779B97F4A7C15ull) >>
                               (64 - DC_PCACHE_BITS)) &
                    ~1u];
}
static inline int dc_pcache_is(const dc_pcache *p, uint32_t cc, uint32_t edge, uint64_t id) {
  return (p->cc == cc) & (p->edge == edge) & (p->id == id) &
         (p->mode == (uint32_t)dc_opt.cc_compress);
}
/* The push's result if the cache has it, else 0. */
static inline uint32_t dc_pcache_hit(const dc_pcache *set, uint32_t cc, uint32_t edge,
                                     uint64_t id) {
  if (dc_pcache_is(&set[0], cc, edge, id)) return set[0].top;
  if (dc_pcache_is(&set[1], cc, edge, id)) return set[1].top;
  return 0;
}
static inline uint32_t dc_cc_push_cached(dc_thread *t, uint32_t cc, uint32_t edge, uint64_t id) {
  dc_pcache *set = dc_pcache_set(t, cc, edge, id);
  uint32_t hit = dc_pcache_hit(set, cc, edge, id);
  if (dc_likely(hit)) return hit;
  uint32_t top = dc_cc_push(cc, edge, id);
  set[1] = set[0];
  set[0] = (dc_pcache){.id = id, .cc = cc, .edge = edge, .top = top,
                       .mode = (uint32_t)dc_opt.cc_compress};
  return top;
}
/* Make the thread's lazy ccStack real (ccstack.c); returns t->cc. */
uint32_t dc_cc_resolve(dc_thread *t);
static inline uint32_t dc_cc_now(dc_thread *t) {
  return dc_unlikely(t->cc & DC_CC_LAZY) ? dc_cc_resolve(t) : t->cc;
}
#define DC_PENDING_MIGRATE 1u /* a newer dictionary was published */
#define DC_PENDING_VERIFY 2u  /* verification is on: every event is slow */
#define DC_PENDING_CAPTURE 4u /* capture=stackwalk|cct: every event is slow (ablation) */
static inline uint64_t dc_thread_slow_word(const dc_thread *t) {
  uint64_t w;
  __builtin_memcpy(&w, &t->in_runtime, sizeof w);
  return w;
}

typedef struct dc_thread_rec {
  struct dc_thread *live; /* state while the thread runs, else 0 */
  rd_vc start_vc;         /* creator's clock at create, until the thread starts */
  uint32_t end_state;     /* finished, detached, joined (racedet/thread_end.c) */
  uint32_t parent;        /* serial of the creator (UINT32_MAX: none) */
  dacce_ctx created_at;   /* creator's context at pthread_create */
  uintptr_t created_pc;   /* the pthread_create call (inside its call instruction) */
  intptr_t created_via;   /* when uninstrumented code made that call (std::thread's
                           * in libstdc++): the call into it from the creator's
                           * innermost instrumented function (dc_call_into), as an
                           * offset from that function's node pc; else 0 */
  char name[64];          /* pthread_setname_np / AnnotateThreadName */
  int has_creator;
  int ktid;               /* the kernel's thread id while it runs (0: a fiber) */
} dc_thread_rec;
/* threads a process may create (records kept for reports: about 360 bytes
 * each with their tables of sites), and incarnations (racedet/rd_thread.c);
 * both reserved, committed as used */
#define DC_MAX_THREADS (1u << 24)
extern dc_vec dc_threads; /* dc_thread_rec by serial */

extern DC_TLS dc_thread *dc_tls;
extern dc_thread dc_dead_thread; /* dc_tls of a thread past its end: ignores everything */
/* dc_tls of a thread that has no state yet (its first value in every
 * thread), with dc_dead_thread's flags: the hot paths need no test for it
 * (its slow word sends calls and returns to the slow path, which makes the
 * state; its accesses are ignored).  Everything else asks dc_self(). */
extern dc_thread dc_unborn_thread;
/* The calling thread's state, or 0 if it has none yet. */
static inline dc_thread *dc_self(void) {
  dc_thread *t = dc_tls;
  return t != &dc_unborn_thread ? t : 0;
}

/* The runtime's reentrancy guard (in_runtime): while it is set, the
 * thread's events are ignored (calls and returns, accesses, sync operations,
 * reports).  The encoder's slow paths and the report path set it;
 * dc_enter/dc_leave nest.  Leaving the runtime (the guard back to zero and
 * no lock held) delivers the signals deferred meanwhile (dc_sig_check). */
extern void (*_Atomic dc_sig_deliver)(dc_thread *t); /* racedet/intercept_signal.c */
static inline void dc_sig_check(dc_thread *t) {
  if (dc_unlikely(t->sig_pending) && !t->in_runtime && !t->locks_held) {
    void (*deliver)(dc_thread *) = atomic_load_explicit(&dc_sig_deliver, memory_order_relaxed);
    if (deliver) deliver(t);
  }
}
static inline void dc_enter(dc_thread *t) {
  t->in_runtime++;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void dc_leave(dc_thread *t) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  t->in_runtime--;
  dc_sig_check(t);
}
/* The calling thread's state if it has one of its own (not yet made, or
 * past its end: 0). */
static inline dc_thread *dc_guard_owner(void) {
  dc_thread *t = dc_self();
  return t && t != &dc_dead_thread ? t : 0;
}

/* The runtime's locks: an int, 0 free, 1 held, 2 held with a waiter asleep
 * on it (a futex), each held for a few dozen instructions.  A waiter spins
 * a little, then sleeps until the holder's unlock wakes it: with more
 * threads than CPUs the holder may be the one preempted, and a waiter that
 * only yielded its CPU kept getting it back while the holder waited for one.
 * The unlock is an exchange, not a store, to see a sleeper.  The thread
 * counts the locks it holds (locks_held): an asynchronous signal that
 * arrives meanwhile is deferred until it holds none (intercept_signal.c), so
 * that a handler which reports a race, touches a sync object or allocates
 * never waits for a lock its own thread holds (seen: every thread of a
 * program with a profiling timer stuck on the report lock). */
/* Count one more lock held by t (0: a thread without a state), which
 * defers its asynchronous signals, and one less, which delivers them when
 * none is left: dc_lock's part, also for work that holds no lock
 * (encoder/common.c: the allocator's magazines). */
static inline void dc_hold(dc_thread *t) {
  if (t) t->locks_held++;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void dc_unhold(dc_thread *t) {
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  if (t) {
    t->locks_held--;
    dc_sig_check(t);
  }
}
static inline void dc_lock(_Atomic int *l) {
  dc_hold(dc_guard_owner());
  int free = 0;
  if (__builtin_expect(!atomic_compare_exchange_strong_explicit(l, &free, 1, memory_order_acquire,
                                                                memory_order_relaxed),
                       0))
    dc_lock_wait(l);
}
/* dc_lock if the lock is free; 1 when taken */
static inline int dc_trylock(_Atomic int *l) {
  dc_thread *t = dc_guard_owner();
  dc_hold(t);
  int free = 0; /* (an exchange would turn a 2 into a 1: a sleeper not woken) */
  if (atomic_compare_exchange_strong_explicit(l, &free, 1, memory_order_acquire,
                                              memory_order_relaxed))
    return 1;
  if (t) t->locks_held--;
  return 0;
}
static inline void dc_unlock(_Atomic int *l) {
  if (__builtin_expect(atomic_exchange_explicit(l, 0, memory_order_release) == 2, 0))
    dc_lock_wake(l);
  dc_unhold(dc_guard_owner());
}
/* A longjmp or a catch from the frame at stack pointer here lands at sp:
 * the handlers whose trampoline frame that leaves have ended, and so has
 * a signal-sending call it leaves.  A landing
 * inside a handler is between here and its trampoline's frame, on whatever
 * stack the handler runs (sigaltstack). */
static inline void dc_sig_resync(dc_thread *t, uintptr_t sp, uintptr_t here) {
  if (t->sig_send_sp && !(here <= sp && sp < t->sig_send_sp)) t->sig_send_sp = 0;
  while (t->sig_depth) {
    const uint32_t i = t->sig_depth - 1;
    if (i < DC_SIG_NEST && here <= sp && sp < t->sig_sp[i]) return;
    t->sig_depth = i;
  }
}
extern _Atomic uint64_t dc_verified, dc_mismatches;
dc_thread *dc_thread_init_current(void);
static inline dc_thread *dc_cur(void) {
  dc_thread *t = dc_tls;
  return dc_likely(t != &dc_unborn_thread) ? t : dc_thread_init_current();
}
uint32_t dc_thread_new_serial(const dacce_ctx *creator);
void dc_thread_set_pending_serial(uint32_t serial);
void dc_thread_grow(dc_thread *t);
void dc_thread_destroy(dc_thread *t);
void dc_threads_flag(uint32_t bits); /* set pending bits on every live thread */

/* ---------------------------------------------------------------- encoder.c */
void dc_init(void);
void dc_migrate(dc_thread *t);          /* re-derive state under the newest dict */
void dc_resync_to(dc_thread *t, uintptr_t sp); /* drop frames deeper than sp */
/* The thread's current context (inline: the detector takes one at the first
 * shadow store after every call and return, and a copy through memory made
 * its caller wait on store forwarding). */
void dc_materialize_slow(dc_thread *t); /* encoder.c */
/* Encode the raw frames on top of the thread's frame stack, if any (their
 * calls' entry hooks only recorded them): then t->id, node and cc are the
 * context of the whole stack.  At depth 0, top[-1] is the sentinel, which
 * is not raw. */
static inline void dc_materialize(dc_thread *t) {
  if (dc_unlikely(dc_frame_raw(t->top - 1))) dc_materialize_slow(t);
}
static inline void dc_capture(dc_thread *t, dacce_ctx *out) {
  dc_materialize(t);
  if (dc_unlikely(t->dict != atomic_load_explicit(&dc_cur_dict, memory_order_relaxed)) &&
      !t->in_runtime)
    dc_migrate(t);
  *out = (dacce_ctx){.id = t->id, .node = t->node, .cc = dc_cc_now(t), .ts = t->dict->ts,
                     .thread = t->serial};
}
void dc_stats_add_thread(const dc_thread *t);
/* A signal that interrupted a fast call or return hook before its one
 * publishing store: the hook starts again when the handler returns
 * (hooks_x86_64.S); uc is the handler's ucontext. */
void dc_hook_restart(void *uc);
/* the name reports give thread serial (pthread_setname_np, AnnotateThreadName,
 * __tsan_set_fiber_name; cut to the record's size) */
void dc_thread_set_name(uint32_t serial, const char *name);
/* The serial of the running thread whose kernel thread id is ktid (a lock's
 * owner as glibc records it), or UINT32_MAX. */
uint32_t dc_thread_of_ktid(int ktid);

/* ---------------------------------------------------------------- verify.c */
void dc_verify(dc_thread *t);

/* ---------------------------------------------------------------- decoder */
/* Decode one thread's segment chain, no ancestry (decoder/decode.c). */
int dc_decode_thread(const dacce_ctx *ctx, dacce_frame *frames, int max);
/* In-process function names from ELF symbol tables (symtab.c); 0 if none */
const char *dc_symtab_name(uintptr_t pc, uintptr_t *offset);
/* For an event at pc made by uninstrumented code that t's innermost
 * instrumented function called, directly or not: the pc of that call
 * (inside its call instruction), found on the stack; 0 when pc is in that
 * function itself, or no such call is found (encoder/thread.c). */
uintptr_t dc_call_into(const dc_thread *t, uintptr_t pc);
/* Is there a call instruction ending at ra (mapped code)? */
int dc_after_call(uintptr_t ra);
/* The stack words between here (the caller's frame) and the sp of t's
 * innermost instrumented frame, at whose top lies the return address of the
 * call that frame's function is in now: their count, *top one past the
 * highest.  0 when that frame is on another stack (a handler's alternate
 * one, a fiber's) or more than 64 KiB away.  (dc_call_into, alloc_via) */
static inline size_t dc_words_under_frame(const dc_thread *t, const void *here,
                                          const uintptr_t **top) {
  const uintptr_t hi = t->top[-1].sp & ~(uintptr_t)7, lo = (uintptr_t)here;
  *top = (const uintptr_t *)hi;
  return hi <= lo || hi - lo > (8192u << 3) ? 0 : (hi - lo) / 8 - 1;
}
/* ... and the data object containing addr (its start and size) */
const char *dc_symtab_object(uintptr_t addr, uintptr_t *start, uintptr_t *size);
/* Dump / log (dump.c) */
void dc_dump_write(const char *path);

#endif
