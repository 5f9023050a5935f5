/* launcher.h: the dacce-race launcher's report model and its parts.
 *
 *   rawreport.c   one raw JSON line of the runtime (racedet/report.c
 *                 render_raw) -> lr_report with raw frames (pc, module, bias)
 *   symreport.c   symbolises an lr_report in place: every frame gets its
 *                 function, file:line:column and inlined frames (decoder/
 *                 symbolize.c), a global location its variable (elfinfo.c)
 *   elfinfo.c     what the launcher reads from ELF files with libelf/libdw
 *   suppress.c    TSan-syntax suppressions
 *   render_text.c, render_json.c, render_sarif.c: the renderings, all from
 *                 one symbolised lr_report
 */
#ifndef DACCE_LAUNCHER_H
#define DACCE_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------ arena */
/* Everything of one report lives in its arena and goes with it. */
typedef struct lr_arena {
  struct lr_chunk *head;
} lr_arena;
void *lr_alloc(lr_arena *a, size_t n); /* zeroed; exits on out-of-memory */
char *lr_strdup(lr_arena *a, const char *s);
char *lr_strndup(lr_arena *a, const char *s, size_t n);
void lr_arena_free(lr_arena *a);

/* ------------------------------------------------------------ model */
typedef struct lr_frame {
  uintptr_t pc;         /* as reported: the access pc, or a call site (in its call) */
  uintptr_t bias;       /* load bias of the module */
  const char *module;   /* path of the ELF file, NULL when unknown */
  uintptr_t offset;     /* pc - bias: the address in the module file */
  const char *function; /* NULL when unknown */
  const char *file;     /* NULL when unknown */
  int line, column;     /* 0 when unknown */
  int inlined;          /* inlined into the frame that follows */
} lr_frame;

typedef struct lr_stack {
  lr_frame *f; /* innermost first */
  int n;
  int decode_error; /* the runtime could not decode the context (< 0) */
  int truncated;    /* the runtime cut the stack (more than its frame limit) */
  int pc_merged;    /* the top frame is the first of several merged accesses */
} lr_stack;

#define LR_MAX_HELD 16
typedef struct lr_access {
  unsigned thread;
  int is_write, is_atomic, is_free;
  int is_vptr; /* the current access was to a C++ object's vptr */
  unsigned size;
  uint64_t address;
  lr_stack st;
  int nheld;                   /* mutexes held at this access: */
  int held[LR_MAX_HELD];       /* indices into lr_report.mutexes (M<i+1>) */
  int held_read[LR_MAX_HELD];  /* read-locked (rwlock) */
} lr_access;

typedef struct lr_thread {
  unsigned id;
  const char *name; /* pthread_setname_np / AnnotateThreadName, "" if none */
  int has_parent;
  unsigned parent;
  lr_stack created; /* the creator's stack at pthread_create */
} lr_thread;

typedef struct lr_location {
  const char *kind; /* global, heap, stack, tls, fd, unknown */
  int fd;           /* fd: the descriptor's number */
  const char *object_type; /* the object's type (external-race API), or NULL */
  const char *name; /* global: the variable ("" when unknown) */
  uint64_t address, size, access_address;
  /* global: the module holding it and the variable's offset in it */
  lr_frame data;
  const char *decl_file; /* global: where it is declared (DWARF), else NULL */
  int decl_line;
  int has_thread;        /* heap, fd: allocating (creating) thread; stack, tls: owner */
  unsigned thread;
  int has_alloc;         /* heap, fd: allocation (creation) stack */
  lr_stack alloc;
} lr_location;

/* One edge of a lock-order cycle: thread wanted mutexes[to] while it held
 * mutexes[from] (indices; read: read-locked). */
typedef struct lr_edge {
  int from, to, from_read, to_read;
  unsigned thread;
  lr_stack wanted; /* where it asked for `to` */
  lr_stack held;   /* where it had taken `from` */
} lr_edge;

typedef struct lr_report {
  lr_arena arena;
  /* "data-race", "heap-use-after-free", "thread-leak", "lock-order-inversion",
   * "mutex-misuse", "signal-unsafe-call" or "signal-errno" */
  const char *kind;
  /* mutex-misuse: what ("unlock-not-held", "double-lock", "destroy-held"),
   * to mutexes[0]; acc[0] is the call (thread, st), acc[1].st where the
   * thread had taken the mutex (n 0: none; read-locked: held_read) */
  const char *misuse;
  int held_read;
  int has_holder;  /* an unlock's: another thread holds the mutex, */
  unsigned holder; /* this one */
  /* signal-unsafe-call, signal-errno: the signal whose handler it was, the
   * function called (unsafe), errno before and after the handler (errno);
   * acc[0] is the thread and the call's stack, or the handler's frame over
   * where the signal arrived */
  int signal;
  const char *unsafe_fn;
  int errno_before, errno_after;
  long pid;
  const char *capture; /* runtime option capture when not dacce (an ablation), else NULL */
  /* thread-leak: the thread that finished unjoined and undetached, and how
   * many more were created at the same place (acc, loc and mutexes empty) */
  unsigned leak_thread, leak_similar;
  /* lock-order-inversion: the cycle, edge i from the lock edge i-1 wanted
   * (acc and loc empty; mutexes: the cycle's, in its order) */
  lr_edge *edges;
  int nedges;
  lr_access acc[2]; /* current, previous */
  lr_location loc;
  uint64_t *mutexes; /* every mutex either access held, M1 first */
  int nmutexes;
  lr_stack *mutex_created; /* per mutex: where it was created (init, else its first lock) */
  int *mutex_created_known;
  /* every thread named (current, previous, location), each followed by its
   * ancestors up to the main thread, each once */
  lr_thread *threads;
  int nthreads;
} lr_report;

/* ------------------------------------------------------------ rawreport.c */
/* Parse one raw line (without its newline) into *r (zeroed first).  Returns 0,
 * or -1 with a reason in why (the report is then freed). */
int lr_parse_raw(const char *line, size_t len, lr_report *r, char *why, size_t whylen);
void lr_report_free(lr_report *r);

/* ------------------------------------------------------------ symreport.c */
typedef struct lr_progmap {
  const char *argv0;     /* argv[0] the program was started with */
  const char *path;      /* absolute path of the program file */
  const char *cwd;       /* working directory it was started in */
} lr_progmap;
void lr_sym_init(const lr_progmap *pm);
void lr_symbolize(lr_report *r);
void lr_sym_fini(void);

/* ------------------------------------------------------------ elfinfo.c */
typedef struct lr_elf_check {
  int is_elf;
  int defines_func_entry;   /* __tsan_func_entry defined */
  int references_func_entry; /* ... or referenced (undefined) */
  int defines_dacce;        /* dacce_capture defined: our static runtime */
  int needs_libtsan;        /* DT_NEEDED libtsan.so* */
  int needs_libdacce;       /* DT_NEEDED libdacce.so */
  char **needed;            /* DT_NEEDED names (malloc'd, NULL-terminated) */
  char *rpath;              /* DT_RUNPATH, else DT_RPATH (malloc'd) or NULL */
} lr_elf_check;
/* 0, or -1 when the file cannot be read as ELF (is_elf 0). */
int lr_elf_examine(const char *path, lr_elf_check *out);
void lr_elf_check_free(lr_elf_check *c);
/* n bytes of a module's loaded image at file address addr: 0, or -1. */
int lr_elf_read(const char *path, uintptr_t addr, void *buf, size_t n);
/* The span [lo, hi) of a module's PT_LOAD segments as file addresses. */
int lr_elf_load_span(const char *path, uintptr_t *lo, uintptr_t *hi);
/* The data object containing file address addr (.symtab, else .dynsym):
 * 0 and name (malloc'd, demangled), start, size; -1 when none. */
int lr_elf_data_symbol(const char *path, uintptr_t addr, char **name, uintptr_t *start,
                       uintptr_t *size);
/* Declaration of the variable at file address addr from DWARF: 0 and file
 * (malloc'd), line; -1 when unknown.  lr_dwarf_var_decl: from DWARF already
 * open (the symbolizer's: its line tables are read once). */
int lr_elf_var_decl(const char *path, uintptr_t addr, char **file, int *line);
struct Dwarf;
int lr_dwarf_var_decl(struct Dwarf *dw, uintptr_t addr, char **file, int *line);

/* ------------------------------------------------------------ suppress.c */
typedef struct lr_supps lr_supps;
/* Load a suppressions file.  NULL with a one-line message in err on failure. */
lr_supps *lr_supps_load(const char *path, char *err, size_t errlen);
/* The index of the first suppression matching r, or -1. */
int lr_supps_match(lr_supps *s, const lr_report *r);
/* "dacce-race: suppressed N reports (race:foo: 2, ...)" when N > 0 */
void lr_supps_summary(lr_supps *s, FILE *out);
unsigned long lr_supps_total(const lr_supps *s); /* reports suppressed */
void lr_supps_free(lr_supps *s);

/* ------------------------------------------------------------ strings */
typedef struct lr_buf {
  char *p;
  size_t n, cap;
} lr_buf;
void lr_bput(lr_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void lr_bputs(lr_buf *b, const char *s);
void lr_bputn(lr_buf *b, const char *s, size_t n);
/* s as a JSON string literal, quotes included; NULL as null */
void lr_bjson_str(lr_buf *b, const char *s);
void lr_buf_free(lr_buf *b);
const char *lr_basename(const char *path);
/* FNV-1a over n bytes, on from h (the usual start: LR_FNV_START): the
 * reports' keys (SARIF fingerprints, whose start differs and stays, and
 * the launcher's repeats) */
#define LR_FNV_START 0xcbf29ce484222325ull
uint64_t lr_fnv1a(uint64_t h, const void *p, size_t n);

/* ------------------------------------------------------------ renderings */
typedef struct lr_text_opts {
  int tsan_header;
} lr_text_opts;
void lr_render_text(const lr_report *r, const lr_text_opts *o, lr_buf *b);
/* one JSON object, newline-terminated */
void lr_render_json(const lr_report *r, lr_buf *b);

typedef struct lr_sarif lr_sarif;
lr_sarif *lr_sarif_new(const char *srcroot /* absolute directory */);
void lr_sarif_add(lr_sarif *s, const lr_report *r);
/* Write the whole log; 0 or -1. */
int lr_sarif_write(lr_sarif *s, FILE *out);
void lr_sarif_free(lr_sarif *s);
/* helpers shared by renderers */
const char *lr_kind_words(const char *kind); /* "data race", "heap-use-after-free" */
/* The report's title: its kind's words, or "data race on vptr (ctor/dtor vs
 * virtual call)" when the current access was to a vptr */
const char *lr_report_title(const struct lr_report *r);
/* "main thread", "thread T3" or "thread T3 'name'" (buf: LR_TNAME bytes) */
#define LR_TNAME 96
struct lr_report;
const char *lr_thread_name(const struct lr_report *r, unsigned id, char buf[LR_TNAME]);
/* The frame a report is "at": the current access's innermost frame with a
 * source file, else its innermost frame (NULL when the stack is empty); for
 * a thread leak, the same of the leaked thread's creation stack; for a
 * lock-order inversion, of the first edge's acquisition. */
const lr_frame *lr_report_top(const lr_report *r);
int lr_is_leak(const lr_report *r);
int lr_is_deadlock(const lr_report *r);
int lr_is_misuse(const lr_report *r);
int lr_is_signal(const lr_report *r); /* signal-unsafe-call or signal-errno */
const char *lr_signal_name(int sig, char buf[24]); /* "SIGUSR1", "SIGRTMIN+3" */
/* a mutex-misuse report's RD_MISUSE_* (racedet/report_words.h), or -1 */
int lr_misuse_index(const lr_report *r);
/* The leaked thread of a thread-leak report (NULL if not described). */
const lr_thread *lr_leaked_thread(const lr_report *r);

#endif
