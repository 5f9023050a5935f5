/* dacce-decode: decode and symbolise the contexts a program logged.
 *
 *   dacce-decode DUMP [LOG]
 *
 * DUMP is what the runtime wrote at exit with DACCE_OPTIONS=dump=FILE (format:
 * encoder/dump.c, dc_dump_write); LOG (default: standard input, or "-") holds
 * the "ctx TAG ts node id cc thread" lines that dacce_log() appended
 * (DACCE_OPTIONS=log_contexts=FILE).  The dump is loaded back into the global
 * tables the runtime's decoder works on (dc_nodes, dc_edges, dc_ccnodes,
 * dc_dicts, dc_threads), so decoder/decode.c runs unchanged; every context is
 * then decoded with its thread-creation ancestry and printed TSan-like:
 *
 *   context TAG (thread T2):
 *       #0 leaf /src/x.c:10 (x+0x1234)
 *       #1 helper /src/x.c:20:5 (x+0x1290) [inlined]
 *       #2 middle /src/x.c:31:7 (x+0x1290)
 *     thread T2 was created by T0 at:
 *       #3 spawn /src/x.c:35 (x+0x1300)
 *       #4 main /src/x.c:40:3 (x+0x1350)
 *
 * Which source position a frame shows.  A decoded frame i carries
 * frame.function, a pc inside the function it is in (its call-graph node's
 * pc: for -fsanitize=thread the return address of the prologue's
 * __tsan_func_entry call, for -finstrument-functions the entry address), and
 * frame.callsite, the return address in its CALLER through which it was
 * entered.  So the position at which frame i's function was executing (the
 * call it made into frame i-1) is known from frame i-1, not from frame i:
 *  - frame #0: no inner frame records where in the function execution was.  frame.function's own line would be that of
 *    some prologue instruction, which compilers attribute to whatever line
 *    they scheduled there (the opening line, or a statement of the body)
 *    and would read as "execution was here".  So these frames show where the
 *    function is defined (DWARF DW_AT_decl_file/decl_line, no column), and
 *    only without DWARF subprogram information frame.function's own line;
 *  - the first frame of a creator thread's context (the function that
 *    called pthread_create): the position of the pthread_create call when
 *    the dump's thread record has it (an optional 7th field after the
 *    serial: created_pc, hex, a pc inside the call instruction), else its
 *    definition as for frame #0;
 *  - frame #i > 0: the position of frames[i-1].callsite - 1.  The return
 *    address is the instruction after the call; minus one lands inside the
 *    call instruction, so the line is the call's even when the call ends a
 *    line or a basic block.  If the call was inside code inlined into the
 *    function, that pc has several source frames: the inlined ones are shown
 *    first (marked [inlined]), then the function itself at the line of the
 *    outermost inlined call.  The function's name comes from
 *    frame.function (the call-graph node), its position from the call site.
 *  - if the call site is not in the frame's function at all (uninstrumented
 *    code between the two, e.g. libc's qsort calling an instrumented
 *    comparator), the call site's own frames are shown, marked
 *    [uninstrumented], followed by the function at its definition, as for
 *    frame #0 (where in it the uninstrumented code was called is unknown).
 * Inlined functions never have frames of their own: the instrumentation
 * only sees the functions that were compiled out of line.
 *
 * Exit status: 0; 1 when the input is inconsistent (one line on stderr naming
 * the file and line) or some context could not be decoded (it prints
 * "<cannot decode: error N>", N as dacce_decode returns it); 2 for usage
 * errors and unreadable files.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../encoder/internal.h"
#include "symbolize.h"

/* ------------------------------------------------------------ the tables
 * decode.c reads these; in the runtime graph.c, ccstack.c, reencode.c and
 * thread.c define them.  dacce-decode links only decode.c and common.c. */
dc_vec dc_nodes;
dc_vec dc_edges;
dc_vec dc_ccnodes;
dc_vec dc_threads;
dc_dict *dc_dicts[DC_MAX_DICTS];
_Atomic uint32_t dc_n_dicts;

/* ------------------------------------------------------------ errors */
static const char *prog = "dacce-decode";
static const char *cur_file;
static unsigned long cur_line;

__attribute__((format(printf, 2, 3), noreturn)) static void fail_at(unsigned long line,
                                                                     const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "%s: %s:%lu: ", prog, cur_file, line);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(1);
}
#define fail(...) fail_at(cur_line, __VA_ARGS__)

/* Whole file into memory (works for pipes too); NULL with errno on failure. */
static char *read_all(FILE *f, size_t *len) {
  size_t cap = 1 << 16, n = 0;
  char *buf = malloc(cap + 1);
  if (!buf) return NULL;
  for (;;) {
    if (n == cap) {
      char *nb = cap > SIZE_MAX / 4 ? NULL : realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
      cap *= 2;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    n += r;
    if (r == 0) {
      if (ferror(f)) {
        free(buf);
        if (!errno) errno = EIO;
        return NULL;
      }
      break;
    }
  }
  buf[n] = 0;
  *len = n;
  return buf;
}

/* Iterate lines in place: returns the next line (NUL-terminated, without its
 * '\n' or '\r\n'), or NULL at the end. */
static char *next_line(char **cursor, char *end) {
  char *p = *cursor;
  if (p >= end) return NULL;
  char *nl = memchr(p, '\n', (size_t)(end - p));
  char *e = nl ? nl : end;
  *cursor = nl ? nl + 1 : end;
  *e = 0;
  if (e > p && e[-1] == '\r') e[-1] = 0;
  return p;
}

/* Split at blanks: up to max tokens; returns the number found (max + 1 when
 * there are more). */
static int split(char *s, char **tok, int max) {
  int n = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t') s++;
    if (!*s) return n;
    if (n == max) return max + 1;
    tok[n++] = s;
    while (*s && *s != ' ' && *s != '\t') s++;
    if (*s) *s++ = 0;
  }
}

static int parse_u64(const char *s, int base, uint64_t *v) {
  if (!s || !*s || *s == '-' || *s == '+' || *s == ' ') return -1;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, base);
  if (errno || *end) return -1;
  *v = x;
  return 0;
}

static uint64_t num(const char *s, const char *what) {
  uint64_t v;
  if (parse_u64(s, 10, &v)) fail("bad %s '%s'", what, s);
  return v;
}
static uint32_t num32(const char *s, const char *what) {
  uint64_t v = num(s, what);
  if (v > UINT32_MAX) fail("%s %s out of range", what, s);
  return (uint32_t)v;
}
static uintptr_t addr(const char *s, const char *what) {
  uint64_t v;
  if (parse_u64(s, 16, &v)) fail("bad %s '%s'", what, s);
  return (uintptr_t)v;
}

/* ------------------------------------------------------------ loading the dump */
typedef struct module_rec {
  uintptr_t bias, lo, hi;
  char *path;
  unsigned long line;
} module_rec;
static module_rec *modules;
static size_t n_modules;

static uint32_t vec_n(dc_vec *v) { return atomic_load_explicit(&v->n, memory_order_relaxed); }
static void *vec_push(dc_vec *v) {
  uint32_t n = vec_n(v);
  if (n >= v->cap) fail("more records than counted"); /* cannot happen */
  atomic_store_explicit(&v->n, n + 1, memory_order_relaxed);
  return dc_vec_at(v, n);
}

/* per thread serial: a pc inside its pthread_create call (0: not in the dump) */
static uintptr_t *created_pcs;

/* the dictionary whose code/numcc records are being read */
static dc_dict *cur_dict;
static unsigned long cur_dict_line;
static uint32_t cur_last_code, cur_n_numcc;

static const dc_dict *sort_dict;
static int cmp_code(const void *a, const void *b) {
  uint64_t x = sort_dict->code[*(const uint32_t *)a], y = sort_dict->code[*(const uint32_t *)b];
  return x < y ? -1 : x > y;
}

/* All records of the dictionary read: build the decoding index (each node's
 * encoded incoming edges sorted by code, as reencode.c does) and check that
 * the codes cut [0, numCC(n)) into disjoint ranges, which decoding relies on. */
static void finish_dict(void) {
  dc_dict *d = cur_dict;
  if (!d) return;
  cur_dict = NULL;
  unsigned long L = cur_dict_line;
  if (cur_n_numcc != d->n_nodes)
    fail_at(L, "dict %u: %u numcc records for %u nodes", d->ts, cur_n_numcc, d->n_nodes);
  for (uint32_t e = 1; e < d->n_edges; e++)
    if (d->code[e] != DC_UNENCODED) {
      d->in_off[dc_edge_at(e)->callee + 1]++;
      d->n_encoded++;
    }
  for (uint32_t n = 0; n < d->n_nodes; n++) d->in_off[n + 1] += d->in_off[n];
  uint32_t *fill = malloc(((size_t)d->n_nodes + 1) * sizeof *fill);
  if (!fill) fail_at(L, "out of memory");
  memcpy(fill, d->in_off, ((size_t)d->n_nodes + 1) * sizeof *fill);
  for (uint32_t e = 1; e < d->n_edges; e++)
    if (d->code[e] != DC_UNENCODED) d->in_edges[fill[dc_edge_at(e)->callee]++] = e;
  free(fill);
  sort_dict = d;
  uint64_t max_numcc = 1;
  for (uint32_t n = 0; n < d->n_nodes; n++) {
    uint32_t *in = d->in_edges + d->in_off[n], k = d->in_off[n + 1] - d->in_off[n];
    qsort(in, k, sizeof *in, cmp_code);
    uint64_t end = 0;
    for (uint32_t j = 0; j < k; j++) {
      uint64_t c = d->code[in[j]], w = d->numcc[dc_edge_at(in[j])->caller];
      if (c < end)
        fail_at(L, "dict %u: codes of edges %u and %u into node %u overlap", d->ts, in[j - 1],
                in[j], n);
      if (w > UINT64_MAX - c) fail_at(L, "dict %u: code of edge %u overflows", d->ts, in[j]);
      end = c + w;
    }
    if (end > d->numcc[n])
      fail_at(L, "dict %u: node %u has numcc %llu but its incoming codes reach %llu", d->ts, n,
              (unsigned long long)d->numcc[n], (unsigned long long)end);
    if (d->numcc[n] > max_numcc) max_numcc = d->numcc[n];
  }
  if (d->max_id == UINT64_MAX || d->max_id < max_numcc - 1)
    fail_at(L, "dict %u: max_id %llu below the largest numcc %llu", d->ts,
            (unsigned long long)d->max_id, (unsigned long long)max_numcc);
}

/* Counts of each record kind, to size the tables before filling them. */
static void count_records(const char *buf, size_t len, uint32_t *nodes, uint32_t *edges,
                          uint32_t *ccs, uint32_t *threads) {
  const char *p = buf, *end = buf + len;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == '\t')) p++;
#define IS(kw) (!strncmp(p, kw, sizeof kw - 1) && (p[sizeof kw - 1] == ' ' || p[sizeof kw - 1] == '\t'))
    if (IS("node")) (*nodes)++;
    else if (IS("edge")) (*edges)++;
    else if (IS("cc")) (*ccs)++;
    else if (IS("thread")) (*threads)++;
#undef IS
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    p = nl ? nl + 1 : end;
  }
}

static void load_dump(char *buf, size_t len, const char *path) {
  cur_file = strcmp(path, "-") ? path : "<stdin>";
  uint32_t cn = 0, ce = 0, cc = 0, ct = 0;
  count_records(buf, len, &cn, &ce, &cc, &ct);
  /* as dc_init sets them up: node 0 is ROOT, edge 0 and ccnode 0 are "none" */
  dc_vec_init(&dc_nodes, sizeof(dc_node), (size_t)cn + 2);
  dc_vec_init(&dc_edges, sizeof(dc_edge), (size_t)ce + 2);
  dc_vec_init(&dc_ccnodes, sizeof(dc_ccnode), (size_t)cc + 2);
  dc_vec_init(&dc_threads, sizeof(dc_thread_rec), (size_t)ct + 2);
  atomic_store(&dc_nodes.n, 1);
  atomic_store(&dc_edges.n, 1);
  atomic_store(&dc_ccnodes.n, 1);
  atomic_store(&dc_n_dicts, 0);
  created_pcs = calloc((size_t)ct + 2, sizeof *created_pcs);
  if (!created_pcs) fail_at(1, "out of memory");

  char *cursor = buf, *end = buf + len, *line;
  int seen_end = 0;
  cur_line = 0;
  while ((line = next_line(&cursor, end))) {
    cur_line++;
    char *t[9];
    if (cur_line == 1) {
      int n = split(line, t, 2);
      if (n < 1 || strcmp(t[0], "dacce-dump")) fail("not a dacce dump (no 'dacce-dump 1' header)");
      if (n != 2 || strcmp(t[1], "1")) fail("unsupported dump version '%s'", n >= 2 ? t[1] : "");
      continue;
    }
    char *rest = line;
    while (*rest == ' ' || *rest == '\t') rest++;
    if (seen_end) {
      if (*rest) fail("data after the 'end' record");
      continue;
    }
    if (!*rest) fail("empty line");
    if (!strncmp(rest, "module", 6) && (rest[6] == ' ' || rest[6] == '\t')) {
      /* module <bias> <lo> <hi> <path>: the path is the rest of the line */
      char *p = rest + 6, *f[3];
      for (int i = 0; i < 3; i++) {
        while (*p == ' ' || *p == '\t') p++;
        f[i] = p;
        while (*p && *p != ' ' && *p != '\t') p++;
        if (!*p) fail("'module' record: expected <bias> <lo> <hi> <path>");
        *p++ = 0;
      }
      while (*p == ' ' || *p == '\t') p++;
      if (!*p) fail("'module' record without a path");
      module_rec m = {addr(f[0], "module bias"), addr(f[1], "module start"),
                      addr(f[2], "module end"), strdup(p), cur_line};
      if (m.lo >= m.hi) fail("module %s: empty address range", p);
      module_rec *nm = realloc(modules, (n_modules + 1) * sizeof *nm);
      if (!nm || !m.path) fail("out of memory");
      modules = nm;
      modules[n_modules++] = m;
      continue;
    }
    int n = split(rest, t, 8);
    const char *kw = t[0];
#define FIELDS(k)                                                                 \
  do {                                                                            \
    if (n != (k)) fail("'%s' record: expected %d fields, found %s%d", kw, (k) - 1,        \
                       n > 8 ? "more than " : "", (n > 8 ? 8 : n) - 1);                    \
  } while (0)
    if (strcmp(kw, "code") && strcmp(kw, "numcc")) finish_dict();
    if (!strcmp(kw, "node")) {
      FIELDS(3);
      uint32_t i = num32(t[1], "node index");
      if (i != vec_n(&dc_nodes)) fail("node %u out of sequence (expected %u)", i, vec_n(&dc_nodes));
      ((dc_node *)vec_push(&dc_nodes))->pc = addr(t[2], "node pc");
    } else if (!strcmp(kw, "edge")) {
      FIELDS(5);
      uint32_t i = num32(t[1], "edge index"), nN = vec_n(&dc_nodes);
      if (i != vec_n(&dc_edges)) fail("edge %u out of sequence (expected %u)", i, vec_n(&dc_edges));
      uint32_t caller = num32(t[2], "caller node"), callee = num32(t[4], "callee node");
      if (caller >= nN) fail("edge %u: unknown caller node %u", i, caller);
      if (callee >= nN || callee == DC_ROOT) fail("edge %u: bad callee node %u", i, callee);
      dc_edge *e = vec_push(&dc_edges);
      e->cs = addr(t[3], "call site");
      e->caller = caller;
      e->callee = callee;
      e->callee_pc = dc_node_at(callee)->pc;
      atomic_store_explicit(&e->hits, 0, memory_order_relaxed);
    } else if (!strcmp(kw, "cc")) {
      FIELDS(6);
      uint32_t i = num32(t[1], "ccStack node index");
      if (i != vec_n(&dc_ccnodes))
        fail("cc %u out of sequence (expected %u)", i, vec_n(&dc_ccnodes));
      uint64_t id = num(t[2], "id");
      uint32_t edge = num32(t[3], "edge"), count = num32(t[4], "count"), parent = num32(t[5], "parent");
      if (edge == 0 || edge >= vec_n(&dc_edges)) fail("cc %u: unknown edge %u", i, edge);
      if (count == 0) fail("cc %u: count 0", i);
      if (parent >= i) fail("cc %u: parent %u is not an older ccStack node", i, parent);
      dc_ccnode *c = vec_push(&dc_ccnodes);
      c->id = id;
      c->edge = edge;
      c->count = count;
      c->parent = parent;
      c->depth = (parent ? dc_cc_at(parent)->depth : 0) + count;
    } else if (!strcmp(kw, "dict")) {
      FIELDS(5);
      uint32_t ts = num32(t[1], "timestamp"), n_dicts = atomic_load(&dc_n_dicts);
      if (ts != n_dicts) fail("dict %u out of sequence (expected %u)", ts, n_dicts);
      if (ts >= DC_MAX_DICTS) fail("more than %u dictionaries", DC_MAX_DICTS);
      uint64_t max_id = num(t[2], "max_id");
      uint32_t ne = num32(t[3], "edge count"), nn = num32(t[4], "node count");
      if (ne == 0 || ne > vec_n(&dc_edges))
        fail("dict %u: edge count %u, but %u edges are known", ts, ne, vec_n(&dc_edges));
      if (nn == 0 || nn > vec_n(&dc_nodes))
        fail("dict %u: node count %u, but %u nodes are known", ts, nn, vec_n(&dc_nodes));
      dc_dict *d = calloc(1, sizeof *d);
      if (d) {
        d->code = malloc((size_t)ne * sizeof *d->code);
        d->numcc = calloc(nn, sizeof *d->numcc);
        d->in_off = calloc((size_t)nn + 1, sizeof *d->in_off);
        d->in_edges = calloc(ne, sizeof *d->in_edges);
      }
      if (!d || !d->code || !d->numcc || !d->in_off || !d->in_edges) fail("out of memory");
      for (uint32_t e = 0; e < ne; e++) d->code[e] = DC_UNENCODED;
      d->ts = ts;
      d->max_id = max_id;
      d->n_edges = ne;
      d->n_nodes = nn;
      dc_dicts[ts] = d;
      atomic_store(&dc_n_dicts, ts + 1);
      cur_dict = d;
      cur_dict_line = cur_line;
      cur_last_code = 0;
      cur_n_numcc = 0;
    } else if (!strcmp(kw, "code")) {
      FIELDS(3);
      dc_dict *d = cur_dict;
      if (!d) fail("'code' record outside a dict");
      uint32_t e = num32(t[1], "edge");
      uint64_t c = num(t[2], "code");
      if (cur_n_numcc) fail("dict %u: 'code' record after its numcc records", d->ts);
      if (e == 0 || e >= d->n_edges) fail("dict %u: code for edge %u beyond its %u edges", d->ts, e, d->n_edges);
      if (e <= cur_last_code) fail("dict %u: code for edge %u out of order", d->ts, e);
      if (c == DC_UNENCODED) fail("dict %u: code of edge %u is the 'unencoded' marker", d->ts, e);
      const dc_edge *ed = dc_edge_at(e);
      if (ed->caller >= d->n_nodes || ed->callee >= d->n_nodes)
        fail("dict %u: encoded edge %u joins nodes beyond its %u nodes", d->ts, e, d->n_nodes);
      d->code[e] = c;
      cur_last_code = e;
    } else if (!strcmp(kw, "numcc")) {
      FIELDS(3);
      dc_dict *d = cur_dict;
      if (!d) fail("'numcc' record outside a dict");
      uint32_t node = num32(t[1], "node");
      if (node != cur_n_numcc || node >= d->n_nodes)
        fail("dict %u: numcc for node %u out of sequence", d->ts, node);
      d->numcc[node] = num(t[2], "numcc");
      if (d->numcc[node] == 0) fail("dict %u: numcc of node %u is 0", d->ts, node);
      cur_n_numcc++;
    } else if (!strcmp(kw, "thread")) {
      if (n != 2 && n != 7 && n != 8)
        fail("'thread' record: expected 1, 6 or 7 fields, found %d", n - 1);
      uint32_t s = num32(t[1], "thread serial");
      if (s != vec_n(&dc_threads)) fail("thread %u out of sequence (expected %u)", s, vec_n(&dc_threads));
      dc_thread_rec r;
      memset(&r, 0, sizeof r);
      r.parent = UINT32_MAX;
      if (n >= 7) {
        dacce_ctx *c = &r.created_at;
        c->ts = num32(t[2], "timestamp");
        c->node = num32(t[3], "node");
        c->id = num(t[4], "id");
        c->cc = num32(t[5], "ccStack node");
        c->thread = num32(t[6], "creator thread");
        if (c->ts >= atomic_load(&dc_n_dicts)) fail("thread %u: unknown timestamp %u", s, c->ts);
        if (c->node >= vec_n(&dc_nodes)) fail("thread %u: unknown node %u", s, c->node);
        if (c->cc >= vec_n(&dc_ccnodes)) fail("thread %u: unknown ccStack node %u", s, c->cc);
        if (c->thread >= s) fail("thread %u: creator T%u is not an older thread", s, c->thread);
        r.parent = c->thread;
        r.has_creator = 1;
        if (n == 8) created_pcs[s] = addr(t[7], "creation pc");
      }
      *(dc_thread_rec *)vec_push(&dc_threads) = r;
    } else if (!strcmp(kw, "end")) {
      FIELDS(1);
      seen_end = 1;
    } else {
      fail("unknown record '%s'", kw);
    }
#undef FIELDS
  }
  if (cur_line == 0) fail_at(1, "empty file (not a dacce dump)");
  if (!seen_end) fail("truncated dump: no 'end' record");
  if (atomic_load(&dc_n_dicts) == 0) fail("no dictionary in the dump");
}

/* ------------------------------------------------------------ symbols */
static dc_sym *sym;

/* pc -> symbolised location, cached (contexts share most of their frames).
 * Entries are stable pointers. */
typedef struct cache_ent {
  uintptr_t pc;
  dc_symloc *loc;
} cache_ent;
static cache_ent *cache;
static size_t cache_n, cache_cap;

static size_t pc_slot(uintptr_t pc, size_t cap) {
  uint64_t h = (uint64_t)pc * 0x9e3779b97f4a7c15ull;
  return (size_t)(h >> 17) & (cap - 1);
}

static const dc_symloc *lookup(uintptr_t pc) {
  if ((cache_n + 1) * 2 > cache_cap) {
    size_t cap = cache_cap ? cache_cap * 2 : 1024;
    cache_ent *n = calloc(cap, sizeof *n);
    if (!n) {
      fprintf(stderr, "%s: out of memory\n", prog);
      exit(1);
    }
    for (size_t i = 0; i < cache_cap; i++) {
      if (!cache[i].loc) continue;
      size_t j = pc_slot(cache[i].pc, cap);
      while (n[j].loc) j = (j + 1) & (cap - 1);
      n[j] = cache[i];
    }
    free(cache);
    cache = n;
    cache_cap = cap;
  }
  size_t j = pc_slot(pc, cache_cap);
  for (; cache[j].loc; j = (j + 1) & (cache_cap - 1))
    if (cache[j].pc == pc) return cache[j].loc;
  dc_symloc *l = malloc(sizeof *l);
  if (!l) {
    fprintf(stderr, "%s: out of memory\n", prog);
    exit(1);
  }
  dc_sym_lookup(sym, pc, l); /* with sym == NULL: just the pc */
  cache[j].pc = pc;
  cache[j].loc = l;
  cache_n++;
  return l;
}

static const char *base_name(const char *p) {
  const char *b = strrchr(p, '/');
  return b ? b + 1 : p;
}

static void print_frame(int *k, const char *func, const char *file, int line, int col,
                        const dc_symloc *where, const char *mark) {
  printf("    #%d %s", (*k)++, func ? func : "<unknown>");
  if (file) {
    printf(" %s", file);
    if (line) {
      printf(":%d", line);
      if (col) printf(":%d", col);
    }
  }
  if (where->module)
    printf(" (%s+%#lx)", base_name(where->module), (unsigned long)where->module_offset);
  else
    printf(" (%#lx)", (unsigned long)where->pc);
  if (mark) printf(" %s", mark);
  putchar('\n');
}

/* The position of l within its physical function (the outermost source
 * frame; without DWARF, whatever the line table gave). */
static void outer_pos(const dc_symloc *l, const char **file, int *line, int *col) {
  if (l->n_frames > 0) {
    const dc_symframe *f = &l->frames[l->n_frames - 1];
    *file = f->file, *line = f->line, *col = f->column;
  } else {
    *file = l->file, *line = l->line, *col = l->column;
  }
}

/* Is the call site c inside the function of f?  Names and modules are
 * interned by the symbolizer, so pointers compare.  Unknown means yes. */
static int same_function(const dc_symloc *f, const dc_symloc *c) {
  if (f->module != c->module) return 0;
  if (f->function && c->function && f->function != c->function) return 0;
  return 1;
}

/* "thread T was created by T' at:" for each hop from thread `from` up to
 * thread `to` (UINT32_MAX: up to the first thread); creators whose context
 * had no frames get a placeholder.  Returns the thread that `to` created
 * (UINT32_MAX if the chain does not reach `to`). */
static uint32_t print_creation(uint32_t from, uint32_t to) {
  uint32_t t = from, nT = vec_n(&dc_threads);
  for (uint32_t hops = 0; t < nT && hops <= nT; hops++) {
    const dc_thread_rec *r = dc_vec_at(&dc_threads, t);
    if (!r->has_creator) break;
    uint32_t p = r->created_at.thread;
    printf("  thread T%u was created by T%u at:\n", t, p);
    if (p == to) return t;
    printf("    <no instrumented frames>\n");
    t = p;
  }
  return UINT32_MAX;
}

static dacce_frame *frames;
static int frames_cap;

/* Returns 0, or the decoder's error. */
static int print_context(const char *tag, const dacce_ctx *c) {
  printf("context %s (thread T%u):\n", tag, c->thread);
  int n;
  for (;;) {
    n = dacce_decode(c, frames, frames_cap, 1);
    if (n < frames_cap || frames_cap >= (1 << 24)) break;
    dacce_frame *nf = realloc(frames, (size_t)frames_cap * 2 * sizeof *nf);
    if (!nf) break;
    frames = nf;
    frames_cap *= 2;
  }
  if (n < 0) {
    printf("    <cannot decode: error %d>\n\n", n);
    return n;
  }
  if (n == 0) printf("    <no instrumented frames>\n");
  int k = 0;
  for (int i = 0; i < n; i++) {
    const dacce_frame *fr = &frames[i], *in = i ? &frames[i - 1] : NULL;
    /* at: a pc inside the call instruction fr's function was executing, or 0 */
    uintptr_t at = 0;
    if (in && fr->thread != in->thread) {
      uint32_t child = print_creation(in->thread, fr->thread);
      if (child < vec_n(&dc_threads)) at = created_pcs[child];
    } else if (in && !(in->flags & DACCE_FRAME_THREAD_ROOT) && in->callsite) {
      at = in->callsite - 1;
    }
    const dc_symloc *fl = lookup(fr->function);
    const char *file;
    int line, col;
    if (at) {
      const dc_symloc *cl = lookup(at);
      if (same_function(fl, cl)) {
        for (int j = 0; j + 1 < cl->n_frames; j++)
          print_frame(&k, cl->frames[j].function, cl->frames[j].file, cl->frames[j].line,
                      cl->frames[j].column, cl, "[inlined]");
        outer_pos(cl, &file, &line, &col);
        print_frame(&k, fl->function ? fl->function : cl->function, file, line, col, cl, NULL);
        continue;
      }
      /* called from code between the two that the instrumentation missed */
      for (int j = 0; j + 1 < cl->n_frames; j++)
        print_frame(&k, cl->frames[j].function, cl->frames[j].file, cl->frames[j].line,
                    cl->frames[j].column, cl, "[uninstrumented, inlined]");
      outer_pos(cl, &file, &line, &col);
      print_frame(&k, cl->function, file, line, col, cl, "[uninstrumented]");
    }
    if (fl->decl_file)
      file = fl->decl_file, line = fl->decl_line, col = 0;
    else
      outer_pos(fl, &file, &line, &col);
    print_frame(&k, fl->function, file, line, col, fl, NULL);
  }
  if (n == frames_cap)
    printf("    ... (truncated at %d frames)\n", n);
  else
    print_creation(n ? frames[n - 1].thread : c->thread, UINT32_MAX);
  putchar('\n');
  return 0;
}

/* "ctx TAG ts node id cc thread"; the tag is everything between "ctx" and
 * the five numbers (dacce_log does not quote it). */
static int parse_ctx(char *line, const char **tag, dacce_ctx *c) {
  char *f[5];
  char *e = line + strlen(line);
  while (e > line && (e[-1] == ' ' || e[-1] == '\t')) *--e = 0;
  for (int i = 4; i >= 0; i--) {
    char *s = e;
    while (s > line && s[-1] != ' ' && s[-1] != '\t') s--;
    if (s == e || s == line) return -1;
    f[i] = s;
    e = s;
    while (e > line && (e[-1] == ' ' || e[-1] == '\t')) *--e = 0;
  }
  char *p = line;
  while (*p == ' ' || *p == '\t') p++;
  if (strncmp(p, "ctx", 3) || (p[3] != ' ' && p[3] != '\t')) return -1;
  p += 3;
  while (*p == ' ' || *p == '\t') p++;
  if (!*p) return -1;
  *tag = p;
  memset(c, 0, sizeof *c);
  c->ts = num32(f[0], "timestamp");
  c->node = num32(f[1], "node");
  c->id = num(f[2], "id");
  c->cc = num32(f[3], "ccStack node");
  c->thread = num32(f[4], "thread");
  return 0;
}

static FILE *open_or_die(const char *path) {
  if (!strcmp(path, "-")) return stdin;
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
    exit(2);
  }
  return f;
}

static char *slurp(const char *path, size_t *len) {
  FILE *f = open_or_die(path);
  char *buf = read_all(f, len);
  if (!buf) {
    fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path, strerror(errno));
    exit(2);
  }
  if (f != stdin) fclose(f);
  return buf;
}

int main(int argc, char **argv) {
  if (argc >= 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
    printf("usage: %s DUMP [LOG]\n"
           "Decode and symbolise the contexts in LOG (default: standard input), written by\n"
           "dacce_log() under DACCE_OPTIONS=log_contexts=LOG, with the dictionaries in DUMP,\n"
           "written at exit under DACCE_OPTIONS=dump=DUMP.\n", prog);
    return 0;
  }
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s DUMP [LOG]\n", prog);
    return 2;
  }
  const char *dump_path = argv[1], *log_path = argc == 3 ? argv[2] : "-";
  if (!strcmp(dump_path, "-") && !strcmp(log_path, "-")) {
    fprintf(stderr, "%s: DUMP and LOG cannot both be standard input\n", prog);
    return 2;
  }
  size_t dump_len, log_len;
  char *dump = slurp(dump_path, &dump_len);
  FILE *logf = open_or_die(log_path); /* usage errors before the real work */
  load_dump(dump, dump_len, dump_path);
  free(dump);

  sym = dc_sym_open();
  if (!sym) fprintf(stderr, "%s: cannot initialise libdwfl; printing addresses only\n", prog);
  for (size_t i = 0; sym && i < n_modules; i++) {
    const module_rec *m = &modules[i];
    int r = dc_sym_add_module(sym, m->path, m->bias, m->lo, m->hi);
    if (r < 0)
      fprintf(stderr, "%s: warning: %s:%lu: module %s overlaps another one; ignored\n", prog,
              cur_file, m->line, m->path);
    else if (r > 0 && strchr(m->path, '/')) /* not the vdso: a file that went missing */
      fprintf(stderr, "%s: warning: cannot read %s (or it is not the file that ran); its "
              "frames show module+offset only\n", prog, m->path);
  }

  char *log = read_all(logf, &log_len);
  if (!log) {
    fprintf(stderr, "%s: cannot read '%s': %s\n", prog, log_path, strerror(errno));
    return 2;
  }
  if (logf != stdin) fclose(logf);
  frames_cap = 4096;
  frames = malloc((size_t)frames_cap * sizeof *frames);
  if (!frames) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return 1;
  }

  cur_file = !strcmp(log_path, "-") ? "<stdin>" : log_path;
  cur_line = 0;
  int failed = 0;
  char *cursor = log, *line;
  while ((line = next_line(&cursor, log + log_len))) {
    cur_line++;
    const char *p = line;
    while (*p == ' ' || *p == '\t') p++;
    if (!*p) continue;
    const char *tag;
    dacce_ctx c;
    if (parse_ctx(line, &tag, &c)) fail("not a context line (expected 'ctx TAG ts node id cc thread')");
    if (print_context(tag, &c)) failed = 1;
  }
  fflush(stdout);
  free(log);
  dc_sym_close(sym);
  return failed ? 1 : 0;
}
