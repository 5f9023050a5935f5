/* symbolize.c: the symbolizer of symbolize.h, on elfutils libdwfl.
 *
 * Lookup of one pc:
 *  1. the module: dwfl_addrmodule (offline, modules whose file could not be
 *     opened are kept in our own table, so they still give module+offset);
 *  2. the ELF symbol containing pc (dwfl_module_addrinfo: .symtab when the
 *     file or its separate debug file has one, else .dynsym);
 *  3. DWARF: the CU containing pc, and its line table for pc's
 *     file:line:column.  The CU: libdwfl finds it through .debug_aranges and
 *     attributes an address no arange covers to the CU of the arange below
 *     it.  A program
 *     mixing objects with aranges (gcc) and without (clang emits none by
 *     default; here: clang-compiled code linked with the gcc-built static
 *     runtime) thus gets clang's code attributed to some gcc CU, with wrong
 *     lines.  So the CU libdwfl names is checked with dwarf_haspc, and when
 *     it does not contain pc a per-module table of every CU's address
 *     ranges (built once, from the CU DIEs) is searched instead; the line is
 *     then looked up in that CU (dwarf_getsrc_die), not by dwfl_module_getsrc
 *     which would redo the wrong search;
 *  4. the inlined frames, from the scopes containing pc, as eu-addr2line -i
 *     finds them: dwarf_getscopes() finds the innermost scope DIE; from it
 *     dwarf_getscopes_die() gives the physical nesting (dwarf_getscopes
 *     itself continues into abstract origins), in which every
 *     DW_TAG_inlined_subroutine up to the first DW_TAG_subprogram is one
 *     inlined frame.  An inlined frame's caller position is its
 *     DW_AT_call_file/line/column.
 * Names: DW_AT_linkage_name demangled, else DW_AT_name (both through
 * abstract origins / specifications), else the ELF symbol, demangled.
 * Relative file names are made absolute with the CU's DW_AT_comp_dir, and
 * declaration files are resolved here rather than by dwarf_decl_file (see
 * decl_position), to cope with DWARF 5 as elfutils 0.188 reads it.
 */
#define _GNU_SOURCE
#include "symbolize.h"

#include <dlfcn.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <link.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sym_module {
  char *path;
  uintptr_t bias, lo, hi;
  Dwfl_Module *mod; /* NULL: libdwfl could not open the file */
} sym_module;

/* Per-module state, kept in the module's libdwfl userdata slot. */
typedef struct cu_range {
  Dwarf_Addr lo, hi; /* DWARF addresses (run-time address - dwarf bias) */
  Dwarf_Off off;     /* the CU DIE */
} cu_range;
typedef struct mod_info {
  int built;
  size_t n;
  cu_range *r;
} mod_info;

struct dc_sym {
  Dwfl *dwfl;
  Dwfl_Callbacks cb; /* must outlive dwfl */
  char *debuginfo_path;
  int self;
  unsigned long long self_adds, self_subs; /* dl_iterate_phdr generation at the last report */
  pthread_mutex_t lock;
  sym_module *mods;
  size_t n_mods, cap_mods;
  /* interned strings: open addressing, power-of-two capacity */
  char **strs;
  size_t n_strs, cap_strs;
};

/* ------------------------------------------------------------ strings */
static uint64_t str_hash(const char *s) {
  uint64_t h = 1469598103934665603ull; /* FNV-1a */
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static int intern_grow(dc_sym *s) {
  size_t cap = s->cap_strs ? s->cap_strs * 2 : 256;
  char **n = calloc(cap, sizeof *n);
  if (!n) return -1;
  for (size_t i = 0; i < s->cap_strs; i++) {
    char *str = s->strs[i];
    if (!str) continue;
    size_t j = str_hash(str) & (cap - 1);
    while (n[j]) j = (j + 1) & (cap - 1);
    n[j] = str;
  }
  free(s->strs);
  s->strs = n;
  s->cap_strs = cap;
  return 0;
}

/* A copy of str owned by s (NULL for NULL or on allocation failure). */
static const char *intern(dc_sym *s, const char *str) {
  if (!str) return NULL;
  if ((s->n_strs + 1) * 2 > s->cap_strs && intern_grow(s)) return NULL;
  size_t j = str_hash(str) & (s->cap_strs - 1);
  for (; s->strs[j]; j = (j + 1) & (s->cap_strs - 1))
    if (!strcmp(s->strs[j], str)) return s->strs[j];
  char *c = strdup(str);
  if (!c) return NULL;
  s->strs[j] = c;
  s->n_strs++;
  return c;
}

/* ------------------------------------------------------------ demangling */
typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static cxa_demangle_fn demangler;
static pthread_once_t demangler_once = PTHREAD_ONCE_INIT;

static void find_demangler(void) {
  void *f = dlsym(RTLD_DEFAULT, "__cxa_demangle");
  if (!f) {
    /* not linked into this process: the C++ runtime, if installed */
    void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
    if (h) f = dlsym(h, "__cxa_demangle");
  }
  demangler = (cxa_demangle_fn)f;
}

char *dc_sym_demangle(const char *name) {
  if (!name || name[0] != '_' || name[1] != 'Z') return NULL;
  pthread_once(&demangler_once, find_demangler);
  if (!demangler) return NULL;
  int status = -1;
  char *r = demangler(name, NULL, NULL, &status);
  if (status != 0) {
    free(r);
    return NULL;
  }
  return r;
}

/* name, demangled when possible, interned */
static const char *intern_name(dc_sym *s, const char *name) {
  if (!name || !*name) return NULL;
  char *d = dc_sym_demangle(name);
  const char *r = intern(s, d ? d : name);
  free(d);
  return r;
}

/* ------------------------------------------------------------ open / close */
static dc_sym *sym_new(int self) {
  dc_sym *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->self = self;
  s->cb.find_elf = self ? dwfl_linux_proc_find_elf : dwfl_build_id_find_elf;
  s->cb.find_debuginfo = dwfl_standard_find_debuginfo;
  s->cb.section_address = dwfl_offline_section_address;
  s->cb.debuginfo_path = &s->debuginfo_path; /* NULL: the default path */
  pthread_mutex_init(&s->lock, NULL);
  s->dwfl = dwfl_begin(&s->cb);
  if (!s->dwfl) {
    pthread_mutex_destroy(&s->lock);
    free(s);
    return NULL;
  }
  return s;
}

dc_sym *dc_sym_open(void) {
  dc_sym *s = sym_new(0);
  if (!s) return NULL;
  dwfl_report_begin(s->dwfl);
  dwfl_report_end(s->dwfl, NULL, NULL);
  return s;
}

static int phdr_gen(struct dl_phdr_info *info, size_t size, void *arg) {
  unsigned long long *g = arg;
  if (size < offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs) return 1;
  g[0] = info->dlpi_adds;
  g[1] = info->dlpi_subs;
  return 1; /* the counters are the same in every entry: stop */
}

static int module_removed(Dwfl_Module *mod, void *userdata, const char *name, Dwarf_Addr base,
                          void *arg) {
  mod_info *mi = userdata;
  if (mi) {
    free(mi->r);
    free(mi);
  }
  return 0;
}

/* (Re-)report the process's mappings; lock held (or s not yet shared). */
static int self_report(dc_sym *s) {
  unsigned long long g[2] = {0, 0};
  dl_iterate_phdr(phdr_gen, g);
  dwfl_report_begin(s->dwfl);
  int r = dwfl_linux_proc_report(s->dwfl, getpid());
  if (dwfl_report_end(s->dwfl, module_removed, NULL) != 0) r = -1;
  s->self_adds = g[0];
  s->self_subs = g[1];
  return r;
}

dc_sym *dc_sym_open_self(void) {
  dc_sym *s = sym_new(1);
  if (!s) return NULL;
  if (self_report(s) != 0) {
    dc_sym_close(s);
    return NULL;
  }
  return s;
}

static int free_mod_info(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr start,
                         void *arg) {
  mod_info *mi = *userdata;
  if (mi) {
    free(mi->r);
    free(mi);
    *userdata = NULL;
  }
  return DWARF_CB_OK;
}

void dc_sym_close(dc_sym *s) {
  if (!s) return;
  dwfl_getmodules(s->dwfl, free_mod_info, NULL, 0);
  dwfl_end(s->dwfl);
  for (size_t i = 0; i < s->n_mods; i++) free(s->mods[i].path);
  free(s->mods);
  for (size_t i = 0; i < s->cap_strs; i++) free(s->strs[i]);
  free(s->strs);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

int dc_sym_add_module(dc_sym *s, const char *path, uintptr_t load_bias, uintptr_t lo,
                      uintptr_t hi) {
  if (!s || s->self || !path || !*path || lo >= hi) return -1;
  pthread_mutex_lock(&s->lock);
  int r = -1;
  for (size_t i = 0; i < s->n_mods; i++)
    if (lo < s->mods[i].hi && s->mods[i].lo < hi) goto out; /* overlap */
  if (s->n_mods == s->cap_mods) {
    size_t cap = s->cap_mods ? s->cap_mods * 2 : 16;
    sym_module *m = realloc(s->mods, cap * sizeof *m);
    if (!m) goto out;
    s->mods = m;
    s->cap_mods = cap;
  }
  sym_module *m = &s->mods[s->n_mods];
  m->path = strdup(path);
  if (!m->path) goto out;
  m->bias = load_bias;
  m->lo = lo;
  m->hi = hi;
  m->mod = NULL;
  s->n_mods++;
  /* ET_DYN: placed at the bias; ET_EXEC: at its own addresses (bias 0). */
  dwfl_report_begin_add(s->dwfl);
  Dwfl_Module *mod = dwfl_report_elf(s->dwfl, path, path, -1, load_bias, false);
  dwfl_report_end(s->dwfl, NULL, NULL);
  if (mod) {
    /* a file that does not cover what was mapped is not the one that ran */
    Dwarf_Addr start = 0, end = 0;
    dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
    if (start <= lo + 4096 && end + 4096 >= hi) m->mod = mod;
  }
  r = m->mod ? 0 : 1;
out:
  pthread_mutex_unlock(&s->lock);
  return r;
}

/* ------------------------------------------------------------ DWARF */
static const char *die_attr_string(Dwarf_Die *die, unsigned int at) {
  Dwarf_Attribute a;
  return dwarf_formstring(dwarf_attr_integrate(die, at, &a));
}

/* The name of a C++ function that has no linkage name (gcc gives none to
 * a function of internal linkage: static, or in an anonymous namespace),
 * qualified by the namespaces and classes around its declaration, as a
 * demangled linkage name is: "leveldb::(anonymous namespace)::PosixEnv::
 * BGThread", not "BGThread" (which a suppression of "leveldb::" missed).
 * NULL when nothing encloses it, or not C++ (a C CU can be large, and
 * finding a DIE's parents walks it). */
static const char *qualified_name(dc_sym *s, Dwarf_Die *die, const char *name) {
  Dwarf_Die cu;
  if (!dwarf_diecu(die, &cu, NULL, NULL)) return NULL;
  const int lang = dwarf_srclang(&cu);
  if (lang != DW_LANG_C_plus_plus && lang != DW_LANG_C_plus_plus_03 &&
      lang != DW_LANG_C_plus_plus_11 && lang != DW_LANG_C_plus_plus_14)
    return NULL;
  /* the declaration: the definition's specification, an inlined or
   * out-of-line instance's abstract origin */
  Dwarf_Die decl = *die, next;
  Dwarf_Attribute a;
  for (int i = 0; i < 8; i++) {
    if (!dwarf_attr(&decl, DW_AT_abstract_origin, &a) &&
        !dwarf_attr(&decl, DW_AT_specification, &a))
      break;
    if (!dwarf_formref_die(&a, &next)) break;
    decl = next;
  }
  Dwarf_Die *sc = NULL;
  const int n = dwarf_getscopes_die(&decl, &sc);
  char buf[1024];
  size_t k = 0;
  for (int i = n - 2; i >= 1 && k < sizeof buf; i--) { /* outermost first; sc[n-1]: the CU */
    const int tag = dwarf_tag(&sc[i]);
    const char *part = dwarf_diename(&sc[i]);
    if (tag == DW_TAG_namespace) part = part ? part : "(anonymous namespace)";
    else if (tag != DW_TAG_class_type && tag != DW_TAG_structure_type &&
             tag != DW_TAG_union_type)
      continue;
    if (!part) continue;
    k += (size_t)snprintf(buf + k, sizeof buf - k, "%s::", part);
  }
  free(sc);
  if (!k || k >= sizeof buf) return NULL;
  snprintf(buf + k, sizeof buf - k, "%s", name);
  return intern(s, buf);
}

static const char *die_name(dc_sym *s, Dwarf_Die *die) {
  const char *link = die_attr_string(die, DW_AT_linkage_name);
  if (!link) link = die_attr_string(die, DW_AT_MIPS_linkage_name);
  if (link) {
    char *d = dc_sym_demangle(link);
    if (d) {
      const char *r = intern(s, d);
      free(d);
      return r;
    }
  }
  const char *name = die_attr_string(die, DW_AT_name);
  const char *q = name && !link ? qualified_name(s, die, name) : NULL;
  return q ? q : intern(s, name ? name : link);
}

static int die_is_function(Dwarf_Die *die) {
  int tag = dwarf_tag(die);
  return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
         tag == DW_TAG_entry_point;
}

static int die_udata(Dwarf_Die *die, unsigned int at, Dwarf_Word *v) {
  Dwarf_Attribute a;
  return dwarf_formudata(dwarf_attr(die, at, &a), v);
}

/* path, made absolute with the comp_dir of die's CU when it is relative:
 * libdw leaves DWARF 5 file entries under directory 0 (the compilation
 * directory, which clang uses for sources named relative to it) relative. */
static const char *full_path(dc_sym *s, Dwarf_Die *die, const char *path) {
  if (!path || path[0] == '/') return intern(s, path);
  Dwarf_Die cu;
  Dwarf_Attribute a;
  const char *dir = dwarf_diecu(die, &cu, NULL, NULL)
                        ? dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a)) : NULL;
  if (!dir || !*dir) return intern(s, path);
  size_t nd = strlen(dir), np = strlen(path);
  char *buf = malloc(nd + np + 2);
  if (!buf) return intern(s, path);
  memcpy(buf, dir, nd);
  size_t k = nd;
  if (buf[k - 1] != '/') buf[k++] = '/';
  const char *p = path;
  while (p[0] == '.' && p[1] == '/') p += 2;
  memcpy(buf + k, p, strlen(p) + 1);
  const char *r = intern(s, buf);
  free(buf);
  return r;
}

/* Where die is declared.  Not dwarf_decl_file: elfutils before 0.191 takes
 * file index 0 for "none", but in DWARF 5 it is the CU's primary source file
 * (clang uses it), so the index is resolved here in the line table of the CU
 * holding the attribute (maybe the abstract origin's). */
static void decl_position(dc_sym *s, Dwarf_Die *die, const char **file, int *line) {
  Dwarf_Attribute a;
  Dwarf_Word idx;
  Dwarf_Die cu;
  Dwarf_Files *files;
  size_t nfiles;
  if (!dwarf_attr_integrate(die, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) != 0 ||
      !dwarf_cu_die(a.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
      dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
    return;
  const char *f = dwarf_filesrc(files, idx, NULL, NULL);
  if (!f) return;
  *file = full_path(s, &cu, f);
  int l = 0;
  if (*file && dwarf_decl_line(die, &l) == 0 && l > 0) *line = l;
}

/* The caller position of an inlined instance. */
static void call_position(dc_sym *s, Dwarf_Die *inl, dc_symframe *f) {
  Dwarf_Word v;
  Dwarf_Die cu;
  Dwarf_Files *files;
  size_t nfiles;
  if (die_udata(inl, DW_AT_call_file, &v) == 0 && dwarf_diecu(inl, &cu, NULL, NULL) &&
      dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 && v < nfiles)
    f->file = full_path(s, inl, dwarf_filesrc(files, v, NULL, NULL));
  if (die_udata(inl, DW_AT_call_line, &v) == 0 && v <= INT32_MAX) f->line = (int)v;
  if (die_udata(inl, DW_AT_call_column, &v) == 0 && v <= INT32_MAX) f->column = (int)v;
}

/* Fill out->frames from the scopes containing pc; returns the physical
 * function's name (NULL when none is found). */
static const char *inline_frames(dc_sym *s, Dwarf_Die *cudie, Dwarf_Addr dwpc,
                                 dc_symloc *out) {
  Dwarf_Die *scopes = NULL;
  int n = dwarf_getscopes(cudie, dwpc, &scopes);
  if (n <= 0) {
    free(scopes);
    return NULL;
  }
  Dwarf_Die inner = scopes[0];
  free(scopes);
  scopes = NULL;
  n = dwarf_getscopes_die(&inner, &scopes);
  if (n <= 0) {
    free(scopes);
    return NULL;
  }
  /* function scopes, innermost first, up to the physical one */
  enum { MAXF = 1024 };
  int fn[MAXF], nf = 0;
  for (int i = 0; i < n && nf < MAXF; i++) {
    if (!die_is_function(&scopes[i])) continue;
    fn[nf++] = i;
    if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine) break;
  }
  const char *physical = NULL;
  if (nf > 0) {
    /* keep the innermost DC_SYM_MAX_INLINE-1 and the physical function */
    int keep = nf <= DC_SYM_MAX_INLINE ? nf : DC_SYM_MAX_INLINE;
    for (int k = 0; k < keep; k++) {
      int j = k == keep - 1 ? nf - 1 : k; /* index into fn[] */
      dc_symframe *f = &out->frames[k];
      f->function = die_name(s, &scopes[fn[j]]);
      if (j == 0) {
        f->file = out->file;
        f->line = out->line;
        f->column = out->column;
      } else {
        call_position(s, &scopes[fn[j - 1]], f);
      }
    }
    out->n_frames = keep;
    Dwarf_Die *phys = &scopes[fn[nf - 1]];
    if (dwarf_tag(phys) != DW_TAG_inlined_subroutine) {
      physical = out->frames[keep - 1].function;
      decl_position(s, phys, &out->decl_file, &out->decl_line);
    }
  }
  free(scopes);
  return physical;
}

/* ------------------------------------------------------------ finding the CU */
static int cmp_range(const void *a, const void *b) {
  const cu_range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static void build_cu_table(Dwfl_Module *mod, mod_info *mi) {
  mi->built = 1;
  size_t cap = 0;
  Dwarf_Addr bias;
  Dwarf_Die *cu = NULL;
  while ((cu = dwfl_module_nextcu(mod, cu, &bias))) {
    Dwarf_Addr base, lo, hi;
    ptrdiff_t off = 0;
    while ((off = dwarf_ranges(cu, off, &base, &lo, &hi)) > 0) {
      if (lo >= hi) continue;
      if (mi->n == cap) {
        size_t nc = cap ? cap * 2 : 64;
        cu_range *r = realloc(mi->r, nc * sizeof *r);
        if (!r) return;
        mi->r = r;
        cap = nc;
      }
      mi->r[mi->n++] = (cu_range){lo, hi, dwarf_dieoffset(cu)};
    }
  }
  if (mi->n) qsort(mi->r, mi->n, sizeof *mi->r, cmp_range);
}

/* The CU DIE containing pc (0), or -1. */
static int find_cu(Dwfl_Module *mod, uintptr_t pc, Dwarf_Die *out, Dwarf_Addr *bias) {
  Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
  if (cu && dwarf_haspc(cu, pc - *bias) == 1) {
    *out = *cu;
    return 0;
  }
  Dwarf *dw = dwfl_module_getdwarf(mod, bias);
  if (!dw) return -1;
  void **ud = NULL;
  dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
  if (!ud) return -1;
  mod_info *mi = *ud;
  if (!mi) {
    mi = calloc(1, sizeof *mi);
    if (!mi) return -1;
    *ud = mi;
  }
  if (!mi->built) build_cu_table(mod, mi);
  Dwarf_Addr a = pc - *bias;
  /* the last range starting at or below a, then back over overlaps */
  size_t lo = 0, hi = mi->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (mi->r[mid].lo <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  for (size_t i = lo; i-- > 0;) {
    if (a < mi->r[i].hi) return dwarf_offdie(dw, mi->r[i].off, out) ? 0 : -1;
    if (lo - i > 64) break; /* CUs do not nest: no need to look far */
  }
  return -1;
}

/* ------------------------------------------------------------ lookup */
static sym_module *bare_module(dc_sym *s, uintptr_t pc) {
  for (size_t i = 0; i < s->n_mods; i++)
    if (pc >= s->mods[i].lo && pc < s->mods[i].hi) return &s->mods[i];
  return NULL;
}

static int lookup_locked(dc_sym *s, uintptr_t pc, dc_symloc *out) {
  Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, pc);
  if (!mod && s->self) {
    /* maybe loaded since the last report */
    unsigned long long g[2] = {0, 0};
    dl_iterate_phdr(phdr_gen, g);
    if (g[0] != s->self_adds || g[1] != s->self_subs) {
      self_report(s);
      mod = dwfl_addrmodule(s->dwfl, pc);
    }
  }
  if (!mod) {
    sym_module *m = s->self ? NULL : bare_module(s, pc);
    if (!m) return DC_SYM_NOTHING;
    out->module = intern(s, m->path);
    out->module_offset = pc - m->bias;
    return DC_SYM_MODULE;
  }

  const char *modname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  out->module = intern(s, modname);
  GElf_Addr bias = 0;
  if (dwfl_module_getelf(mod, &bias)) {
    out->module_offset = pc - bias;
  } else {
    Dwarf_Addr start = 0;
    dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
    out->module_offset = pc - start;
  }
  int level = DC_SYM_MODULE;

  GElf_Off off = 0;
  GElf_Sym sym;
  const char *symname = dwfl_module_addrinfo(mod, pc, &off, &sym, NULL, NULL, NULL);
  if (symname && *symname) {
    out->function = intern_name(s, symname);
    out->function_offset = off;
    level = DC_SYM_SYMBOL;
  }

  Dwarf_Addr dwbias = 0;
  Dwarf_Die cudie;
  if (find_cu(mod, pc, &cudie, &dwbias)) return level;
  Dwarf_Line *line = dwarf_getsrc_die(&cudie, pc - dwbias);
  if (line) {
    int ln = 0, col = 0;
    const char *file = dwarf_linesrc(line, NULL, NULL);
    if (file) {
      dwarf_lineno(line, &ln);
      dwarf_linecol(line, &col);
      out->file = full_path(s, &cudie, file);
      out->line = ln > 0 ? ln : 0;
      out->column = col > 0 ? col : 0;
      level = DC_SYM_SOURCE;
    }
  }
  const char *elf_name = out->function; /* the ELF symbol's, demangled */
  const char *physical = inline_frames(s, &cudie, pc - dwbias, out);
  /* a name qualified from the DWARF scopes (no linkage name) lacks the
   * parameters that the symbol of the same function has */
  const size_t pn = physical ? strlen(physical) : 0;
  if (physical && elf_name && elf_name != physical && !strncmp(elf_name, physical, pn) &&
      elf_name[pn] == '(') {
    physical = elf_name;
    out->frames[out->n_frames - 1].function = elf_name;
  }
  if (physical) {
    out->function = physical;
    out->function_offset = 0;
    level = DC_SYM_SOURCE;
  } else if (out->n_frames == 0 && out->file) {
    /* line table without a subprogram DIE (assembly, for instance) */
    out->frames[0].function = out->function;
    out->frames[0].file = out->file;
    out->frames[0].line = out->line;
    out->frames[0].column = out->column;
    out->n_frames = 1;
  }
  return level;
}

struct Dwarf *dc_sym_dwarf_at(dc_sym *s, uintptr_t addr, uintptr_t *bias) {
  if (!s) return NULL;
  pthread_mutex_lock(&s->lock);
  Dwfl_Module *mod = dwfl_addrmodule(s->dwfl, addr);
  Dwarf_Addr b = 0;
  Dwarf *dw = mod ? dwfl_module_getdwarf(mod, &b) : NULL;
  pthread_mutex_unlock(&s->lock);
  *bias = (uintptr_t)b;
  return dw;
}

int dc_sym_lookup(dc_sym *s, uintptr_t pc, dc_symloc *out) {
  if (!out) return -1;
  memset(out, 0, sizeof *out);
  out->pc = pc;
  if (!s) return -1;
  pthread_mutex_lock(&s->lock);
  int r = lookup_locked(s, pc, out);
  pthread_mutex_unlock(&s->lock);
  return r;
}
