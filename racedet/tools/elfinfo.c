/* elfinfo.c: what the launcher reads from ELF files, with libelf (gelf.h)
 * and, for the declarations of global variables, libdw.
 *
 * Every function opens the file, reads what it needs and closes it again;
 * callers cache what they use often.  A file that is not ELF, truncated or
 * otherwise broken gives "not found", never a crash.
 */
#define _GNU_SOURCE
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launcher.h"
#include "symbolize.h"

typedef struct elf_file {
  int fd;
  Elf *elf;
} elf_file;

static int elf_open(const char *path, elf_file *f) {
  static int inited;
  if (!inited) {
    if (elf_version(EV_CURRENT) == EV_NONE) return -1;
    inited = 1;
  }
  f->fd = open(path, O_RDONLY | O_CLOEXEC);
  if (f->fd < 0) return -1;
  f->elf = elf_begin(f->fd, ELF_C_READ_MMAP, NULL);
  if (!f->elf || elf_kind(f->elf) != ELF_K_ELF) {
    if (f->elf) elf_end(f->elf);
    close(f->fd);
    return -1;
  }
  return 0;
}

static void elf_close(elf_file *f) {
  elf_end(f->elf);
  close(f->fd);
}

/* Call fn for every symbol of the sections of type shtype; stops when fn
 * returns nonzero (which is returned). */
typedef int (*sym_fn)(const GElf_Sym *sym, const char *name, void *arg);
static int each_symbol(Elf *elf, Elf64_Word shtype, sym_fn fn, void *arg) {
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != shtype || !sh.sh_entsize) continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data) continue;
    size_t n = data->d_size / sh.sh_entsize;
    for (size_t i = 1; i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(data, (int)i, &sym)) break;
      const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
      if (!name) continue;
      int r = fn(&sym, name, arg);
      if (r) return r;
    }
  }
  return 0;
}

static int examine_sym(const GElf_Sym *sym, const char *name, void *arg) {
  lr_elf_check *c = arg;
  int defined = sym->st_shndx != SHN_UNDEF;
  if (!strcmp(name, "__tsan_func_entry")) {
    c->references_func_entry = 1;
    if (defined) c->defines_func_entry = 1;
  } else if (!strcmp(name, "dacce_capture") && defined) {
    c->defines_dacce = 1;
  }
  return 0;
}

static int has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

int lr_elf_examine(const char *path, lr_elf_check *c) {
  memset(c, 0, sizeof *c);
  elf_file f;
  if (elf_open(path, &f)) return -1;
  c->is_elf = 1;
  each_symbol(f.elf, SHT_SYMTAB, examine_sym, c);
  each_symbol(f.elf, SHT_DYNSYM, examine_sym, c);
  /* the dynamic section: needed libraries and the search path */
  size_t nneeded = 0, cap = 0;
  Elf_Scn *scn = NULL;
  while ((scn = elf_nextscn(f.elf, scn))) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || !sh.sh_entsize) continue;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data) continue;
    size_t n = data->d_size / sh.sh_entsize;
    char *rpath = NULL, *runpath = NULL;
    for (size_t i = 0; i < n; i++) {
      GElf_Dyn dyn;
      if (!gelf_getdyn(data, (int)i, &dyn) || dyn.d_tag == DT_NULL) break;
      if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RPATH && dyn.d_tag != DT_RUNPATH) continue;
      const char *s = elf_strptr(f.elf, sh.sh_link, dyn.d_un.d_val);
      if (!s) continue;
      if (dyn.d_tag == DT_RPATH) {
        free(rpath);
        rpath = strdup(s);
        continue;
      }
      if (dyn.d_tag == DT_RUNPATH) {
        free(runpath);
        runpath = strdup(s);
        continue;
      }
      if (has_prefix(s, "libtsan.so")) c->needs_libtsan = 1;
      if (has_prefix(s, "libdacce.so")) c->needs_libdacce = 1;
      if (nneeded + 2 > cap) {
        cap = cap ? cap * 2 : 8;
        char **nn = realloc(c->needed, cap * sizeof *nn);
        if (!nn) break;
        c->needed = nn;
      }
      c->needed[nneeded++] = strdup(s);
      c->needed[nneeded] = NULL;
    }
    c->rpath = runpath ? runpath : rpath;
    if (runpath) free(rpath);
    break;
  }
  elf_close(&f);
  return 0;
}

void lr_elf_check_free(lr_elf_check *c) {
  for (char **p = c->needed; p && *p; p++) free(*p);
  free(c->needed);
  free(c->rpath);
  memset(c, 0, sizeof *c);
}

int lr_elf_load_span(const char *path, uintptr_t *lo, uintptr_t *hi) {
  elf_file f;
  if (elf_open(path, &f)) return -1;
  size_t n = 0;
  uintptr_t l = UINTPTR_MAX, h = 0;
  if (elf_getphdrnum(f.elf, &n) == 0) {
    for (size_t i = 0; i < n; i++) {
      GElf_Phdr ph;
      if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_LOAD || !ph.p_memsz) continue;
      uintptr_t a = (uintptr_t)ph.p_vaddr & ~(uintptr_t)4095;
      uintptr_t e = (uintptr_t)(ph.p_vaddr + ph.p_memsz);
      if (a < l) l = a;
      if (e > h) h = e;
    }
  }
  elf_close(&f);
  if (l >= h) return -1;
  *lo = l;
  *hi = h;
  return 0;
}

/* n bytes of the file's loaded image at file address addr (within one
 * PT_LOAD segment's file contents): 0, or -1. */
int lr_elf_read(const char *path, uintptr_t addr, void *buf, size_t n) {
  elf_file f;
  if (elf_open(path, &f)) return -1;
  size_t nph = 0;
  int r = -1;
  if (elf_getphdrnum(f.elf, &nph) == 0)
    for (size_t i = 0; i < nph && r; i++) {
      GElf_Phdr ph;
      if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_LOAD) continue;
      if (addr < ph.p_vaddr || addr + n > ph.p_vaddr + ph.p_filesz) continue;
      off_t at = (off_t)(ph.p_offset + (addr - ph.p_vaddr));
      r = pread(f.fd, buf, n, at) == (ssize_t)n ? 0 : -1;
    }
  elf_close(&f);
  return r;
}

/* ------------------------------------------------------------ data symbols */
typedef struct data_query {
  uintptr_t addr;
  int found;
  GElf_Sym best;
  const char *name;
} data_query;

static int data_sym(const GElf_Sym *sym, const char *name, void *arg) {
  data_query *q = arg;
  int type = GELF_ST_TYPE(sym->st_info);
  if (sym->st_shndx == SHN_UNDEF || sym->st_shndx == SHN_ABS || !*name) return 0;
  if (type != STT_OBJECT && type != STT_COMMON && type != STT_NOTYPE) return 0;
  uintptr_t s = (uintptr_t)sym->st_value;
  if (sym->st_size ? (q->addr < s || q->addr - s >= sym->st_size) : q->addr != s) return 0;
  /* prefer a sized object over a label */
  if (!q->found || (!q->best.st_size && sym->st_size) ||
      (GELF_ST_TYPE(q->best.st_info) == STT_NOTYPE && type == STT_OBJECT)) {
    q->found = 1;
    q->best = *sym;
    q->name = name;
  }
  return 0;
}

int lr_elf_data_symbol(const char *path, uintptr_t addr, char **name, uintptr_t *start,
                       uintptr_t *size) {
  elf_file f;
  if (elf_open(path, &f)) return -1;
  data_query q = {addr, 0, {0}, NULL};
  each_symbol(f.elf, SHT_SYMTAB, data_sym, &q);
  if (!q.found) each_symbol(f.elf, SHT_DYNSYM, data_sym, &q);
  int r = -1;
  if (q.found) {
    char *d = dc_sym_demangle(q.name);
    *name = d ? d : strdup(q.name);
    *start = (uintptr_t)q.best.st_value;
    *size = (uintptr_t)q.best.st_size;
    r = *name ? 0 : -1;
  }
  elf_close(&f);
  return r;
}

/* ------------------------------------------------------------ declarations */
static int var_at(Dwarf_Die *die, uintptr_t addr) {
  Dwarf_Attribute a;
  Dwarf_Op *ops;
  size_t nops;
  if (!dwarf_attr(die, DW_AT_location, &a)) return 0;
  if (dwarf_getlocation(&a, &ops, &nops) != 0 || nops != 1) return 0;
  if (ops[0].atom == DW_OP_addr) return ops[0].number == addr;
  if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) {
    /* DWARF 5 (clang): an index into .debug_addr */
    Dwarf_Attribute res;
    Dwarf_Addr v;
    return dwarf_getlocation_attr(&a, &ops[0], &res) == 0 && dwarf_formaddr(&res, &v) == 0 &&
           v == addr;
  }
  return 0;
}

/* the variable DIE at addr under die (depth-limited walk) */
static int find_var(Dwarf_Die *die, uintptr_t addr, int depth, Dwarf_Die *out) {
  Dwarf_Die child;
  if (depth > 16 || dwarf_child(die, &child) != 0) return 0;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_variable && var_at(&child, addr)) {
      *out = child;
      return 1;
    }
    if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
         tag == DW_TAG_structure_type || tag == DW_TAG_class_type) &&
        find_var(&child, addr, depth + 1, out))
      return 1;
  } while (dwarf_siblingof(&child, &child) == 0);
  return 0;
}

/* The declaration of a variable.  The file index is resolved in the line
 * table of the CU holding the attribute: not dwarf_decl_file, which before
 * elfutils 0.191 reads DWARF 5's index 0 as "none" (see decoder/symbolize.c). */
static int decl_of(Dwarf_Die *var, char **file, int *line) {
  Dwarf_Attribute a;
  Dwarf_Word idx;
  Dwarf_Die cu;
  Dwarf_Files *files;
  size_t nfiles;
  if (!dwarf_attr_integrate(var, DW_AT_decl_file, &a) || dwarf_formudata(&a, &idx) != 0 ||
      !dwarf_cu_die(a.cu, &cu, NULL, NULL, NULL, NULL, NULL, NULL) ||
      dwarf_getsrcfiles(&cu, &files, &nfiles) != 0 || idx >= nfiles)
    return -1;
  const char *f = dwarf_filesrc(files, idx, NULL, NULL);
  if (!f) return -1;
  int l = 0;
  if (dwarf_decl_line(var, &l) != 0 || l <= 0) return -1;
  if (f[0] != '/') {
    const char *dir = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a));
    if (dir && *dir) {
      while (f[0] == '.' && f[1] == '/') f += 2;
      if (asprintf(file, "%s/%s", dir, f) < 0) return -1;
      *line = l;
      return 0;
    }
  }
  *file = strdup(f);
  *line = l;
  return *file ? 0 : -1;
}

int lr_dwarf_var_decl(Dwarf *dw, uintptr_t addr, char **file, int *line) {
  int r = -1;
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (r && dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu, var;
    if (dwarf_offdie(dw, off + hsize, &cu) && find_var(&cu, addr, 0, &var))
      r = decl_of(&var, file, line);
    off = next;
  }
  return r;
}

int lr_elf_var_decl(const char *path, uintptr_t addr, char **file, int *line) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
  int r = dw ? lr_dwarf_var_decl(dw, addr, file, line) : -1;
  if (dw) dwarf_end(dw);
  close(fd);
  return r;
}
