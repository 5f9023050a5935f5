/* report.c: race reports.
 *
 * One model (struct report) is filled once from the two accesses, then
 * rendered: as TSan-like text on stderr (symbolised in-process with the
 * dynamic symbol tables), and/or as one raw JSON line per report (option
 * raw_reports=PATH) with every pc as module+offset, which the dacce-race
 * launcher symbolises out of the process with DWARF.  Each report is written
 * with write(2) as soon as it is found: a later crash or _exit loses nothing.
 * Reports are deduplicated by the pair of racing (context, pc). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "racedet.h"
#include "capture.h"
#define RD_WORDS_SNPRINTF dc_snprintf
#include "signal_words.h"

/* Full stacks: recursion compressed on the ccStack is expanded here, so a
 * report can be very deep (static buffers: only what is used is touched). */
#define MAXF (1 << 16)
typedef struct stack {
  uintptr_t pc[MAXF];
  int n;
  int truncated, error;
  int not_captured; /* capture=stackwalk: thread creation contexts */
  int pc_merged;    /* the pc is the first of several merged accesses */
  /* pc[at[i]] is where a signal arrived in the function it interrupted
   * (stack_of_ctx): a dedup key takes the function for it (stack_key) */
  int nint, at[DC_SIG_NEST];
} stack;

typedef struct thread_info {
  uint32_t tid, parent;
  int has_parent;
  stack created; /* creator's stack at pthread_create */
} thread_info;

typedef struct report {
  const char *kind;  /* data-race, heap-use-after-free, thread-leak */
  uint32_t leak_tid; /* thread-leak: the leaked thread (acc[] unused), and how */
  uint32_t similar;  /* many more leaked threads were created at the same place */
  rd_access_desc acc[2]; /* current, previous */
  stack st[2];
  /* location */
  const char *loc_kind; /* global, heap, stack, tls, fd, unknown */
  char loc_name[256];
  uintptr_t loc_addr, loc_size;
  int loc_fd, loc_made; /* fd: the number, and whether its creation is known */
  const char *loc_type; /* the object's type (external-race API), or 0 */
  uint32_t alloc_tid;   /* heap, fd: the allocating (creating) thread; stack, tls: owner */
  stack alloc_st;       /* heap, fd (loc_made): the allocation (creation) stack */
  /* threads named anywhere, with ancestors */
  thread_info threads[32];
  int nthreads;
  uintptr_t held[2][16]; /* per access: mutexes held (low bit: read-locked) */
  int nheld[2];
  /* every mutex either access held, and whether its creation is known
   * (its stack: mutex_st, apart so that it is not cleared per report) */
  uintptr_t mtx[32];
  int nmtx, mtx_known[32];
  /* lock-order-inversion: the cycle's edges (acc[] unused); their stacks
   * are dl_st[i][0], where the lock was wanted, and [1], where the held
   * one was taken */
  rd_dl_edge dl[RD_DL_MAX];
  int ndl;
  /* mutex-misuse: what (RD_MISUSE_*), of which mutex, by which thread:
   * st[0] is where, st[1] where the thread had taken it (has_held) */
  const rd_misuse_desc *mis;
  /* signal-unsafe-call, signal-errno: what, in which handler, by which
   * thread; st[0] the call, or the handler over where the signal arrived */
  const rd_signal_desc *sigd;
  int saved_errno; /* the program's, put back when the report is written */
} report;
static stack mutex_st[32];
static stack dl_st[RD_DL_MAX][2];

static _Atomic int report_lock;
static _Atomic uint64_t n_reports;
static _Atomic uint64_t n_printed; /* raw reports the launcher printed (or did not say) */
/* The launcher's channels (raw_reports, report_ack_fd) are descriptors it
 * passed down, and a program that closes descriptors it did not open (a
 * daemon's closefrom(3)) may reuse their numbers for its own files.  So each
 * is identified (device, inode) when the runtime starts and checked before
 * every use: one that is no longer the same file is dropped, never written
 * into or read from, and the reports go to stderr as text instead. */
typedef struct channel {
  int fd, known;
  dev_t dev;
  ino_t ino;
} channel;
static channel raw_ch = {.fd = -2}, ack_ch = {.fd = -1};
static int channel_lost;

/* Is fd (still) the file c was when identified?  The first check of a
 * channel not identified at start identifies it. */
static int channel_same(channel *c, int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0) return 0;
  if (!c->known) *c = (channel){fd, 1, st.st_dev, st.st_ino};
  return st.st_dev == c->dev && st.st_ino == c->ino;
}

static void lose(channel *c) {
  c->fd = -1;
  if (!channel_lost++)
    dc_printf("==dacce== the launcher's report channel was closed or reused (by this "
              "program, or a runner that started it): reports follow as text\n");
}

int rd_reports_unseen(void) { return channel_lost; }

/* The launcher's own ends of the two pipes (report_via): a channel whose
 * descriptor was closed on the way down (a runner between the launcher and
 * us that closes what it did not open: Python's subprocess does by
 * default, and so meson's and pytest's runners) or reused by the program
 * (a daemon's closefrom) is opened again through /proc/PID/fd, if what is
 * there is still the launcher's pipe: its inode, which the launcher gives
 * (another process of that pid, in another pid namespace say, has other
 * files).  Opening a pipe's end there gives a description of the same
 * pipe, for reading or for writing as asked. */
static struct {
  int ok, pid, fd[2];
  ino_t ino[2];
} via;
static int ack_gone; /* the launcher did not answer once: no more waits */

/* Channel k (0: reports, written; 1: answers, read) through the launcher's
 * /proc: its descriptor, or -1. */
static int via_open(channel *c, int k) {
  if (!via.ok) return -1;
  char path[64];
  dc_snprintf(path, sizeof path, "/proc/%d/fd/%d", via.pid, via.fd[k]);
  /* (not blocking: a pipe's write end opened while it has no reader would
   * wait for one) */
  const int fd = dc_open(path, (k ? O_RDONLY : O_WRONLY) | O_NONBLOCK | O_CLOEXEC, 0);
  struct stat st;
  if (fd < 0) return -1;
  if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode) || st.st_ino != via.ino[k] ||
      (!k && fcntl(fd, F_SETFL, 0) != 0)) { /* (the reports' writes wait) */
    dc_close(fd);
    return -1;
  }
  *c = (channel){fd, 1, st.st_dev, st.st_ino};
  return fd;
}

/* report_via: "pid/fd0/fd1/ino0/ino1", five decimal numbers (the runtime
 * has no sscanf: it would be the program's, intercepted) */
static int parse_via(const char *s, unsigned long long v[5]) {
  for (int i = 0; i < 5; i++, s++) {
    if (*s < '0' || *s > '9') return 0;
    for (v[i] = 0; *s >= '0' && *s <= '9'; s++) v[i] = v[i] * 10 + (unsigned)(*s - '0');
    if (*s != (i < 4 ? '/' : 0)) return 0;
  }
  return 1;
}

void rd_report_init(void) {
  struct stat st;
  unsigned long long v[5];
  via.ok = parse_via(dc_opt.report_via, v) && v[0] <= INT_MAX && v[1] <= INT_MAX && v[2] <= INT_MAX;
  if (via.ok) {
    via.pid = (int)v[0], via.fd[0] = (int)v[1], via.fd[1] = (int)v[2];
    via.ino[0] = (ino_t)v[3], via.ino[1] = (ino_t)v[4];
  }
  if (*dc_opt.raw_reports && stat(dc_opt.raw_reports, &st) == 0)
    raw_ch = (channel){-2, 1, st.st_dev, st.st_ino};
  else if (via.ok) /* the launcher's descriptor is gone: only its pipe will do */
    raw_ch = (channel){-2, 1, 0, via.ino[0]};
  if (dc_opt.report_ack_fd > 0 && fstat(dc_opt.report_ack_fd, &st) == 0 && S_ISFIFO(st.st_mode))
    ack_ch = (channel){dc_opt.report_ack_fd, 1, st.st_dev, st.st_ino};
}

/* The answers' channel: there, and still the launcher's (else opened
 * again through report_via)? */
static int ack_ready(void) {
  if (ack_gone) return 0;
  if (ack_ch.fd >= 0 && channel_same(&ack_ch, ack_ch.fd)) return 1;
  ack_ch.fd = -1;
  return via_open(&ack_ch, 1) >= 0;
}
uint64_t rd_reports_count(void) { return atomic_load(&n_reports); }
uint64_t rd_reports_printed(void) { return atomic_load(&n_printed); }

/* ------------------------------------------------------------ dedup */
/* Two levels: the exact pair of (context handle, pc) is checked first, so a
 * race hit again in a loop costs one lookup; a new pair is decoded, and the
 * pair of decoded stacks decides (the same paths in other threads, or under
 * another dictionary, are the same bug).  Unordered pairs. */
#define SEEN_BITS 16
static uint64_t seen[1u << SEEN_BITS];
static uint64_t pair_hash(uint64_t h1, uint64_t h2) { return (h1 < h2 ? h1 * 31 + h2 : h2 * 31 + h1) | 1; }
static int seen_insert(uint64_t h) {
  for (uint32_t i = 0; i < (1u << SEEN_BITS); i++) {
    uint64_t *s = &seen[(h + i) & ((1u << SEEN_BITS) - 1)];
    if (*s == h) return 1;
    if (!*s) {
      *s = h;
      return 0;
    }
  }
  return 0;
}
static uint64_t access_key(const rd_access_desc *a) {
  uint64_t k[2] = {a->ctx, a->pc};
  return dc_hash(k, sizeof k);
}

/* ------------------------------------------------------------ model */
/* The start of the function symbol that holds pc, or 0 when none does. */
static uintptr_t symbol_start(uintptr_t pc) {
  uintptr_t off;
  return dc_symtab_name(pc, &off) ? pc - off : 0;
}

/* The function that a signal interrupted, below its handler's frames:
 * where the signal arrived (at, from its ucontext) when that is in the
 * function's own code, else the function's entry (the signal came in
 * the runtime, in libc, or where the context was made from no ucontext). */
static uintptr_t interrupted_at(uintptr_t fn, uintptr_t at) {
  const uintptr_t start = at ? symbol_start(at) : 0;
  return start && start == symbol_start(fn) ? at : fn;
}

/* A stack: the pc, then the call sites of the decoded context, innermost
 * first, each as the address inside its call instruction (return - 1),
 * without the entry from outside the program (libc's call of main, the
 * thread start).  With no pc, the innermost function itself stands first.
 * A pc outside the context's innermost function (made by uninstrumented
 * code it called) comes first, then the function; with only_in_fn the
 * function alone (the pc a signal interrupted, when it is in the runtime's
 * inline check, says nothing to the user).  sp: where the signals of the
 * handlers running at the context arrived (0: not known). */
static void stack_of_ctx(stack *s, const dacce_ctx *c, uintptr_t pc, intptr_t via_off,
                         int only_in_fn, const rd_sigpcs *sp) {
  static dacce_frame fr[MAXF];
  s->n = s->nint = 0;
  int n = dacce_decode(c, fr, MAXF, 0);
  if (n < 0) {
    s->error = n;
    if (pc) s->pc[s->n++] = pc;
    return;
  }
  if (pc || n) s->pc[s->n++] = pc ? pc : fr[0].function;
  /* an access made by uninstrumented code the function called (free from
   * operator delete, a libc callback): the function itself follows, at its
   * call into that code when known (via_off from its node pc: dc_call_into,
   * alloc_via), else at its entry */
  if (pc && n) {
    const char *a = dc_symtab_name(pc, 0), *f = dc_symtab_name(fr[0].function, 0);
    if (a && f && !dc_streq(a, f)) {
      const uintptr_t via = via_off ? fr[0].function + (uintptr_t)via_off : 0;
      const char *v = via ? dc_symtab_name(via, 0) : 0;
      const uintptr_t at = v && dc_streq(v, f) && dc_after_call(via + 1) ? via : fr[0].function;
      if (only_in_fn)
        s->pc[0] = at;
      else if (s->n < MAXF)
        s->pc[s->n++] = at;
    }
  }
  /* the handlers' boundaries come innermost first: the last signal's */
  int level = sp ? (int)sp->n : 0;
  for (int i = 0; i + 1 < n && s->n < MAXF; i++) {
    s->pc[s->n++] = fr[i].callsite - 1;
    /* a signal handler's frame, called by the runtime's trampoline: then the
     * function the signal interrupted, where it was */
    if (symbol_start(fr[i].callsite - 1) == (uintptr_t)dacce_deliver_signal && s->n < MAXF) {
      --level;
      const int known = level >= 0 && level < DC_SIG_NEST;
      const uintptr_t fn = fr[i + 1].function, at = interrupted_at(fn, known ? sp->pc[level] : 0);
      if (at != fn && s->nint < DC_SIG_NEST) s->at[s->nint++] = s->n;
      s->pc[s->n++] = at;
    }
  }
  s->truncated = n >= MAXF;
}

static void stack_of_at(stack *s, uint32_t ctx, uintptr_t pc, intptr_t via_off,
                        int only_in_fn) {
  const rd_ctxrec *c = rd_ctx_get(ctx);
  if (!c) {
    s->n = s->nint = 0;
    if (pc) s->pc[s->n++] = pc;
    s->error = -1;
    return;
  }
  if (dc_capture_mode != DC_CAPTURE_DACCE) { /* an ablation's stack or tree node */
    s->n = rd_capture_frames(c->id, pc, s->pc, MAXF, &s->truncated);
    return;
  }
  const rd_ctxaux *a = rd_ctx_aux(c);
  dacce_ctx dc = {c->id, c->node, c->cc, a->ts, 0}; /* no ancestry: the thread is the cell's */
  stack_of_ctx(s, &dc, pc, via_off, only_in_fn, a->sig ? rd_sigpcs_get(a->sig) : 0);
}
static void stack_of(stack *s, uint32_t ctx, uintptr_t pc) { stack_of_at(s, ctx, pc, 0, 0); }

/* The stack a thread was created at: its creator's at pthread_create,
 * whose pc is the last call site decoded. */
static void creation_stack(stack *s, const dc_thread_rec *rec) {
  if (dc_capture_mode == DC_CAPTURE_CCT) /* the creator's tree node */
    s->n = rd_capture_frames(rec->created_at.cc, rec->created_pc, s->pc, MAXF, &s->truncated);
  else if (dc_capture_mode == DC_CAPTURE_STACKWALK)
    s->not_captured = 1;
  else
    stack_of_ctx(s, &rec->created_at, rec->created_pc, rec->created_via, 0, 0);
}

static void add_thread(report *r, uint32_t tid) {
  /* the thread and its ancestors, each once */
  for (int hops = 0; hops < 32; hops++) {
    for (int i = 0; i < r->nthreads; i++)
      if (r->threads[i].tid == tid) return;
    if (r->nthreads == 32 || tid >= atomic_load(&dc_threads.n)) return;
    thread_info *ti = &r->threads[r->nthreads++];
    const dc_thread_rec *rec = dc_vec_at(&dc_threads, tid);
    ti->tid = tid;
    ti->has_parent = rec->has_creator;
    if (!rec->has_creator) return;
    ti->parent = rec->parent;
    creation_stack(&ti->created, rec);
    tid = rec->parent;
  }
}

/* Leaked threads are grouped by the stack they were created at as a report
 * shows it, decoded: the same call made under another dictionary (a
 * re-encoding between two rounds of thread creation) is encoded otherwise
 * and is the same place. */
uint64_t rd_creation_hash(uint32_t serial) {
  static stack s;
  dc_lock(&report_lock);
  const dc_thread_rec *rec = dc_vec_at(&dc_threads, serial);
  s.n = s.truncated = s.error = s.not_captured = 0;
  creation_stack(&s, rec);
  /* (capture=stackwalk keeps no creation stack: the pthread_create call) */
  const uint64_t h = s.n ? dc_hash(s.pc, (size_t)s.n * sizeof s.pc[0]) : rec->created_pc;
  dc_unlock(&report_lock);
  return h;
}

static void locate(report *r, uintptr_t addr) {
  rd_block b;
  r->loc_kind = "unknown";
  uint32_t fd_ctx;
  r->loc_fd = rd_fd_of(addr, &b.tid, &fd_ctx, &b.pc);
  if (r->loc_fd >= 0) {
    r->loc_kind = "fd";
    r->loc_made = fd_ctx != 0;
    if (r->loc_made) {
      r->alloc_tid = b.tid;
      stack_of(&r->alloc_st, fd_ctx, b.pc);
      add_thread(r, b.tid);
    }
    return;
  }
  if (rd_heap_find(addr, &b)) {
    r->loc_kind = "heap";
    r->loc_addr = b.addr;
    r->loc_size = b.size;
    r->alloc_tid = b.tid;
    stack_of_at(&r->alloc_st, b.ctx, b.pc, b.via, 0);
    add_thread(r, b.tid);
    return;
  }
  Dl_info info;
  void *extra = 0;
  if (dladdr1((void *)addr, &info, &extra, RTLD_DL_SYMENT) && info.dli_sname && info.dli_saddr) {
    const ElfW(Sym) *sym = extra;
    uintptr_t size = sym ? sym->st_size : 0;
    if (!size || addr - (uintptr_t)info.dli_saddr < size) {
      r->loc_kind = "global";
      dc_snprintf(r->loc_name, sizeof r->loc_name, "%s", info.dli_sname);
      r->loc_addr = (uintptr_t)info.dli_saddr;
      r->loc_size = size;
      return;
    }
  }
  uint32_t nt = atomic_load(&dc_threads.n);
  /* a live thread's static TLS (within its stack mapping, except main's) */
  for (uint32_t i = 0; i < nt; i++) {
    dc_thread *t = __atomic_load_n(&((dc_thread_rec *)dc_vec_at(&dc_threads, i))->live,
                                   __ATOMIC_ACQUIRE);
    if (t && addr >= t->tls_lo && addr < t->tls_hi) {
      r->loc_kind = "tls";
      r->alloc_tid = i;
      add_thread(r, i);
      return;
    }
  }
  for (uint32_t i = 0; i < nt; i++) {
    dc_thread *t = __atomic_load_n(&((dc_thread_rec *)dc_vec_at(&dc_threads, i))->live,
                                   __ATOMIC_ACQUIRE);
    if (t && addr >= t->stack_lo && addr < t->stack_hi && t->stack_hi != UINTPTR_MAX) {
      r->loc_kind = "stack";
      r->alloc_tid = i;
      add_thread(r, i);
      return;
    }
  }
  /* not exported: the module's own symbol table */
  uintptr_t start, size;
  const char *name = dc_symtab_object(addr, &start, &size);
  if (name) {
    r->loc_kind = "global";
    dc_snprintf(r->loc_name, sizeof r->loc_name, "%s", name);
    r->loc_addr = start;
    r->loc_size = size;
  } else if (dladdr((void *)addr, &info) && info.dli_fname) {
    r->loc_kind = "global"; /* in a module, unnamed: the launcher may know more */
    r->loc_name[0] = 0;
  }
}

/* ------------------------------------------------------------ rendering */
typedef struct buf {
  char *p;
  size_t n, cap;
} buf;
static void bput(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void bput(buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  if (b->n < b->cap) {
    int k = dc_vsnprintf(b->p + b->n, b->cap - b->n, fmt, ap);
    if (k > 0) b->n += (size_t)k < b->cap - b->n ? (size_t)k : b->cap - b->n - 1;
  }
  va_end(ap);
}

static void put_pc_text(buf *b, int i, uintptr_t pc) {
  Dl_info info;
  bput(b, "    #%d ", i);
  if (pc && dladdr((void *)pc, &info) && info.dli_fname) {
    const char *mod = info.dli_fname;
    for (const char *q = info.dli_fname; *q; q++)
      if (*q == '/') mod = q + 1;
    if (!*mod) mod = "exe";
    uintptr_t off;
    const char *fn = dc_symtab_name(pc, &off);
    if (!fn) fn = info.dli_sname;
    bput(b, "%s (%s+%#lx)\n", fn ? fn : "<unknown>", mod,
         (unsigned long)(pc - (uintptr_t)info.dli_fbase));
  } else {
    bput(b, "%#lx\n", (unsigned long)pc);
  }
}

static void put_stack_text(buf *b, const stack *s) {
  for (int i = 0; i < s->n; i++) put_pc_text(b, i, s->pc[i]);
  if (s->error) bput(b, "    <context could not be decoded: error %d>\n", s->error);
  if (s->not_captured) bput(b, "    <not captured with capture=%s>\n", rd_capture_name());
  if (s->truncated) bput(b, "    ... (truncated)\n");
  if (s->pc_merged) bput(b, "    %s\n", RD_MERGED_NOTE);
}
static const char *thread_name(uint32_t tid) {
  return tid < atomic_load(&dc_threads.n) ? ((dc_thread_rec *)dc_vec_at(&dc_threads, tid))->name
                                           : "";
}
/* "main thread", "thread T3" or "thread T3 'name'"; Thread with a capital T
 * at the start of a line */
static const char *tlabel(uint32_t tid, char *tmp, int capital) {
  if (tid == 0) return capital ? "Main thread" : "main thread";
  const char *name = thread_name(tid);
  dc_snprintf(tmp, 96, "%s T%u%s%s%s", capital ? "Thread" : "thread", tid, *name ? " '" : "",
              name, *name ? "'" : "");
  return tmp;
}
static const char *tname(uint32_t tid, char *tmp) { return tlabel(tid, tmp, 0); }

/* M-numbers: mutexes in order of first mention, current access first (the
 * order of r->mtx, mutex_creations) */
static int mutex_index(const report *r, uintptr_t m) {
  m &= ~(uintptr_t)1;
  for (int j = 0; j < r->nmtx; j++)
    if (r->mtx[j] == m) return j;
  return -1;
}

/* Each thread named, with its creator and the creation stack. */
static void put_threads_text(const report *r, buf *b) {
  char t1[96], t2[96];
  for (int i = 0; i < r->nthreads; i++) {
    const thread_info *ti = &r->threads[i];
    if (!ti->has_parent) continue;
    bput(b, "  %s%s created by %s at:\n", tlabel(ti->tid, t1, 1),
         dc_streq(r->kind, "thread-leak") && ti->tid == r->leak_tid ? " (finished)" : "",
         tname(ti->parent, t2));
    put_stack_text(b, &ti->created);
    bput(b, "\n");
  }
}

static const char *const misuse_codes[] = RD_MISUSE_CODES;
static const char *const misuse_titles[] = RD_MISUSE_TITLES;
static const char *const misuse_doings[] = RD_MISUSE_DOINGS;

static const char *title_of(const report *r) {
  if (dc_streq(r->kind, "data-race"))
    return r->acc[0].is_vptr ? RD_VPTR_RACE_TITLE : "data race";
  if (r->ndl) return RD_DEADLOCK_TITLE;
  if (r->mis) return misuse_titles[r->mis->what];
  if (r->sigd) return r->sigd->what == RD_SIG_UNSAFE ? RD_SIGNAL_UNSAFE_TITLE : RD_SIGNAL_ERRNO_TITLE;
  return dc_streq(r->kind, "thread-leak") ? "thread leak" : r->kind;
}

/* Each mutex named whose creation is known, with its stack. */
static void put_mutex_creations_text(const report *r, buf *b) {
  for (int j = 0; j < r->nmtx; j++)
    if (r->mtx_known[j]) {
      bput(b, "  Mutex M%d (%#lx) created at:\n", j, (unsigned long)r->mtx[j]);
      put_stack_text(b, &mutex_st[j]);
      bput(b, "\n");
    }
}

/* The cycle, each edge's two stacks, the mutexes' creations. */
static void render_deadlock_text(const report *r, buf *b) {
  char t1[96];
  bput(b, "  Cycle in lock order graph: ");
  for (int i = 0; i < r->ndl; i++)
    bput(b, "M%d (%#lx) => ", mutex_index(r, r->dl[i].from), (unsigned long)r->dl[i].from);
  bput(b, "M%d\n\n", mutex_index(r, r->dl[0].from));
  for (int i = 0; i < r->ndl; i++) {
    const rd_dl_edge *e = &r->dl[i];
    bput(b, "  Mutex M%d %sacquired here while holding mutex M%d%s in %s:\n",
         mutex_index(r, e->to), e->to_read ? "read-" : "", mutex_index(r, e->from),
         e->from_read ? " (read)" : "", tname(e->thread, t1));
    put_stack_text(b, &dl_st[i][0]);
    bput(b, "\n  Mutex M%d previously acquired by the same thread here:\n",
         mutex_index(r, e->from));
    put_stack_text(b, &dl_st[i][1]);
    bput(b, "\n");
  }
  put_mutex_creations_text(r, b);
}

/* What the thread did to the mutex, and where it had taken it. */
static void render_misuse_text(const report *r, buf *b) {
  char t1[96];
  const rd_misuse_desc *d = r->mis;
  bput(b, "  ");
  bput(b, misuse_doings[d->what], mutex_index(r, d->mutex), (unsigned long long)d->mutex,
       tname(d->thread, t1));
  if (d->holder) bput(b, RD_MISUSE_HOLDER, tname(d->holder - 1, t1));
  bput(b, ":\n");
  put_stack_text(b, &r->st[0]);
  if (d->has_held) {
    bput(b, "\n  Mutex M%d previously %sacquired by the same thread here:\n",
         mutex_index(r, d->mutex), d->held_read ? "read-" : "");
    put_stack_text(b, &r->st[1]);
  }
  bput(b, "\n");
  put_mutex_creations_text(r, b);
}

/* What the handler did, and the stack. */
static void render_signal_text(const report *r, buf *b) {
  char t1[96], sn[24], e0[40], e1[40];
  const rd_signal_desc *d = r->sigd;
  bput(b, "  ");
  if (d->what == RD_SIG_UNSAFE)
    bput(b, RD_SIGNAL_UNSAFE_DOING, d->fn, d->sig, rd_signal_name(d->sig, sn), tname(d->thread, t1));
  else
    bput(b, RD_SIGNAL_ERRNO_DOING, d->sig, rd_signal_name(d->sig, sn), tname(d->thread, t1),
         rd_errno_words(d->errno_before, e0), rd_errno_words(d->errno_after, e1));
  bput(b, ":\n");
  put_stack_text(b, &r->st[0]);
  bput(b, "\n");
}

static void render_accesses_text(const report *r, buf *b);
static void render_text(const report *r, buf *b) {
  const char *title = title_of(r);
  bput(b, "==================\nWARNING: %s: %s (pid=%d)\n",
       dc_opt.tsan_header ? "ThreadSanitizer" : "dacce-race", title, (int)getpid());
  if (dc_streq(r->kind, "thread-leak")) {
    put_threads_text(r, b);
    if (r->similar)
      bput(b, "  And %u more similar thread leak%s.\n\n", r->similar, r->similar > 1 ? "s" : "");
  } else if (r->ndl) {
    render_deadlock_text(r, b);
    put_threads_text(r, b);
  } else if (r->mis) {
    render_misuse_text(r, b);
    put_threads_text(r, b);
  } else if (r->sigd) {
    render_signal_text(r, b);
    put_threads_text(r, b);
  } else {
    render_accesses_text(r, b);
    put_threads_text(r, b);
  }
  bput(b, "SUMMARY: %s: %s\n==================\n", dc_opt.tsan_header ? "ThreadSanitizer" : "dacce-race",
       title);
}

/* A race's or use after free's accesses, location and mutexes. */
static void render_accesses_text(const report *r, buf *b) {
  char t1[96];
  if (dc_capture_mode != DC_CAPTURE_DACCE)
    bput(b, "  [capture=%s: an ablation for benchmarking; contexts are %s]\n", rd_capture_name(),
         dc_capture_mode == DC_CAPTURE_CCT ? "calling context tree paths"
                                           : "frame-pointer walks, no thread ancestry");
  for (int k = 0; k < 2; k++) {
    const rd_access_desc *a = &r->acc[k];
    bput(b, "  %s%s%s of size %u at %#lx by %s", k ? "Previous " : "",
         a->is_atomic ? (k ? "atomic " : "Atomic ") : "",
         a->freed ? "free" : a->is_write ? (k || a->is_atomic ? "write" : "Write")
                                          : (k || a->is_atomic ? "read" : "Read"),
         a->size, (unsigned long)a->addr, tname(a->tid, t1));
    for (int i = 0; i < r->nheld[k]; i++)
      bput(b, "%s%s M%d", i ? ", " : " (mutexes: ", (r->held[k][i] & 1) ? "read" : "write",
           mutex_index(r, r->held[k][i]));
    bput(b, "%s:\n", r->nheld[k] ? ")" : "");
    put_stack_text(b, &r->st[k]);
    bput(b, "\n");
  }
  if (dc_streq(r->loc_kind, "heap")) {
    bput(b, "  Location is heap block of size %lu at %#lx allocated by %s:\n",
         (unsigned long)r->loc_size, (unsigned long)r->loc_addr, tname(r->alloc_tid, t1));
    put_stack_text(b, &r->alloc_st);
    bput(b, "\n");
  } else if (dc_streq(r->loc_kind, "global") && r->loc_name[0]) {
    bput(b, "  Location is global '%s' of size %lu at %#lx\n\n", r->loc_name,
         (unsigned long)r->loc_size, (unsigned long)r->loc_addr);
  } else if (dc_streq(r->loc_kind, "stack") || dc_streq(r->loc_kind, "tls")) {
    bput(b, "  Location is %s of %s.\n\n", dc_streq(r->loc_kind, "tls") ? "TLS" : "stack",
         tname(r->alloc_tid, t1));
  } else if (dc_streq(r->loc_kind, "fd") && r->loc_made) {
    bput(b, "  Location is file descriptor %d created by %s at:\n", r->loc_fd,
         tname(r->alloc_tid, t1));
    put_stack_text(b, &r->alloc_st);
    bput(b, "\n");
  } else if (dc_streq(r->loc_kind, "fd")) {
    bput(b, "  Location is file descriptor %d.\n\n", r->loc_fd);
  }
  if (r->loc_type) bput(b, "  Object of type '%s' (its library's external-race tag)\n\n", r->loc_type);
  for (int j = 0; j < r->nmtx; j++) {
    bput(b, "  Mutex M%d (%#lx)%s\n", j, (unsigned long)r->mtx[j],
         r->mtx_known[j] ? " created at:" : "");
    if (r->mtx_known[j]) {
      put_stack_text(b, &mutex_st[j]);
      bput(b, "\n");
    }
  }
  if (r->nmtx && !r->mtx_known[r->nmtx - 1]) bput(b, "\n");
}

static const char *self_exe(void) {
  static char path[PATH_MAX];
  if (!path[0]) {
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return "/proc/self/exe";
    path[n] = 0;
  }
  return path;
}

/* A pc for the launcher: the module's file and load bias (what DWARF
 * symbolisation needs) next to the pc itself. */
static void put_pc_json(buf *b, uintptr_t pc) {
  Dl_info info;
  struct link_map *lm = 0;
  const char *mod = "";
  uintptr_t bias = 0;
  if (pc && dladdr1((void *)pc, &info, (void **)&lm, RTLD_DL_LINKMAP) && info.dli_fname) {
    mod = info.dli_fname;
    bias = lm ? lm->l_addr : (uintptr_t)info.dli_fbase;
    /* the executable: its real path, not argv[0] */
    if (!lm || !lm->l_name || !*lm->l_name) mod = self_exe();
  }
  bput(b, "{\"pc\":\"%#lx\",\"module\":\"%s\",\"bias\":\"%#lx\"}", (unsigned long)pc, mod,
       (unsigned long)bias);
}

/* A program's string, quoted: JSON-safe as printable ASCII only. */
static void put_str_json(buf *b, const char *s) {
  bput(b, "\"");
  for (const char *q = s; *q; q++)
    bput(b, (*q == '"' || *q == '\\') ? "\\%c" : (*q >= 32 && *q < 127) ? "%c" : "?", *q);
  bput(b, "\"");
}

static void put_pcs_json(buf *b, const stack *s) {
  bput(b, "[");
  for (int i = 0; i < s->n; i++) {
    if (i) bput(b, ",");
    put_pc_json(b, s->pc[i]);
  }
  bput(b, "]");
}

static void put_threads_raw(const report *r, buf *b);

/* ,"mutex_creations":[...]: each mutex named whose creation is known */
static void put_mutex_creations_raw(const report *r, buf *b) {
  bput(b, ",\"mutex_creations\":[");
  for (int j = 0, n = 0; j < r->nmtx; j++)
    if (r->mtx_known[j]) {
      bput(b, "%s{\"address\":\"%#lx\",\"frames\":", n++ ? "," : "", (unsigned long)r->mtx[j]);
      put_pcs_json(b, &mutex_st[j]);
      bput(b, "}");
    }
  bput(b, "]");
}

/* {"kind":..,"pid":..[,"capture":..] of every report but a leak's */
static void put_head_raw(const report *r, buf *b) {
  bput(b, "{\"kind\":\"%s\",\"pid\":%d", r->kind, (int)getpid());
  if (dc_capture_mode != DC_CAPTURE_DACCE) bput(b, ",\"capture\":\"%s\"", rd_capture_name());
}

static void render_raw_access(const report *r, buf *b) {
  put_head_raw(r, b);
  bput(b, ",\"mutexes_held_by_current\":%d", r->nheld[0]);
  for (int k = 0; k < 2; k++) {
    const rd_access_desc *a = &r->acc[k];
    bput(b, ",\"%s\":{\"thread\":%u,\"is_write\":%s,\"is_atomic\":%s,\"is_free\":%s,\"size\":%u,"
            "\"address\":\"%#lx\",\"decode_error\":%d,\"frames\":",
         k ? "previous" : "current", a->tid, a->is_write ? "true" : "false",
         a->is_atomic ? "true" : "false", a->freed ? "true" : "false", a->size,
         (unsigned long)a->addr, r->st[k].error);
    put_pcs_json(b, &r->st[k]);
    if (a->is_vptr) bput(b, ",\"is_vptr\":true");
    if (r->st[k].truncated) bput(b, ",\"frames_truncated\":true");
    if (r->st[k].pc_merged) bput(b, ",\"pc_merged\":true");
    /* mutexes this access held: address with the low bit set when read-locked */
    bput(b, ",\"mutexes\":[");
    for (int i = 0; i < r->nheld[k]; i++)
      bput(b, "%s\"%#lx\"", i ? "," : "", (unsigned long)r->held[k][i]);
    bput(b, "]");
    bput(b, "}");
  }
  /* for globals, "data" names the module so the launcher can look the
   * address up in its symbol table (static variables are not exported) */
  bput(b, ",\"location\":{\"kind\":\"%s\",\"name\":\"%s\",\"address\":\"%#lx\",\"size\":%lu,"
          "\"access_address\":\"%#lx\",\"data\":",
       r->loc_kind, r->loc_name, (unsigned long)r->loc_addr, (unsigned long)r->loc_size,
       (unsigned long)r->acc[0].addr);
  put_pc_json(b, dc_streq(r->loc_kind, "global") ? r->acc[0].addr : 0);
  if (dc_streq(r->loc_kind, "fd")) bput(b, ",\"fd\":%d", r->loc_fd);
  if (r->loc_type) {
    bput(b, ",\"object_type\":");
    put_str_json(b, r->loc_type);
  }
  const int made = dc_streq(r->loc_kind, "fd") && r->loc_made;
  if (dc_streq(r->loc_kind, "heap") || dc_streq(r->loc_kind, "stack") ||
      dc_streq(r->loc_kind, "tls") || made)
    bput(b, ",\"allocated_by_thread\":%u", r->alloc_tid);
  if (dc_streq(r->loc_kind, "heap") || made) {
    bput(b, ",\"allocation_frames\":");
    put_pcs_json(b, &r->alloc_st);
  }
  bput(b, "},\"mutexes\":[");
  for (int i = 0; i < r->nheld[0]; i++)
    bput(b, "%s\"%#lx\"", i ? "," : "", (unsigned long)(r->held[0][i] & ~(uintptr_t)1));
  bput(b, "]");
  put_mutex_creations_raw(r, b);
  put_threads_raw(r, b);
}

/* "cycle": [{"from", "to", "from_read", "to_read", "thread", "frames"
 * (where `to` was wanted), "held_frames" (where `from` was taken)}] */
static void render_raw_deadlock(const report *r, buf *b) {
  put_head_raw(r, b);
  bput(b, ",\"cycle\":[");
  for (int i = 0; i < r->ndl; i++) {
    const rd_dl_edge *e = &r->dl[i];
    bput(b, "%s{\"from\":\"%#lx\",\"to\":\"%#lx\",\"from_read\":%s,\"to_read\":%s,"
            "\"thread\":%u,\"frames\":",
         i ? "," : "", (unsigned long)e->from, (unsigned long)e->to,
         e->from_read ? "true" : "false", e->to_read ? "true" : "false", e->thread);
    put_pcs_json(b, &dl_st[i][0]);
    bput(b, ",\"held_frames\":");
    put_pcs_json(b, &dl_st[i][1]);
    bput(b, "}");
  }
  bput(b, "]");
  put_mutex_creations_raw(r, b);
  put_threads_raw(r, b);
}

/* "misuse", "mutex", "thread", "holder" (another thread holding the mutex,
 * when known), "frames", and where the thread had taken the mutex:
 * "held_read", "held_frames" */
static void render_raw_misuse(const report *r, buf *b) {
  const rd_misuse_desc *d = r->mis;
  put_head_raw(r, b);
  bput(b, ",\"misuse\":\"%s\",\"mutex\":\"%#lx\",\"thread\":%u,", misuse_codes[d->what],
       (unsigned long)(d->mutex & ~(uintptr_t)1), d->thread);
  if (d->holder) bput(b, "\"holder\":%u,", d->holder - 1);
  bput(b, "\"frames\":");
  put_pcs_json(b, &r->st[0]);
  if (d->has_held) {
    bput(b, ",\"held_read\":%s,\"held_frames\":", d->held_read ? "true" : "false");
    put_pcs_json(b, &r->st[1]);
  }
  put_mutex_creations_raw(r, b);
  put_threads_raw(r, b);
}

/* "signal", "thread", "frames", and "function" (the unsafe call's) or
 * "errno_before", "errno_after" */
static void render_raw_signal(const report *r, buf *b) {
  const rd_signal_desc *d = r->sigd;
  put_head_raw(r, b);
  bput(b, ",\"signal\":%d,\"thread\":%u,", d->sig, d->thread);
  if (d->what == RD_SIG_UNSAFE)
    bput(b, "\"function\":\"%s\",", d->fn);
  else
    bput(b, "\"errno_before\":%d,\"errno_after\":%d,", d->errno_before, d->errno_after);
  bput(b, "\"frames\":");
  put_pcs_json(b, &r->st[0]);
  put_threads_raw(r, b);
}

static void render_raw(const report *r, buf *b) {
  if (r->sigd) {
    render_raw_signal(r, b);
    return;
  }
  if (r->mis) {
    render_raw_misuse(r, b);
    return;
  }
  if (r->ndl) {
    render_raw_deadlock(r, b);
    return;
  }
  if (dc_streq(r->kind, "thread-leak")) {
    bput(b, "{\"kind\":\"thread-leak\",\"pid\":%d,\"leak\":{\"thread\":%u,\"similar\":%u}",
         (int)getpid(), r->leak_tid, r->similar);
    put_threads_raw(r, b);
    return;
  }
  render_raw_access(r, b);
}

/* ,"threads":[...]} and the newline: each thread named, with its ancestry */
static void put_threads_raw(const report *r, buf *b) {
  bput(b, ",\"threads\":[");
  for (int i = 0; i < r->nthreads; i++) {
    const thread_info *ti = &r->threads[i];
    const char *nm = thread_name(ti->tid);
    bput(b, "%s{\"id\":%u,\"name\":", i ? "," : "", ti->tid);
    put_str_json(b, nm);
    if (ti->has_parent) {
      bput(b, ",\"parent\":%u,\"creation_frames\":", ti->parent);
      put_pcs_json(b, &ti->created);
    } else {
      bput(b, ",\"parent\":null,\"creation_frames\":[]");
    }
    bput(b, "}");
  }
  bput(b, "]}\n");
}

/* A raw report line is written with one write(2) when it fits in PIPE_BUF
 * (atomic on a pipe); a longer one as chunks "\x1e<pid>:<more>:<payload>\n"
 * of at most PIPE_BUF bytes each, which the launcher reassembles per process,
 * so reports from forked children never interleave. */
static void emit_raw(int fd, const char *p, size_t n) {
  if (n <= PIPE_BUF) {
    dc_write_all(fd, p, n);
    return;
  }
  size_t body = n - 1, off = 0; /* the payload without its newline */
  char chunk[PIPE_BUF];
  while (off < body) {
    int h = dc_snprintf(chunk, 40, "\x1e%d:", (int)getpid());
    size_t room = PIPE_BUF - (size_t)h - 3, k = body - off < room ? body - off : room;
    chunk[h++] = off + k < body ? '1' : '0';
    chunk[h++] = ':';
    dc_memcpy(chunk + h, p + off, k);
    chunk[h + k] = '\n';
    dc_write_all(fd, chunk, (size_t)h + k + 1);
    off += k;
  }
}

/* With the launcher, wait until it has printed the report just written
 * (a dc_report_ack on report_ack_fd per report): then a report comes
 * before whatever the program writes after the race, as ThreadSanitizer's
 * synchronous reports do, and a halt stops the program right after its
 * report.  A launcher that does not answer within 10 s ends the waits; so
 * does a descriptor the program closed or reused, unless the launcher's
 * own end could be opened again (report_via).
 * Returns 1 when the launcher printed the report, 0 when it did not
 * (suppressed, or skipped by suppress_equal_addresses; a repeat of another
 * process's report counts as printed), -1 when it did not say. */
static int wait_ack(void) {
  if (!ack_ready()) return -1;
  const int32_t me = (int32_t)getpid();
  for (;;) {
    struct pollfd p = {.fd = ack_ch.fd, .events = POLLIN};
    int k;
    do k = poll(&p, 1, 10000);
    while (k < 0 && errno == EINTR);
    dc_report_ack a;
    if (k <= 0 || dc_read(ack_ch.fd, &a, sizeof a) != (long)sizeof a) {
      ack_ch.fd = -1;
      ack_gone = 1;
      return -1;
    }
    if (a.pid == me || a.pid == 0) return a.printed != 0;
    /* the answer to a process that stopped waiting (its 10 s passed):
     * skipped */
  }
}

/* Every process that reports to the launcher waits for its answer on the
 * same pipe; one at a time, or one would take another's answer.  The lock
 * is flock(2) on a description of the pipe that this report opens for
 * itself: the descriptor inherited through fork and exec is one
 * description shared by all, and so would be its lock.  A holder that
 * does not let go within 10 s (stopped in a debugger) is waited for no
 * longer, as an answer is not.  Returns the descriptor to close (which
 * unlocks), or -1. */
static int ack_lock(void) {
  if (!ack_ready()) return -1;
  char path[48];
  dc_snprintf(path, sizeof path, "/proc/self/fd/%d", ack_ch.fd);
  const int fd = dc_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0);
  if (fd < 0) return -1;
  for (int ms = 0; ms < 10000; ms++) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return fd;
    if (errno != EWOULDBLOCK && errno != EINTR) break;
    poll(NULL, 0, 1);
  }
  dc_close(fd);
  return -1;
}

static void emit(dc_thread *t, const report *r);

/* The report being made: one for every kind (with report_lock held), as
 * it is megabytes (its stacks hold every decoded frame) and each report
 * clears it all. */
static report the_report;
static report *report_new(const char *kind) {
  const int e = errno;
  the_report = (report){0};
  the_report.kind = kind;
  the_report.saved_errno = e;
  return &the_report;
}

static void stack_clear(stack *st) {
  st->n = st->truncated = st->error = st->not_captured = st->pc_merged = st->nint = 0;
}

/* A stack as a race's dedup key: where a signal arrived counts as its
 * function (a handler that races again at its next signal, which came
 * elsewhere in the same code, is the same race). */
static uint64_t stack_key(stack *s) {
  uintptr_t was[DC_SIG_NEST];
  for (int i = 0; i < s->nint; i++) {
    was[i] = s->pc[s->at[i]];
    s->pc[s->at[i]] = symbol_start(was[i]); /* (an interrupted pc is in a function) */
  }
  const uint64_t h = dc_hash(s->pc, (size_t)s->n * sizeof s->pc[0]);
  for (int i = 0; i < s->nint; i++) s->pc[s->at[i]] = was[i];
  return h;
}

/* Mutex m (its read bit ignored) in the report's list, in order of first
 * mention, with its creation stack when known (sync.c: init, else the
 * first lock). */
static void mutex_add(report *r, uintptr_t m) {
  m &= ~(uintptr_t)1;
  int j = 0;
  while (j < r->nmtx && r->mtx[j] != m) j++;
  if (j < r->nmtx || j == 32) return;
  r->mtx[r->nmtx++] = m;
  uint32_t ctx;
  uintptr_t pc;
  if (!rd_lock_creation(m, &ctx, &pc)) return;
  r->mtx_known[j] = 1;
  stack_clear(&mutex_st[j]);
  stack_of(&mutex_st[j], ctx, pc);
}

/* The mutexes the accesses held. */
static void mutex_creations(report *r) {
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < r->nheld[k]; i++) mutex_add(r, r->held[k][i]);
}

void rd_report_race(const rd_access_desc *cur, const rd_access_desc *prev) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return;
  dc_options_program_defaults();
  if (!dc_opt.report_bugs) return;
  if (rd_benign(cur->addr, cur->size) || rd_benign(prev->addr, prev->size)) return;
  dc_lock(&report_lock);
  if (seen_insert(pair_hash(access_key(cur), access_key(prev)))) {
    dc_unlock(&report_lock);
    return;
  }
  dc_enter(t);
  report *r = report_new(prev->freed ? "heap-use-after-free" : "data-race");
  r->acc[0] = *cur;
  r->acc[1] = *prev;
  /* a free made by uninstrumented code (operator delete, a std::string's
   * growth): its function at its call into that code (rd_heap_freed_via) */
  stack_of_at(&r->st[0], cur->ctx, cur->pc, cur->freed ? rd_heap_freed_via(cur->addr) : 0, 0);
  stack_of_at(&r->st[1], prev->ctx, prev->pc, prev->freed ? rd_heap_freed_via(prev->addr) : 0,
              0);
  r->st[1].pc_merged = prev->pc_merged && prev->pc;
  /* the same two stacks in either role are one report; a use-after-free
   * is not the same report as a race between the same stacks */
  if (seen_insert(pair_hash(stack_key(&r->st[0]), stack_key(&r->st[1])) ^
                  (r->kind[0] == 'h' ? 0x5555 : 0))) {
    dc_leave(t);
    dc_unlock(&report_lock);
    return;
  }
  locate(r, cur->addr);
  r->loc_type = rd_external_type(cur->addr);
  add_thread(r, cur->tid);
  add_thread(r, prev->tid);
  for (int k = 0; k < 2; k++) {
    rd_lockset ls = {0};
    rd_lockset_read(r->acc[k].held, &ls);
    for (uint32_t i = 0; i < ls.n; i++) r->held[k][r->nheld[k]++] = ls.a[i];
  }
  mutex_creations(r);
  emit(t, r);
}

/* The raw channel, opened at its first use (with report_lock held): is it
 * there, and still the launcher's? */
static int raw_ready(void) {
  if (raw_ch.fd == -2) {
    raw_ch.fd = -1;
    if (*dc_opt.raw_reports) {
      int fd = dc_open(dc_opt.raw_reports, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd >= 0 && channel_same(&raw_ch, fd)) {
        raw_ch.fd = fd;
      } else {
        /* the launcher's descriptor was closed on the way down (a runner
         * between it and us that closes what it did not open), or its
         * number is the program's file now: the launcher's own end, else
         * text, or nothing would tell */
        if (fd >= 0) dc_close(fd);
        if (via_open(&raw_ch, 0) < 0) {
          if (fd < 0) dc_printf("==dacce== cannot open raw_reports file '%s'\n", dc_opt.raw_reports);
          lose(&raw_ch);
        }
      }
    }
  }
  if (raw_ch.fd >= 0 && !channel_same(&raw_ch, raw_ch.fd) && via_open(&raw_ch, 0) < 0)
    lose(&raw_ch);
  return raw_ch.fd >= 0;
}

/* A record for the launcher, not a report (no acknowledgement); with
 * close_after, a channel this opened is closed again.  Returns whether it
 * was written. */
static int put_record(const char *line, size_t n, int close_after) {
  dc_lock(&report_lock);
  const int was_open = raw_ch.fd >= 0;
  const int told = raw_ready();
  if (told) {
    dc_write_all(raw_ch.fd, line, n);
    if (close_after && !was_open) {
      dc_close(raw_ch.fd);
      raw_ch.fd = -2;
    }
  }
  dc_unlock(&report_lock);
  return told;
}

/* The program's __tsan_on_finalize changed the verdict at exit (failed:
 * whether races were reported; verdict: what the hook returned): tell the
 * launcher, which then decides the exit status by the verdict (a record,
 * not a report: no acknowledgement).  Returns whether it was told. */
int rd_report_verdict(int failed, int verdict) {
  char line[96];
  int n = dc_snprintf(line, sizeof line,
                      "{\"kind\":\"verdict\",\"pid\":%d,\"failed\":%d,\"verdict\":%d}\n",
                      (int)getpid(), failed, verdict);
  return put_record(line, (size_t)n, 0);
}

/* Tell the launcher that an instrumented process started (a record).
 * Under --trace-children the command it ran may be a script or a test
 * runner, and a run in which no instrumented program reached the launcher
 * must not pass as a clean one.  The channel is closed again until the
 * first report: a program may expect its own first open() to give it
 * descriptor 3. */
void rd_report_started(void) {
  if (!*dc_opt.raw_reports) return;
  char line[64];
  int n = dc_snprintf(line, sizeof line, "{\"kind\":\"process\",\"pid\":%d}\n", (int)getpid());
  put_record(line, (size_t)n, 1);
}

/* Write report r (raw for the launcher, text) and count it; then halt if
 * asked.  Called holding report_lock and inside the runtime; returns
 * having released both. */
static void emit(dc_thread *t, const report *r) {
  static char text[1 << 24];
  buf b = {text, 0, sizeof text};
  if (raw_ready()) {
    render_raw(r, &b);
    const int lock = ack_lock();
    emit_raw(raw_ch.fd, text, b.n);
    b.n = 0;
    if (wait_ack() != 0) atomic_fetch_add(&n_printed, 1);
    if (lock >= 0) dc_close(lock);
  }
  if (dc_opt.report_text || channel_lost) {
    render_text(r, &b);
    dc_write_all(2, text, b.n);
  }
  atomic_fetch_add(&n_reports, 1);
  /* a report from a signal handler must not be what changes errno */
  errno = r->saved_errno;
  dc_leave(t);
  dc_unlock(&report_lock);
  errno = r->saved_errno;
  if (dc_opt.halt_on_error) {
    dc_printf("==dacce== halt_on_error: exiting after the first report\n");
    fflush(NULL);
    _exit(dc_opt.exitcode);
  }
}

/* The start of a report of a kind that option (a dc_opt field) turns on,
 * deduplicated by key: the calling thread, with report_lock held and inside
 * the runtime; or 0 (no thread, in the runtime, reports off, key seen). */
static dc_thread *report_begin(const int *option, uint64_t key) {
  dc_thread *t = dc_self();
  if (!t || t->in_runtime) return 0;
  dc_options_program_defaults();
  if (!dc_opt.report_bugs || !*option) return 0;
  dc_lock(&report_lock);
  if (seen_insert(key | 1)) {
    dc_unlock(&report_lock);
    return 0;
  }
  dc_enter(t);
  return t;
}

void rd_report_deadlock(const rd_dl_edge *e, int n) {
  /* one report per cycle closed at the same calls of the lock functions,
   * whichever edge closed it and whatever called those: the same lines
   * taking their locks in the same orders are one bug, however many call
   * paths and lock objects repeat it */
  uint64_t h = 0x10c0;
  for (int i = 0; i < n; i++) h += dc_hash(&e[i].pc, sizeof e[i].pc);
  dc_thread *t = report_begin(&dc_opt.detect_deadlocks, h);
  if (!t) return;
  report *r = report_new("lock-order-inversion");
  r->ndl = n;
  for (int i = 0; i < n; i++) { /* mutexes and threads in cycle order */
    r->dl[i] = e[i];
    for (int k = 0; k < 2; k++) {
      stack_clear(&dl_st[i][k]);
      stack_of(&dl_st[i][k], k ? e[i].from_ctx : e[i].ctx, k ? e[i].from_pc : e[i].pc);
    }
    mutex_add(r, e[i].from);
    add_thread(r, e[i].thread);
  }
  emit(t, r);
}

void rd_report_misuse(const rd_misuse_desc *d) {
  /* one report per misuse at one call */
  const uint64_t k[2] = {(uint64_t)d->what, d->pc};
  dc_thread *t = report_begin(&dc_opt.report_mutex_bugs, dc_hash(k, sizeof k));
  if (!t) return;
  report *r = report_new("mutex-misuse");
  r->mis = d;
  stack_of(&r->st[0], d->ctx, d->pc);
  if (d->has_held) stack_of(&r->st[1], d->held_ctx, d->held_pc);
  mutex_add(r, d->mutex);
  add_thread(r, d->thread);
  if (d->holder) add_thread(r, d->holder - 1);
  emit(t, r);
}

void rd_report_signal(const rd_signal_desc *d) {
  /* one report per unsafe function at one call, per handler that spoils errno */
  const uint64_t k[3] = {0x5160 + (uint64_t)d->what,
                         d->what == RD_SIG_UNSAFE ? d->pc : d->handler,
                         (uintptr_t)d->fn};
  dc_thread *t = report_begin(&dc_opt.report_signal_unsafe, dc_hash(k, sizeof k));
  if (!t) return;
  report *r = report_new(d->what == RD_SIG_UNSAFE ? "signal-unsafe-call" : "signal-errno");
  r->sigd = d;
  stack *s = &r->st[0];
  /* errno: where the signal arrived, if in the interrupted function */
  stack_of_at(s, d->ctx, d->pc, 0, d->what == RD_SIG_ERRNO);
  if (d->what == RD_SIG_ERRNO) { /* the handler, above where the signal arrived */
    if (s->n == MAXF) s->n--;
    for (int i = s->n; i > 0; i--) s->pc[i] = s->pc[i - 1];
    s->pc[0] = d->handler;
    s->n++;
  }
  add_thread(r, d->thread);
  emit(t, r);
}

void rd_report_leak(uint32_t serial, uint32_t similar) {
  dc_thread *t = dc_cur();
  if (t->in_runtime || !dc_opt.report_bugs) return;
  dc_lock(&report_lock);
  dc_enter(t);
  report *r = report_new("thread-leak");
  r->leak_tid = serial;
  r->similar = similar;
  add_thread(r, serial);
  emit(t, r);
}

__attribute__((constructor)) static void report_locks(void) {
  dc_atfork_register(DC_RANK_REPORT, &report_lock, 1, 0);
}
