/* symtab.c: function names inside the process, from the modules' ELF symbol
 * tables (.symtab, else .dynsym), for dacce_print() and the runtime's own
 * text reports when no launcher symbolises them.  dladdr() only knows
 * exported symbols, which in a PIE executable are almost none.  No libdw, no
 * malloc: files are mapped read-only and each module's function symbols are
 * sorted once into runtime memory.  File and line need DWARF: that is the
 * launcher's job (decoder/symbolize.c). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

typedef struct fsym {
  uintptr_t addr, size;
  const char *name;
} fsym;

typedef struct module {
  uintptr_t bias;
  fsym *syms, *objs; /* functions; data objects (for report locations) */
  uint32_t n, nobj;
  int loaded;
} module;

#define MAX_MODULES 128
static module modules[MAX_MODULES];
static int n_modules;
static _Atomic int lock;

/* shell sort by address: no malloc, no libc qsort */
static void sort_syms(fsym *a, uint32_t n) {
  static const uint32_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
  for (unsigned g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
    for (uint32_t i = gaps[g]; i < n; i++) {
      fsym t = a[i];
      uint32_t j = i;
      for (; j >= gaps[g] && a[j - gaps[g]].addr > t.addr; j -= gaps[g]) a[j] = a[j - gaps[g]];
      a[j] = t;
    }
}

static void load(module *m, const char *path) {
  m->loaded = 1;
  int fd = dc_open(path, O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return;
  struct stat st;
  if (fstat(fd, &st) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
    dc_close(fd);
    return;
  }
  const char *f = dc_sys_mmap(0, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  dc_close(fd);
  if (f == MAP_FAILED) return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)f;
  size_t size = (size_t)st.st_size;
  if (eh->e_ident[EI_MAG0] != ELFMAG0 || eh->e_ident[EI_MAG1] != ELFMAG1 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shoff == 0 ||
      eh->e_shoff + (size_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
    return;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(f + eh->e_shoff);
  const Elf64_Shdr *tab = 0;
  for (int pass = 0; pass < 2 && !tab; pass++)
    for (int i = 0; i < eh->e_shnum; i++)
      if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB)) tab = &sh[i];
  if (!tab || tab->sh_link >= eh->e_shnum || tab->sh_offset + tab->sh_size > size) return;
  const Elf64_Shdr *str = &sh[tab->sh_link];
  if (str->sh_offset + str->sh_size > size) return;
  const Elf64_Sym *sym = (const Elf64_Sym *)(f + tab->sh_offset);
  size_t count = tab->sh_size / sizeof(Elf64_Sym);
  for (int want = STT_FUNC;; want = STT_OBJECT) {
    size_t n = 0, k = 0;
    for (size_t i = 0; i < count; i++)
      if (ELF64_ST_TYPE(sym[i].st_info) == want && sym[i].st_value && sym[i].st_name < str->sh_size)
        n++;
    fsym *out = n ? dc_mmap(n * sizeof(fsym)) : 0;
    for (size_t i = 0; i < count && n; i++)
      if (ELF64_ST_TYPE(sym[i].st_info) == want && sym[i].st_value && sym[i].st_name < str->sh_size)
        out[k++] = (fsym){sym[i].st_value, sym[i].st_size, f + str->sh_offset + sym[i].st_name};
    if (k) sort_syms(out, (uint32_t)k);
    if (want == STT_FUNC) {
      m->syms = out;
      m->n = (uint32_t)k;
    } else {
      m->objs = out;
      m->nobj = (uint32_t)k;
      break;
    }
  }
}

static module *module_of(uintptr_t pc) {
  Dl_info info;
  struct link_map *lm = 0;
  if (!pc || !dladdr1((void *)pc, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm) return 0;
  dc_lock(&lock);
  module *m = 0;
  for (int i = 0; i < n_modules; i++)
    if (modules[i].bias == lm->l_addr) m = &modules[i];
  if (!m && n_modules < MAX_MODULES) {
    m = &modules[n_modules++];
    m->bias = lm->l_addr;
    load(m, lm->l_name && *lm->l_name ? lm->l_name : "/proc/self/exe");
  }
  dc_unlock(&lock);
  return m;
}

/* The symbol of a sorted table containing a, or 0.  A symbol without a
 * size contains only its own address, unless open_ended (functions written in
 * assembly often have no size: take the nearest one below). */
static const fsym *find(const fsym *t, uint32_t n, uintptr_t a, int open_ended) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) { /* last symbol at or below a */
    uint32_t mid = lo + (hi - lo) / 2;
    if (t[mid].addr <= a)
      lo = mid + 1;
    else
      hi = mid;
  }
  if (!lo) return 0;
  const fsym *s = &t[lo - 1];
  if (s->size ? a - s->addr >= s->size : !open_ended && a != s->addr) return 0;
  return s;
}

const char *dc_symtab_object(uintptr_t addr, uintptr_t *start, uintptr_t *size) {
  module *m = module_of(addr);
  const fsym *s = m ? find(m->objs, m->nobj, addr - m->bias, 0) : 0;
  if (!s) return 0;
  *start = s->addr + m->bias;
  *size = s->size;
  return s->name;
}

const char *dc_symtab_name(uintptr_t pc, uintptr_t *offset) {
  module *m = module_of(pc);
  const fsym *s = m ? find(m->syms, m->n, pc - m->bias, 1) : 0;
  if (!s) return 0;
  if (offset) *offset = pc - m->bias - s->addr;
  return s->name;
}
