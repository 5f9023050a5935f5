/* symreport.c: symbolise a raw report in place with decoder/symbolize.c.
 *
 * Modules: the runtime names each pc's module by the path the dynamic
 * loader knows (for the main program: argv[0] as the program was started, so
 * maybe relative, or /proc/self/exe) and its load bias.  Paths are made
 * absolute (the program's own name maps to the file the launcher started),
 * and each distinct (module, bias) is added once to a symbolizer with the
 * span of its PT_LOAD segments.
 *
 * Spaces: one process's modules never overlap, but a program that forks and
 * execs other instrumented programs reports from several address spaces
 * through the same pipe.  A report is symbolised in the first symbolizer
 * ("space") where all its modules are already known at the same bias or fit
 * without overlapping; otherwise a new space is opened (at most MAX_SPACES,
 * then the oldest is recycled: reports are rendered as soon as they are
 * symbolised, so no string of a recycled space is still in use).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "launcher.h"
#include "symbolize.h"

/* ------------------------------------------------------------ modules */
typedef struct modinfo {
  char *raw;  /* the name in raw reports */
  char *path; /* absolute path */
  int readable;
  uintptr_t lo, hi; /* PT_LOAD span, file addresses */
} modinfo;

typedef struct globinfo {
  const modinfo *m;
  uintptr_t addr; /* file address asked for */
  int found;
  char *name;
  uintptr_t start, size;
  char *decl_file;
  int decl_line;
} globinfo;

typedef struct space_mod {
  const modinfo *m;
  uintptr_t bias;
} space_mod;

typedef struct space {
  dc_sym *sym;
  space_mod *mods;
  size_t n, cap;
} space;

#define MAX_SPACES 16
static struct {
  lr_progmap pm;
  struct stat prog_st;
  int have_prog_st;
  modinfo **mods;
  size_t nmods, capmods;
  globinfo *globs;
  size_t nglobs, capglobs;
  space spaces[MAX_SPACES];
  int nspaces, next_recycle;
} S;

static void out_of_memory(void) {
  fputs("dacce-race: out of memory\n", stderr);
  exit(2);
}

static void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) out_of_memory();
  return q;
}

static char *xstrdup(const char *s) {
  char *p = strdup(s);
  if (!p) out_of_memory();
  return p;
}

void lr_sym_init(const lr_progmap *pm) {
  S.pm = *pm;
  S.have_prog_st = pm->path && stat(pm->path, &S.prog_st) == 0;
}

static int is_program(const char *path) {
  struct stat st;
  return S.have_prog_st && stat(path, &st) == 0 && st.st_dev == S.prog_st.st_dev &&
         st.st_ino == S.prog_st.st_ino;
}

static char *absolute(const char *raw) {
  if (!strcmp(raw, "/proc/self/exe") || (S.pm.argv0 && !strcmp(raw, S.pm.argv0)))
    return xstrdup(S.pm.path);
  char *joined = NULL;
  if (raw[0] != '/') {
    if (asprintf(&joined, "%s/%s", S.pm.cwd, raw) < 0) return xstrdup(raw);
    char real[PATH_MAX];
    if (realpath(joined, real)) {
      free(joined);
      return xstrdup(real);
    }
    return joined;
  }
  return xstrdup(raw);
}

static const modinfo *module(const char *raw) {
  if (!raw || !*raw) return NULL;
  for (size_t i = 0; i < S.nmods; i++)
    if (!strcmp(S.mods[i]->raw, raw)) return S.mods[i];
  modinfo *m = calloc(1, sizeof *m);
  if (!m) out_of_memory();
  m->raw = xstrdup(raw);
  m->path = absolute(raw);
  if (strcmp(m->path, S.pm.path ? S.pm.path : "") && is_program(m->path)) {
    free(m->path);
    m->path = xstrdup(S.pm.path);
  }
  m->readable = lr_elf_load_span(m->path, &m->lo, &m->hi) == 0;
  if (S.nmods == S.capmods) {
    S.capmods = S.capmods ? S.capmods * 2 : 16;
    S.mods = xrealloc(S.mods, S.capmods * sizeof *S.mods);
  }
  S.mods[S.nmods++] = m;
  return m;
}

/* ------------------------------------------------------------ spaces */
static int space_has(const space *s, const modinfo *m, uintptr_t bias) {
  for (size_t i = 0; i < s->n; i++)
    if (s->mods[i].m == m && s->mods[i].bias == bias) return 1;
  return 0;
}

static int space_fits(const space *s, const modinfo *m, uintptr_t bias) {
  if (space_has(s, m, bias)) return 1;
  uintptr_t lo = bias + m->lo, hi = bias + m->hi;
  for (size_t i = 0; i < s->n; i++) {
    const space_mod *o = &s->mods[i];
    if (lo < o->bias + o->m->hi && o->bias + o->m->lo < hi) return 0;
  }
  return 1;
}

static void space_add(space *s, const modinfo *m, uintptr_t bias) {
  if (space_has(s, m, bias)) return;
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 16;
    s->mods = xrealloc(s->mods, s->cap * sizeof *s->mods);
  }
  s->mods[s->n++] = (space_mod){m, bias};
  /* 1 (libdwfl could not use the file) still gives module+offset */
  dc_sym_add_module(s->sym, m->path, bias, bias + m->lo, bias + m->hi);
}

static void space_close(space *s) {
  dc_sym_close(s->sym);
  free(s->mods);
  memset(s, 0, sizeof *s);
}

/* the modules a report needs */
typedef struct need {
  space_mod *v;
  size_t n, cap;
} need;

static void need_frame(need *nd, const lr_frame *f) {
  const modinfo *m = module(f->module);
  if (!m || !m->readable) return;
  for (size_t i = 0; i < nd->n; i++)
    if (nd->v[i].m == m && nd->v[i].bias == f->bias) return;
  if (nd->n == nd->cap) {
    nd->cap = nd->cap ? nd->cap * 2 : 8;
    nd->v = xrealloc(nd->v, nd->cap * sizeof *nd->v);
  }
  nd->v[nd->n++] = (space_mod){m, f->bias};
}

static void need_stack(need *nd, const lr_stack *s) {
  for (int i = 0; i < s->n; i++) need_frame(nd, &s->f[i]);
}

static space *space_for(const need *nd) {
  for (int k = 0; k < S.nspaces; k++) {
    space *s = &S.spaces[k];
    size_t i = 0;
    while (i < nd->n && space_fits(s, nd->v[i].m, nd->v[i].bias)) i++;
    /* fits one by one is not enough when two needed modules overlap each
     * other, which one process never has */
    if (i == nd->n) return s;
  }
  space *s;
  if (S.nspaces < MAX_SPACES) {
    s = &S.spaces[S.nspaces++];
  } else {
    s = &S.spaces[S.next_recycle];
    S.next_recycle = (S.next_recycle + 1) % MAX_SPACES;
    space_close(s);
  }
  s->sym = dc_sym_open();
  if (!s->sym) {
    fputs("dacce-race: cannot start the symbolizer (libdwfl)\n", stderr);
    exit(2);
  }
  return s;
}

/* ------------------------------------------------------------ frames */
/* Symbolise one raw frame into 1 + (inlined levels) frames at out; returns
 * how many. */
static int sym_frame(space *sp, const lr_frame *raw, lr_frame *out) {
  *out = *raw;
  const modinfo *m = module(raw->module);
  if (m) out->module = m->path;
  if (!raw->pc || !m || !m->readable) return 1;
  dc_symloc loc;
  int level = dc_sym_lookup(sp->sym, raw->pc, &loc);
  if (level < DC_SYM_SYMBOL) return 1;
  if (loc.n_frames == 0) {
    out->function = loc.function;
    out->file = loc.file;
    out->line = loc.line;
    out->column = loc.column;
    return 1;
  }
  for (int k = 0; k < loc.n_frames; k++) {
    out[k] = *out;
    out[k].function = loc.frames[k].function ? loc.frames[k].function
                                             : (k == loc.n_frames - 1 ? loc.function : NULL);
    out[k].file = loc.frames[k].file;
    out[k].line = loc.frames[k].line;
    out[k].column = loc.frames[k].column;
    out[k].inlined = k < loc.n_frames - 1;
  }
  return loc.n_frames;
}

/* Is name one of the runtime's interceptors, whose accesses are reported at
 * their caller's call (memcpy, free, pthread_cond_signal, ...)? */
static int interceptor_name(const char *name) {
  static const char *const prefix[] = {"pthread_", "sem_", "mem", "str", "mtx_", "cnd_",
                                       "_Znw", "_Zna", "_Zdl", "_Zda"}; /* new/delete, mangled */
  static const char *const exact[] = {
      "free",     "cfree",        "realloc",   "read",         "write",         "pread",
      "pread64",  "pwrite",       "pwrite64",  "readv",        "writev",        "preadv",
      "pwritev",  "recv",         "recvfrom",  "recvmsg",      "send",          "sendto",
      "sendmsg",  "sendmmsg",     "eventfd_read", "eventfd_write", "close",     "dup",
      "dup2",     "dup3",         "epoll_ctl", "epoll_wait",   "epoll_pwait"};
  for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
    if (!strncmp(name, prefix[i], strlen(prefix[i]))) return 1;
  for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
    if (!strcmp(name, exact[i])) return 1;
  return 0;
}

/* An access made inside an interceptor is recorded at its caller's call
 * instruction (pc: the return address - 1).  When that instruction is a
 * direct call (E8 rel32) to the entry of an interceptor, the interceptor
 * becomes frame #0, as ThreadSanitizer shows it ("#0 memcpy", "#0 free"),
 * without a source line, so that the SUMMARY and SARIF stay at the
 * program's line.  An access of the instrumentation (a call of
 * __tsan_read4, whose pc is the return address itself) never matches: the
 * bytes read then are not a call to an interceptor's first instruction. */
static void interceptor_frame(lr_report *r, space *sp, lr_stack *s, const lr_frame *raw) {
  const modinfo *m = module(raw->module);
  if (!raw->pc || !m || !m->readable) return;
  const uintptr_t ret = raw->offset + 1;
  unsigned char b[5];
  if (ret < 5 || lr_elf_read(m->path, ret - 5, b, 5) || b[0] != 0xE8) return;
  int32_t rel;
  memcpy(&rel, b + 1, 4);
  const uintptr_t target = ret + (uintptr_t)(intptr_t)rel;
  dc_symloc loc;
  if (dc_sym_lookup(sp->sym, target + raw->bias, &loc) < DC_SYM_SYMBOL || !loc.function ||
      loc.function_offset || !interceptor_name(loc.function))
    return;
  lr_frame *f = lr_alloc(&r->arena, (size_t)(s->n + 1) * sizeof *f);
  char *demangled = dc_sym_demangle(loc.function);
  f[0] = (lr_frame){.pc = target + raw->bias, .bias = raw->bias, .module = m->path,
                    .offset = target,
                    .function = lr_strdup(&r->arena, demangled ? demangled : loc.function)};
  free(demangled);
  memcpy(f + 1, s->f, (size_t)s->n * sizeof *f);
  s->f = f;
  s->n++;
}

static void sym_stack(lr_report *r, space *sp, lr_stack *s) {
  if (!s->n) return;
  /* each raw frame gives 1 + its inlined levels: collect, then copy */
  size_t cap = (size_t)s->n + 8, n = 0;
  lr_frame *tmp = xrealloc(NULL, cap * sizeof *tmp);
  for (int i = 0; i < s->n; i++) {
    if (cap - n < DC_SYM_MAX_INLINE) {
      cap = cap * 2 + DC_SYM_MAX_INLINE;
      tmp = xrealloc(tmp, cap * sizeof *tmp);
    }
    n += (size_t)sym_frame(sp, &s->f[i], tmp + n);
  }
  s->f = lr_alloc(&r->arena, n * sizeof *s->f);
  memcpy(s->f, tmp, n * sizeof *s->f);
  s->n = (int)n;
  free(tmp);
}

/* ------------------------------------------------------------ globals */
/* The global at file address addr of module m, loaded at bias; sp: the
 * report's space, whose symbolizer has m's DWARF open if a frame of the
 * report is in m (the declaration is then read from it: a second reading
 * of a large CU's line table: a report on a global of one 40,000-line file
 * took the launcher's resident memory to 106 MB, 76 MB without it). */
static const globinfo *global_at(const space *sp, const modinfo *m, uintptr_t bias,
                                 uintptr_t addr) {
  for (size_t i = 0; i < S.nglobs; i++)
    if (S.globs[i].m == m && S.globs[i].addr == addr) return &S.globs[i];
  if (S.nglobs == S.capglobs) {
    S.capglobs = S.capglobs ? S.capglobs * 2 : 16;
    S.globs = xrealloc(S.globs, S.capglobs * sizeof *S.globs);
  }
  globinfo *g = &S.globs[S.nglobs++];
  memset(g, 0, sizeof *g);
  g->m = m;
  g->addr = addr;
  if (lr_elf_data_symbol(m->path, addr, &g->name, &g->start, &g->size) == 0) {
    g->found = 1;
    uintptr_t b = 0;
    struct Dwarf *dw = space_has(sp, m, bias) ? dc_sym_dwarf_at(sp->sym, g->start + bias, &b) : 0;
    if (!dw || b != bias || lr_dwarf_var_decl(dw, g->start, &g->decl_file, &g->decl_line))
      lr_elf_var_decl(m->path, g->start, &g->decl_file, &g->decl_line);
  }
  return g;
}

static void sym_location(lr_report *r, const space *sp) {
  lr_location *l = &r->loc;
  /* a global's name as the runtime found it is the symbol's, mangled for
   * C++ (`_ZL4data`, a static); reports, suppressions and SARIF take the
   * source's name, as for the module's own symbols below */
  char *d = !strcmp(l->kind, "global") ? dc_sym_demangle(l->name) : NULL;
  if (d) l->name = lr_strdup(&r->arena, d);
  free(d);
  const modinfo *m = module(l->data.module);
  if (m) l->data.module = m->path;
  if (strcmp(l->kind, "global") || !m || !m->readable) return;
  uintptr_t bias = l->data.bias;
  uintptr_t acc = l->access_address ? (uintptr_t)l->access_address : l->data.pc;
  const globinfo *g = global_at(sp, m, bias, acc - bias);
  if (!g->found) {
    l->data.offset = acc - bias;
    return;
  }
  if (!l->name || !*l->name) {
    l->name = g->name;
    l->address = g->start + bias;
    l->size = g->size;
  } else if (!l->address) {
    l->address = g->start + bias;
    if (!l->size) l->size = g->size;
  }
  l->data.offset = (uintptr_t)l->address - bias;
  l->decl_file = g->decl_file;
  l->decl_line = g->decl_line;
}

void lr_symbolize(lr_report *r) {
  need nd = {0};
  need_stack(&nd, &r->acc[0].st);
  need_stack(&nd, &r->acc[1].st);
  if (r->loc.has_alloc) need_stack(&nd, &r->loc.alloc);
  for (int i = 0; i < r->nthreads; i++) need_stack(&nd, &r->threads[i].created);
  for (int i = 0; i < r->nmutexes; i++)
    if (r->mutex_created_known[i]) need_stack(&nd, &r->mutex_created[i]);
  for (int i = 0; i < r->nedges; i++) {
    need_stack(&nd, &r->edges[i].wanted);
    need_stack(&nd, &r->edges[i].held);
  }
  space *sp = space_for(&nd);
  for (size_t i = 0; i < nd.n; i++) space_add(sp, nd.v[i].m, nd.v[i].bias);
  free(nd.v);
  /* stacks whose top is an interceptor's call: the accesses, and where
   * each edge of a lock-order cycle wanted and had taken its locks */
  for (int k = 0; k < 2 + 2 * r->nedges; k++) {
    lr_stack *st = k < 2 ? &r->acc[k].st : k & 1 ? &r->edges[k / 2 - 1].held
                                                 : &r->edges[k / 2 - 1].wanted;
    const lr_frame raw = st->n ? st->f[0] : (lr_frame){0};
    sym_stack(r, sp, st);
    /* a signal handler's unsafe call: the text names the function called */
    if (!lr_is_signal(r)) interceptor_frame(r, sp, st, &raw);
  }
  if (r->loc.has_alloc) sym_stack(r, sp, &r->loc.alloc);
  for (int i = 0; i < r->nthreads; i++) sym_stack(r, sp, &r->threads[i].created);
  for (int i = 0; i < r->nmutexes; i++)
    if (r->mutex_created_known[i]) sym_stack(r, sp, &r->mutex_created[i]);
  sym_location(r, sp);
}

void lr_sym_fini(void) {
  for (int k = 0; k < S.nspaces; k++) space_close(&S.spaces[k]);
  for (size_t i = 0; i < S.nmods; i++) {
    free(S.mods[i]->raw);
    free(S.mods[i]->path);
    free(S.mods[i]);
  }
  free(S.mods);
  for (size_t i = 0; i < S.nglobs; i++) {
    free(S.globs[i].name);
    free(S.globs[i].decl_file);
  }
  free(S.globs);
  memset(&S, 0, sizeof S);
}
