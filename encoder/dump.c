/* dump.c: what leaves the process for offline decoding.
 *
 *  - dacce_log(): appends one context line to the log_contexts file;
 *  - dc_dump_write(): at exit, the call graph, every ccStack node, every
 *    dictionary, the thread records and the loaded modules, as text that
 *    dacce-decode reads back (format: docs/dump-format.md);
 *  - dacce_print(): in-process, symbolised with the dynamic symbol tables.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "internal.h"

DC_EXPORT void dacce_log(const dacce_ctx *c, const char *tag) {
  static int fd = -1;
  if (fd < 0) {
    dc_options_init();
    if (!*dc_opt.log_contexts) return;
    fd = dc_open(dc_opt.log_contexts, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) dc_die("dacce: cannot open log_contexts file '%s'\n", dc_opt.log_contexts);
  }
  char line[512];
  int n = dc_snprintf(line, sizeof line, "ctx %s %u %u %llu %u %u\n", tag && *tag ? tag : "-",
                      c->ts, c->node, (unsigned long long)c->id, c->cc, c->thread);
  if (n > 0) (void)!dc_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

/* What dump.c writes goes through a buffer, out to a descriptor with raw
 * write(2)s or to the caller's stream through libc's own fwrite: the
 * runtime calls no printf or stdio function of the program's, which it
 * intercepts (intercept_stdio.c). */
typedef struct out {
  int fd;
  FILE *f;
  size_t n;
  char b[8192];
} out;
static void out_flush(out *o) {
  if (o->f) {
    static size_t (*real_fwrite)(const void *, size_t, size_t, FILE *);
    if (!real_fwrite)
      real_fwrite = (size_t(*)(const void *, size_t, size_t, FILE *))dlsym(RTLD_NEXT, "fwrite");
    if (real_fwrite && o->n) real_fwrite(o->b, 1, o->n, o->f);
  } else {
    dc_write_all(o->fd, o->b, o->n);
  }
  o->n = 0;
}
static void outf(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void outf(out *o, const char *fmt, ...) {
  for (int again = 0; again < 2; again++) {
    va_list ap;
    va_start(ap, fmt);
    int k = dc_vsnprintf(o->b + o->n, sizeof o->b - o->n, fmt, ap);
    va_end(ap);
    if (k < 0) return;
    if ((size_t)k < sizeof o->b - o->n || !o->n) { /* fits (or is cut at the buffer's size) */
      o->n += (size_t)k < sizeof o->b - o->n ? (size_t)k : sizeof o->b - o->n - 1;
      return;
    }
    out_flush(o); /* and once more, into the empty buffer */
  }
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  out *f = arg;
  const char *name = info->dlpi_name;
  char exe[4096];
  if (!name || !*name) {
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    name = exe;
  }
  /* the extent of the executable segments, so pcs can be attributed */
  uintptr_t lo = UINTPTR_MAX, hi = 0;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) *p = &info->dlpi_phdr[i];
    if (p->p_type != PT_LOAD) continue;
    uintptr_t a = info->dlpi_addr + p->p_vaddr;
    if (a < lo) lo = a;
    if (a + p->p_memsz > hi) hi = a + p->p_memsz;
  }
  if (hi > lo) outf(f, "module %#lx %#lx %#lx %s\n", (unsigned long)info->dlpi_addr,
                    (unsigned long)lo, (unsigned long)hi, name);
  return 0;
}

void dc_dump_write(const char *path) {
  static out o; /* (at exit: a static, not 8 KB of a thread's stack) */
  out *f = &o;
  f->fd = dc_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  f->n = 0;
  if (f->fd < 0) {
    dc_printf("dacce: cannot write dump file '%s'\n", path);
    return;
  }
  outf(f, "dacce-dump 1\n");
  dl_iterate_phdr(module_cb, f);
  /* read the counts innermost-dependency last, so that everything a later
   * table refers to is within the earlier counts even while threads run */
  uint32_t nT = atomic_load(&dc_threads.n), nD = atomic_load(&dc_n_dicts);
  uint32_t nC = atomic_load(&dc_ccnodes.n), nE = atomic_load(&dc_edges.n);
  uint32_t nN = atomic_load(&dc_nodes.n);
  for (uint32_t i = 1; i < nN; i++) outf(f, "node %u %#lx\n", i, (unsigned long)dc_node_at(i)->pc);
  for (uint32_t i = 1; i < nE; i++) {
    const dc_edge *e = dc_edge_at(i);
    outf(f, "edge %u %u %#lx %u\n", i, e->caller, (unsigned long)e->cs, e->callee);
  }
  for (uint32_t i = 1; i < nC; i++) {
    const dc_ccnode *c = dc_cc_at(i);
    outf(f, "cc %u %llu %u %u %u\n", i, (unsigned long long)c->id, c->edge, c->count,
         c->parent);
  }
  for (uint32_t t = 0; t < nD; t++) {
    const dc_dict *d = dc_dicts[t];
    outf(f, "dict %u %llu %u %u\n", t, (unsigned long long)d->max_id, d->n_edges, d->n_nodes);
    for (uint32_t e = 1; e < d->n_edges; e++)
      if (d->code[e] != DC_UNENCODED) outf(f, "code %u %llu\n", e, (unsigned long long)d->code[e]);
    for (uint32_t n = 0; n < d->n_nodes; n++)
      outf(f, "numcc %u %llu\n", n, (unsigned long long)d->numcc[n]);
  }
  for (uint32_t s = 0; s < nT; s++) {
    const dc_thread_rec *r = dc_vec_at(&dc_threads, s);
    if (!r->has_creator) {
      outf(f, "thread %u\n", s);
      continue;
    }
    const dacce_ctx *c = &r->created_at;
    outf(f, "thread %u %u %u %llu %u %u %#lx\n", s, c->ts, c->node, (unsigned long long)c->id,
         c->cc, c->thread, (unsigned long)r->created_pc);
  }
  outf(f, "end\n");
  out_flush(f);
  dc_close(f->fd);
}

static void print_pc(out *o, uintptr_t pc) {
  Dl_info info;
  uintptr_t off = 0;
  const char *fn = dc_symtab_name(pc, &off);
  if (pc && dladdr((void *)pc, &info)) {
    const char *mod = info.dli_fname ? dc_basename(info.dli_fname) : "?";
    if (!fn && info.dli_sname) {
      fn = info.dli_sname;
      off = pc - (uintptr_t)info.dli_saddr;
    }
    if (fn)
      outf(o, "%s+%#lx (%s)", fn, (unsigned long)off, mod);
    else
      outf(o, "%s+%#lx", mod, (unsigned long)(pc - (uintptr_t)info.dli_fbase));
    return;
  }
  outf(o, "%#lx", (unsigned long)pc);
}

DC_EXPORT void dacce_print(const dacce_ctx *c, FILE *stream) {
  enum { MAXF = 4096 };
  static dacce_frame frames[MAXF];
  static out o;
  static _Atomic int busy;
  dc_lock(&busy);
  o.f = stream;
  o.n = 0;
  int n = dacce_decode(c, frames, MAXF, 1);
  if (n < 0) {
    outf(&o, "    <inconsistent context: decoder error %d>\n", n);
  }
  for (int i = 0; i < n; i++) {
    if (frames[i].flags & DACCE_FRAME_CREATE)
      outf(&o, "  thread T%u was created by T%u at:\n", i ? frames[i - 1].thread : 0,
           frames[i].thread);
    outf(&o, "    #%d ", i);
    print_pc(&o, frames[i].function);
    if (frames[i].callsite) {
      outf(&o, " called from ");
      print_pc(&o, frames[i].callsite - 1);
    }
    outf(&o, "\n");
  }
  out_flush(&o);
  dc_unlock(&busy);
}
