/* symbolize.h: pc -> function, source file:line:column, module+offset, with
 * inlined frames, built on elfutils libdwfl.
 *
 * Two ways to tell it which modules exist:
 *  - offline (dacce-decode): dc_sym_open() then dc_sym_add_module() for each
 *    "module" line of a dump, i.e. each ELF file and the load bias it had in
 *    the process that wrote the dump;
 *  - in-process (the runtime): dc_sym_open_self() reports the modules mapped
 *    in the calling process (/proc/self/maps), re-read once when a pc falls
 *    outside every known module (a dlopen since).
 *
 * Degrades gracefully: full DWARF gives function, file:line:column and the
 * inlined frames; no debug information gives the ELF symbol table's function
 * name (.symtab, else .dynsym); an unreadable or missing file gives
 * module+offset; an address outside every module gives nothing but the pc.
 * Separate debug files are found the standard libdwfl way (.gnu_debuglink,
 * build-id under /usr/lib/debug).  Bad addresses or files never crash it.
 *
 * Strings in results belong to the dc_sym and stay valid until dc_sym_close.
 * A dc_sym serialises its own calls with a mutex, so it may be shared by
 * threads; it allocates (malloc) and is not async-signal-safe.
 */
#ifndef DACCE_SYMBOLIZE_H
#define DACCE_SYMBOLIZE_H

#include <stdint.h>

typedef struct dc_sym dc_sym;

#define DC_SYM_MAX_INLINE 32

/* One source-level frame.  Unknown fields are NULL / 0. */
typedef struct dc_symframe {
  const char *function; /* demangled for C++ */
  const char *file;
  int line, column;
} dc_symframe;

typedef struct dc_symloc {
  uintptr_t pc;
  /* the function the pc is in: the physical (non-inlined) one */
  const char *function;
  uintptr_t function_offset; /* pc - symbol start (only if from the symbol table) */
  /* where that function is defined (DWARF DW_AT_decl_file/line), else NULL/0 */
  const char *decl_file;
  int decl_line;
  /* the innermost source position of pc (= frames[0]'s) */
  const char *file;
  int line, column;
  /* the module: its file name, and pc - load bias (the address in the ELF
   * file, what addr2line takes) */
  const char *module;
  uintptr_t module_offset;
  /* source frames at pc, innermost first: frames[0] is the innermost inlined
   * function with pc's own line; each following frame is the function that
   * inlined the previous one, at the line of that inlined call; the last is
   * the physical function.  n_frames is 0 when there is no DWARF for pc, 1
   * when nothing is inlined there.  More than DC_SYM_MAX_INLINE levels keeps
   * the innermost ones and the physical function last. */
  int n_frames;
  dc_symframe frames[DC_SYM_MAX_INLINE];
} dc_symloc;

/* What dc_sym_lookup found (each level includes the ones below). */
enum {
  DC_SYM_NOTHING = 0, /* pc is in no known module */
  DC_SYM_MODULE = 1,  /* module and offset only */
  DC_SYM_SYMBOL = 2,  /* + function name from the ELF symbol table */
  DC_SYM_SOURCE = 3,  /* + DWARF: file:line, inlined frames */
};

/* An empty symbolizer for offline use (NULL on allocation failure). */
dc_sym *dc_sym_open(void);
/* Symbolizer of the calling process's own modules (NULL on failure). */
dc_sym *dc_sym_open_self(void);
void dc_sym_close(dc_sym *s);

/* Offline: the ELF file at path was mapped with load bias load_bias, and its
 * loadable segments spanned [lo, hi).  Returns 0 when libdwfl could open the
 * file, 1 when it could not (the module is still known, so its pcs get
 * module+offset), -1 on invalid arguments or an overlap with a module
 * already added.  Not for a dc_sym_open_self() symbolizer. */
int dc_sym_add_module(dc_sym *s, const char *path, uintptr_t load_bias, uintptr_t lo,
                      uintptr_t hi);

/* Symbolise pc (an address inside an instruction: for a return address pass
 * ra - 1).  Always fills *out (pc and unknown fields zeroed); returns one of
 * DC_SYM_*, or -1 when s or out is NULL. */
int dc_sym_lookup(dc_sym *s, uintptr_t pc, dc_symloc *out);

/* The DWARF of the module that holds address addr (its load bias in *bias),
 * as the lookups use it (one reading of each line table), or NULL.  Owned by
 * s; not to be used by two threads at once. */
struct Dwarf *dc_sym_dwarf_at(dc_sym *s, uintptr_t addr, uintptr_t *bias);

/* Demangle a C++ name with the C++ runtime's __cxa_demangle when it can be
 * found (already loaded, or libstdc++.so.6 loadable); else, and for names
 * that are not mangled, returns NULL.  The result is malloc'd. */
char *dc_sym_demangle(const char *name);

#endif
