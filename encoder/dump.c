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
  int n = snprintf(line, sizeof line, "ctx %s %u %u %llu %u %u\n", tag && *tag ? tag : "-",
                   c->ts, c->node, (unsigned long long)c->id, c->cc, c->thread);
  if (n > 0) (void)!dc_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  FILE *f = arg;
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
  if (hi > lo) fprintf(f, "module %#lx %#lx %#lx %s\n", (unsigned long)info->dlpi_addr,
                       (unsigned long)lo, (unsigned long)hi, name);
  return 0;
}

void dc_dump_write(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    dc_printf("dacce: cannot write dump file '%s'\n", path);
    return;
  }
  fprintf(f, "dacce-dump 1\n");
  dl_iterate_phdr(module_cb, f);
  /* read the counts innermost-dependency last, so that everything a later
   * table refers to is within the earlier counts even while threads run */
  uint32_t nT = atomic_load(&dc_threads.n), nD = atomic_load(&dc_n_dicts);
  uint32_t nC = atomic_load(&dc_ccnodes.n), nE = atomic_load(&dc_edges.n);
  uint32_t nN = atomic_load(&dc_nodes.n);
  for (uint32_t i = 1; i < nN; i++) fprintf(f, "node %u %#lx\n", i, (unsigned long)dc_node_at(i)->pc);
  for (uint32_t i = 1; i < nE; i++) {
    const dc_edge *e = dc_edge_at(i);
    fprintf(f, "edge %u %u %#lx %u\n", i, e->caller, (unsigned long)e->cs, e->callee);
  }
  for (uint32_t i = 1; i < nC; i++) {
    const dc_ccnode *c = dc_cc_at(i);
    fprintf(f, "cc %u %llu %u %u %u\n", i, (unsigned long long)c->id, c->edge, c->count,
            c->parent);
  }
  for (uint32_t t = 0; t < nD; t++) {
    const dc_dict *d = dc_dicts[t];
    fprintf(f, "dict %u %llu %u %u\n", t, (unsigned long long)d->max_id, d->n_edges, d->n_nodes);
    for (uint32_t e = 1; e < d->n_edges; e++)
      if (d->code[e] != DC_UNENCODED) fprintf(f, "code %u %llu\n", e, (unsigned long long)d->code[e]);
    for (uint32_t n = 0; n < d->n_nodes; n++)
      fprintf(f, "numcc %u %llu\n", n, (unsigned long long)d->numcc[n]);
  }
  for (uint32_t s = 0; s < nT; s++) {
    const dc_thread_rec *r = dc_vec_at(&dc_threads, s);
    if (!r->has_creator) {
      fprintf(f, "thread %u\n", s);
      continue;
    }
    const dacce_ctx *c = &r->created_at;
    fprintf(f, "thread %u %u %u %llu %u %u %#lx\n", s, c->ts, c->node, (unsigned long long)c->id,
            c->cc, c->thread, (unsigned long)r->created_pc);
  }
  fprintf(f, "end\n");
  fclose(f);
}

static void print_pc(FILE *out, uintptr_t pc) {
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
      fprintf(out, "%s+%#lx (%s)", fn, (unsigned long)off, mod);
    else
      fprintf(out, "%s+%#lx", mod, (unsigned long)(pc - (uintptr_t)info.dli_fbase));
    return;
  }
  fprintf(out, "%#lx", (unsigned long)pc);
}

DC_EXPORT void dacce_print(const dacce_ctx *c, FILE *out) {
  enum { MAXF = 4096 };
  static dacce_frame frames[MAXF];
  static _Atomic int busy;
  dc_lock(&busy);
  int n = dacce_decode(c, frames, MAXF, 1);
  if (n < 0) {
    fprintf(out, "    <inconsistent context: decoder error %d>\n", n);
  }
  for (int i = 0; i < n; i++) {
    if (frames[i].flags & DACCE_FRAME_CREATE)
      fprintf(out, "  thread T%u was created by T%u at:\n", i ? frames[i - 1].thread : 0,
              frames[i].thread);
    fprintf(out, "    #%d ", i);
    print_pc(out, frames[i].function);
    if (frames[i].callsite) {
      fprintf(out, " called from ");
      print_pc(out, frames[i].callsite - 1);
    }
    fputc('\n', out);
  }
  dc_unlock(&busy);
}
