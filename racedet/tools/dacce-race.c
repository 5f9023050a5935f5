/* dacce-race: run a program built with dacce-cc and report its data races,
 * symbolised with DWARF, as text, JSON Lines and/or SARIF.
 *
 *   dacce-race [options] [--] ./app [args...]
 *
 * The launcher checks the program (ELF, instrumented, built against our
 * runtime and not ThreadSanitizer's), then runs it with stdin/stdout/stderr
 * inherited and DACCE_OPTIONS telling the runtime to write each report as
 * one raw JSON line (racedet/report.c render_raw) into a pipe the launcher
 * reads while the program runs.  Each line is parsed (rawreport.c),
 * symbolised (symreport.c over decoder/symbolize.c), checked against the
 * suppressions (suppress.c) and rendered (render_*.c) as soon as it arrives,
 * so a program that crashes later still gets its reports out.
 *
 * Options: the launcher's own (launcher_options.h) and every runtime option
 * of DC_OPTIONS (encoder/internal.h), which is forwarded in DACCE_OPTIONS;
 * from DACCE_RACE_OPTIONS first, then the command line.
 *
 * Exit status: 2 for a usage error or a program that cannot be run under the
 * detector; 128+N when the program was killed by signal N; the exitcode
 * option (66) when an unsuppressed report was printed; else the program's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "launcher.h"
#include "launcher_options.h"

#ifndef DACCE_VERSION
#define DACCE_VERSION "0.0.0"
#endif

extern char **environ;

/* ------------------------------------------------------------ errors */
static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dacce-race: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  exit(2);
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("dacce-race: warning: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

/* ------------------------------------------------------------ options */
static lo_options opt = {
#define LO_DEFAULT(type, name, def, desc) .name = def,
    LAUNCHER_OPTIONS(LO_DEFAULT)
#undef LO_DEFAULT
};

/* The runtime's options, from the runtime's own table. */
typedef struct rt_option {
  const char *name;
  int is_int;
  const char *def;
  const char *desc;
} rt_option;
#define RT_IS_int 1
#define RT_IS_str 0
static const rt_option rt_options[] = {
#define RT_ENTRY(type, name, def, desc) {#name, RT_IS_##type, #def, desc},
    DC_OPTIONS(RT_ENTRY)
#undef RT_ENTRY
};
#define N_RT (sizeof rt_options / sizeof *rt_options)
static const char *rt_values[N_RT]; /* NULL: not given */

/* set by the launcher itself: a user value would break the report channel */
static int rt_reserved(const char *name) {
  return !strcmp(name, "raw_reports") || !strcmp(name, "report_text") ||
         !strcmp(name, "report_ack_fd") || !strcmp(name, "report_via") ||
         !strcmp(name, "override_exit_status");
}
static int rt_has(const char *name) {
  for (size_t i = 0; i < N_RT; i++)
    if (!strcmp(rt_options[i].name, name)) return 1;
  return 0;
}

static int parse_uint(const char *v, int *out) {
  char *end;
  errno = 0;
  long x = strtol(v, &end, 0);
  if (!*v || *end || errno || x < 0 || x > 0x7fffffff || *v == '-' || *v == '+' || *v == ' ')
    return -1;
  *out = (int)x;
  return 0;
}

static int parse_bool(const char *v, int *out) {
  if (!strcmp(v, "1") || !strcmp(v, "true") || !strcmp(v, "yes")) *out = 1;
  else if (!strcmp(v, "0") || !strcmp(v, "false") || !strcmp(v, "no")) *out = 0;
  else return -1;
  return 0;
}

enum { SET_OK, SET_NEEDS_VALUE };
/* where options come from, for messages: "" (command line) or
 * "DACCE_RACE_OPTIONS: " */
static const char *opt_origin = "";
#define odie(fmt, ...) die("%s" fmt, opt_origin, __VA_ARGS__)
/* Set option key (dashes allowed) to val (NULL: none given).  `shown` is
 * how the user wrote the option, for messages.  Dies on errors. */
static int set_option(const char *key, const char *val, const char *shown) {
  char name[64];
  size_t n = strlen(key);
  if (n == 0 || n >= sizeof name) odie("unknown option '%s' (see --help)", shown);
  for (size_t i = 0; i <= n; i++) name[i] = key[i] == '-' ? '_' : key[i];

#define LO_NEEDS_int 1
#define LO_NEEDS_file 1
#define LO_NEEDS_prefix 1
#define LO_NEEDS_flag 0
#define LO_SET_int(field)                                                           \
  if (parse_uint(val, &opt.field))                                                  \
    odie("option '%s' wants a non-negative integer, got '%s'", shown, val);
#define LO_SET_file(field)                                                          \
  if (!*val) odie("option '%s' wants a file name", shown);                           \
  opt.field = val;
#define LO_SET_prefix(field)                                                        \
  if (!*val) odie("option '%s' wants a file name prefix", shown);                    \
  opt.field = val;
#define LO_SET_flag(field)                                                          \
  if (!val) opt.field = 1;                                                          \
  else if (parse_bool(val, &opt.field))                                             \
    odie("option '%s' is a flag: give no value, or 0/1, got '%s'", shown, val);
#define LO_MATCH(type, field, def, desc)                                            \
  if (!strcmp(name, #field)) {                                                      \
    if (LO_NEEDS_##type && !val) return SET_NEEDS_VALUE;                            \
    LO_SET_##type(field) return SET_OK;                                             \
  }
  LAUNCHER_OPTIONS(LO_MATCH)
#undef LO_MATCH

  for (size_t i = 0; i < N_RT; i++) {
    const rt_option *o = &rt_options[i];
    if (strcmp(name, o->name)) continue;
    if (rt_reserved(o->name))
      odie("option '%s' is the launcher's business: dacce-race sets it itself", shown);
    if (!val) return SET_NEEDS_VALUE;
    int x;
    if (o->is_int && parse_uint(val, &x))
      odie("option '%s' wants a non-negative integer, got '%s'", shown, val);
    if (strpbrk(val, " ,:\t\n"))
      odie("option '%s': the value cannot hold spaces, commas or colons (it goes into "
          "DACCE_OPTIONS), got '%s'", shown, val);
    rt_values[i] = val;
    return SET_OK;
  }
  odie("unknown option '%s' (see --help)", shown);
}

/* DACCE_RACE_OPTIONS: "key=value" (or a bare flag) separated by spaces or
 * commas.  The copy is never freed: values point into it. */
/* The next word of the option string at *pp: "key" or "key=value", split
 * in place (key and *val NUL-terminated, *val NULL without '='), words
 * separated by any of seps.  NULL at the end of the string. */
static char *next_word(char **pp, const char *seps, char **val) {
  char *p = *pp;
  while (*p && strchr(seps, *p)) p++;
  if (!*p) return NULL;
  char *key = p;
  while (*p && *p != '=' && !strchr(seps, *p)) p++;
  *val = NULL;
  if (*p == '=') {
    *p++ = 0;
    *val = p;
    while (*p && !strchr(seps, *p)) p++;
  }
  if (*p) *p++ = 0;
  *pp = p;
  return key;
}

static void options_from_env(void) {
  const char *env = getenv("DACCE_RACE_OPTIONS");
  if (!env) return;
  opt_origin = "DACCE_RACE_OPTIONS: ";
  char *s = strdup(env);
  if (!s) die("out of memory");
  char *key, *val;
  for (char *p = s; (key = next_word(&p, " ,\t\n", &val));) {
    char shown[96];
    snprintf(shown, sizeof shown, "%s", key);
    while (key[0] == '-') key++; /* "--quiet" works too */
    if (set_option(key, val, shown) == SET_NEEDS_VALUE)
      die("DACCE_RACE_OPTIONS: option '%s' wants a value (%s=VALUE)", shown, shown);
  }
  opt_origin = "";
}

/* TSAN_OPTIONS, as a project moving from ThreadSanitizer has it set: the
 * flags with a meaning here (halt_on_error, exitcode, suppressions,
 * log_path other than stderr/stdout, report_bugs, report_thread_leaks,
 * detect_deadlocks, report_mutex_bugs, report_signal_unsafe,
 * suppress_equal_addresses) are
 * applied first, so DACCE_RACE_OPTIONS and the command line override them;
 * TSan's other flags (history_size, ...) are ignored.  Separators: spaces,
 * colons, commas, as TSan's. */
static void options_from_tsan_env(void) {
  const char *env = getenv("TSAN_OPTIONS");
  if (!env) return;
  static const char *const known[] = {"halt_on_error",       "exitcode",   "suppressions",
                                      "log_path",            "report_bugs",
                                      "report_thread_leaks", "detect_deadlocks",
                                      "report_mutex_bugs",   "report_signal_unsafe",
                                      "suppress_equal_addresses"};
  opt_origin = "TSAN_OPTIONS: ";
  char *s = strdup(env);
  if (!s) die("out of memory");
  char *key, *val;
  for (char *p = s; (key = next_word(&p, " ,:\t\n", &val));) {
    if (!val) continue;
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
      if (!strcmp(key, known[i]) &&
          !(!strcmp(key, "log_path") && (!strcmp(val, "stderr") || !strcmp(val, "stdout"))))
        set_option(key, val, key);
  }
  opt_origin = "";
}

/* argv options up to the program; returns the index of the program */
static int options_from_argv(int argc, char **argv) {
  int i = 1;
  while (i < argc) {
    const char *a = argv[i];
    if (!strcmp(a, "--")) return i + 1;
    if (a[0] != '-' || !a[1]) return i; /* the program ("-" alone too) */
    if (a[1] != '-') {
      if (!strcmp(a, "-h")) {
        opt.help = 1;
        i++;
        continue;
      }
      die("unknown option '%s' (see --help)", a);
    }
    const char *key = a + 2;
    const char *eq = strchr(key, '=');
    char kbuf[96], shown[128];
    if (eq) {
      snprintf(kbuf, sizeof kbuf, "%.*s", (int)(eq - key), key);
      snprintf(shown, sizeof shown, "--%s", kbuf);
    } else {
      snprintf(kbuf, sizeof kbuf, "%s", key);
      snprintf(shown, sizeof shown, "%s", a);
    }
    if (set_option(kbuf, eq ? eq + 1 : NULL, shown) == SET_NEEDS_VALUE) {
      if (i + 1 >= argc) die("option '%s' wants a value", shown);
      set_option(kbuf, argv[i + 1], shown);
      i++;
    }
    i++;
  }
  return i;
}

static void print_help(void) {
  printf("usage: dacce-race [options] [--] PROGRAM [ARGS...]\n\n"
         "Runs PROGRAM, built with dacce-cc (-fsanitize=thread and the dacce runtime), and\n"
         "reports its data races with full calling contexts.  Exit status: the program's,\n"
         "or the exitcode option when races were reported, 128+N when it was killed by\n"
         "signal N, 2 when it cannot be run.\n\n"
         "Options (--name=VALUE or --name VALUE, dashes or underscores; also from\n"
         "DACCE_RACE_OPTIONS=\"name=value name=value\", which the command line overrides,\n"
         "and TSAN_OPTIONS's halt_on_error, exitcode, suppressions, log_path, report_bugs,\n"
         "report_thread_leaks, detect_deadlocks, report_mutex_bugs, report_signal_unsafe\n"
         "and suppress_equal_addresses, which both override):\n");
#define LO_META_int "=N"
#define LO_META_file "=FILE"
#define LO_META_prefix "=PREFIX"
#define LO_META_flag ""
#define LO_HELP(type, name, def, desc)                                             \
  {                                                                                \
    char left[64];                                                                 \
    snprintf(left, sizeof left, "--%s%s", #name, LO_META_##type);                  \
    for (char *c = left + 2; *c && *c != '='; c++)                                 \
      if (*c == '_') *c = '-';                                                     \
    printf("  %-24s %s\n", left, desc);                                            \
  }
  LAUNCHER_OPTIONS(LO_HELP)
#undef LO_HELP
  printf("\nRuntime options, forwarded to the program in DACCE_OPTIONS:\n");
  for (size_t i = 0; i < N_RT; i++) {
    const rt_option *o = &rt_options[i];
    char left[64];
    if (rt_reserved(o->name) || !strcmp(o->name, "help")) continue;
    int mine = 0;
#define LO_IS_MINE(type, nm, def, desc) mine |= !strcmp(o->name, #nm);
    LAUNCHER_OPTIONS(LO_IS_MINE)
#undef LO_IS_MINE
    if (mine) continue; /* the launcher's option of the same name forwards it */
    snprintf(left, sizeof left, "--%s=%s", o->name, o->is_int ? "N" : "VALUE");
    for (char *c = left + 2; *c && *c != '='; c++)
      if (*c == '_') *c = '-';
    printf("  %-24s %s (default %s)\n", left, o->desc, o->def);
  }
}

/* ------------------------------------------------------------ the program */
typedef struct program {
  const char *word; /* as given */
  char *path;       /* resolved, for exec */
  char *abspath;    /* absolute, for symbolisation */
  int preload;      /* run with LD_PRELOAD=libdacce.so */
  int plain;        /* not instrumented, run for its children (--trace-children) */
} program;

static int is_regular_executable(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

static char *resolve_in_path(const char *word) {
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  char *dirs = strdup(path);
  if (!dirs) die("out of memory");
  char *found = NULL, *save = NULL;
  for (char *d = dirs;; d = NULL) {
    /* strtok_r would skip empty entries, which mean the current directory */
    char *dir = d ? d : save;
    if (!dir) break;
    char *colon = strchr(dir, ':');
    save = colon ? colon + 1 : NULL;
    if (colon) *colon = 0;
    char *cand;
    if (asprintf(&cand, "%s/%s", *dir ? dir : ".", word) < 0) die("out of memory");
    if (is_regular_executable(cand)) {
      found = cand;
      break;
    }
    free(cand);
    if (!save) break;
  }
  free(dirs);
  return found;
}

/* Search like the dynamic loader (roughly: RUNPATH/RPATH, LD_LIBRARY_PATH,
 * the default directories) for a needed library; malloc'd path or NULL. */
static char *find_library(const char *name, const char *rpath, const char *origin) {
  if (strchr(name, '/')) return strdup(name);
  const char *ldlp = getenv("LD_LIBRARY_PATH");
  const char *defaults = "/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
                         "/lib:/usr/lib:/usr/local/lib";
  const char *lists[3] = {rpath, ldlp, defaults};
  for (int k = 0; k < 3; k++) {
    if (!lists[k] || !*lists[k]) continue;
    char *copy = strdup(lists[k]);
    if (!copy) die("out of memory");
    char *save = NULL;
    for (char *dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
      char d[PATH_MAX];
      if (!strncmp(dir, "$ORIGIN", 7))
        snprintf(d, sizeof d, "%s%s", origin, dir + 7);
      else if (!strncmp(dir, "${ORIGIN}", 9))
        snprintf(d, sizeof d, "%s%s", origin, dir + 9);
      else
        snprintf(d, sizeof d, "%s", dir);
      char *cand;
      if (asprintf(&cand, "%s/%s", d, name) < 0) die("out of memory");
      if (access(cand, R_OK) == 0) {
        free(copy);
        return cand;
      }
      free(cand);
    }
    free(copy);
  }
  return NULL;
}

#define TSAN_RUNTIME_MSG                                                              \
  "%s is built with ThreadSanitizer's own runtime: rebuild it with dacce-cc (or "     \
  "-fsanitize=thread and the dacce runtime)"
#define NOT_INSTRUMENTED_MSG                                                          \
  "%s is not instrumented: rebuild it with dacce-cc (or -fsanitize=thread and the "   \
  "dacce runtime)"

#define TRACE_CHILDREN_HINT \
  " (to run a script or test runner that starts instrumented programs: --trace-children)"

static void check_program(program *p) {
  const char *w = p->word;
  if (!strchr(w, '/')) {
    p->path = resolve_in_path(w);
    if (!p->path) die("%s: no such file (not found in PATH)", w);
  } else {
    struct stat st;
    if (stat(w, &st) != 0) {
      if (errno == ENOENT || errno == ENOTDIR) die("%s: no such file", w);
      die("%s: %s", w, strerror(errno));
    }
    if (S_ISDIR(st.st_mode)) die("%s: is a directory", w);
    if (!S_ISREG(st.st_mode)) die("%s: not a regular file", w);
    if (access(w, X_OK) != 0) die("%s: not executable", w);
    p->path = strdup(w);
  }
  char real[PATH_MAX];
  if (!realpath(p->path, real)) die("%s: %s", w, strerror(errno));
  p->abspath = strdup(real);
  if (!p->path || !p->abspath) die("out of memory");
  if (access(p->abspath, R_OK) != 0) die("%s: not readable", w);

  lr_elf_check c;
  if (lr_elf_examine(p->abspath, &c) != 0) {
    if (opt.trace_children) {
      p->plain = 1;
      return;
    }
    die("%s: not an ELF file" TRACE_CHILDREN_HINT, w);
  }
  if (c.needs_libtsan || (c.defines_func_entry && !c.defines_dacce)) die(TSAN_RUNTIME_MSG, w);
  if (c.defines_func_entry) {
    p->preload = 0; /* the static runtime is inside */
  } else if (c.references_func_entry) {
    p->preload = !c.needs_libdacce;
  } else {
    /* maybe an uninstrumented program using instrumented libraries */
    int instrumented = 0, has_dacce = c.needs_libdacce;
    char *dir = strdup(p->abspath);
    if (!dir) die("out of memory");
    const char *origin = dirname(dir);
    for (char **n = c.needed; n && *n; n++) {
      char *lib = find_library(*n, c.rpath, origin);
      if (!lib) continue;
      lr_elf_check lc;
      if (lr_elf_examine(lib, &lc) == 0) {
        if (lc.needs_libtsan || (lc.defines_func_entry && !lc.defines_dacce)) {
          fprintf(stderr, "dacce-race: " TSAN_RUNTIME_MSG " (library %s)\n", w, lib);
          exit(2);
        }
        if (lc.defines_dacce) has_dacce = 1;
        if (lc.references_func_entry) instrumented = 1;
        lr_elf_check_free(&lc);
      }
      free(lib);
    }
    free(dir);
    if (!instrumented && opt.trace_children) p->plain = 1;
    else if (!instrumented) die(NOT_INSTRUMENTED_MSG TRACE_CHILDREN_HINT, w);
    else p->preload = !has_dacce;
  }
  lr_elf_check_free(&c);
}

/* <dir of dacce-race>/../lib/dacce, as dacce-cc finds it */
static char *runtime_library(void) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) die("cannot locate itself: %s", strerror(errno));
  exe[n] = 0;
  char lib[PATH_MAX + 32], real[PATH_MAX];
  snprintf(lib, sizeof lib, "%s/../lib/dacce/libdacce.so", dirname(exe));
  if (!realpath(lib, real)) die("runtime library %s missing: %s", lib, strerror(errno));
  return strdup(real);
}

/* ------------------------------------------------------------ outputs */
static FILE *open_output(const char *path, const char *what) {
  FILE *f = fopen(path, "w");
  if (!f) die("cannot write %s file %s: %s", what, path, strerror(errno));
  return f;
}

static void check_log_prefix(const char *prefix) {
  char *copy = strdup(prefix);
  if (!copy) die("out of memory");
  const char *dir = strchr(prefix, '/') ? dirname(copy) : ".";
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    die("cannot write --log-path files %s.<pid>: directory %s missing", prefix, dir);
  if (access(dir, W_OK | X_OK) != 0)
    die("cannot write --log-path files %s.<pid>: directory %s not writable", prefix, dir);
  free(copy);
}

static void write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= (size_t)w;
  }
}

/* text reports of each process go to PREFIX.<pid>, opened at its first report */
#define MAX_LOGS 64
static struct {
  long pid;
  int fd;
} logs[MAX_LOGS];
static int nlogs;

static int log_fd(long pid) {
  for (int i = 0; i < nlogs; i++)
    if (logs[i].pid == pid) return logs[i].fd;
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s.%ld", opt.log_path, pid);
  int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) {
    warn("cannot write %s: %s; its reports go to stderr", path, strerror(errno));
    fd = 2;
  }
  if (nlogs == MAX_LOGS) {
    if (logs[0].fd != 2) close(logs[0].fd);
    memmove(logs, logs + 1, sizeof logs[0] * (MAX_LOGS - 1));
    nlogs--;
  }
  logs[nlogs].pid = pid;
  logs[nlogs].fd = fd;
  nlogs++;
  return fd;
}

/* ------------------------------------------------------------ reports */
static struct {
  lr_supps *supps;
  FILE *json;
  lr_sarif *sarif;
  unsigned long printed, malformed;
  int halt_here; /* launcher-side halt_on_error (with suppressions) */
  pid_t child;
  int halted;
  int ack_fd; /* write end of the acknowledgement pipe (report_ack_fd), or <= 0 */
  int verdict; /* -1, or what the program's __tsan_on_finalize made of its run */
  unsigned long processes; /* instrumented processes that started (their records) */
  const program *prog; /* the program run */
  /* the program's end, seen while reports were still being read */
  int reaped, status, lingering_noted;
  struct timespec reaped_at;
  /* a write end of the reports' pipe kept until the program ends, so that
   * a program that closed its own (a daemon's closefrom, as the first
   * thing it does) and opens ours again through /proc (report_via) finds
   * the pipe still read; and a descriptor that becomes readable when the
   * program ends (pidfd_open), or -1 */
  int hold_fd, pidfd;
  pid_t *announced; /* instrumented processes that said they started */
  size_t n_announced, cap_announced;
  /* suppress_equal_addresses: the byte ranges of the races printed, [lo,
   * hi), and the process of each (an address means nothing in another) */
  uint64_t (*ranges)[3];
  size_t nranges, capranges;
  /* the reports printed, by their key (report_key), with the pid of the
   * first: an open-addressing set, 0 empty */
  struct printed_key {
    uint64_t key;
    long pid;
  } *keys;
  size_t nkeys, capkeys;
  unsigned long repeats; /* reports not printed again (another process's) */
} R = {.verdict = -1, .hold_fd = -1, .pidfd = -1};

/* suppress_equal_addresses: the bytes of both accesses of a race, from the
 * lowest to the highest, [*lo, *hi); 0 when the option is off, the report
 * is of another kind (those always pass) or names no bytes. */
static int equal_range(const lr_report *r, uint64_t *lo, uint64_t *hi) {
  if (!opt.suppress_equal_addresses ||
      (strcmp(r->kind, "data-race") && strcmp(r->kind, "heap-use-after-free")))
    return 0;
  *lo = UINT64_MAX, *hi = 0;
  for (int i = 0; i < 2; i++) {
    const lr_access *a = &r->acc[i];
    if (!a->size) continue;
    if (a->address < *lo) *lo = a->address;
    if (a->address + a->size > *hi) *hi = a->address + a->size;
  }
  return *lo < *hi;
}

/* Has a race on bytes overlapping this one's been printed?  Asked before
 * the report is symbolized, which it does not need: a program that races
 * on one variable a million times costs one symbolization, not a million. */
static int equal_address(const lr_report *r) {
  uint64_t lo, hi;
  if (!equal_range(r, &lo, &hi)) return 0;
  for (size_t i = 0; i < R.nranges; i++)
    if (lo < R.ranges[i][1] && R.ranges[i][0] < hi && R.ranges[i][2] == (uint64_t)r->pid)
      return 1;
  return 0;
}

/* The report is printed: its range is noted (not before the suppressions
 * were asked: a suppressed race does not hide a later one on its bytes). */
static void equal_address_note(const lr_report *r) {
  uint64_t lo, hi;
  if (!equal_range(r, &lo, &hi)) return;
  if (R.nranges == R.capranges) {
    R.capranges = R.capranges ? 2 * R.capranges : 16;
    R.ranges = realloc(R.ranges, R.capranges * sizeof *R.ranges);
    if (!R.ranges) die("out of memory");
  }
  R.ranges[R.nranges][0] = lo;
  R.ranges[R.nranges][1] = hi;
  R.ranges[R.nranges++][2] = (uint64_t)r->pid;
}

/* ------------------------------------------------------------ repeats
 * The runtime prints each pair of stacks once per process; the launcher,
 * which hears from every process of a run (a forked child, a test suite's
 * many programs under --trace-children), prints it once per run: a test
 * suite whose programs share a library would otherwise repeat the same
 * race in every program that reaches it.  A report is its kind and its
 * stacks as symbolised (function, file, line and column of each frame,
 * else the module's name and offset), which do not change from one
 * process, or one program linked with the same sources, to the next;
 * addresses and thread numbers do, and are left out.  A repeat gets one
 * line instead of the report, and still counts as reported: the process
 * exits with the exitcode, as it would have had it been printed. */
static uint64_t fnv_str(uint64_t h, const char *s) {
  return lr_fnv1a(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static uint64_t stack_key(const lr_stack *st) {
  uint64_t h = LR_FNV_START;
  for (int i = 0; i < st->n; i++) {
    const lr_frame *f = &st->f[i];
    if (f->function || f->file) {
      const int where[3] = {f->line, f->column, f->inlined};
      h = lr_fnv1a(fnv_str(fnv_str(h, f->function), f->file), where, sizeof where);
    } else {
      h = lr_fnv1a(fnv_str(h, lr_basename(f->module)), &f->offset, sizeof f->offset);
    }
  }
  return h;
}

static uint64_t report_key(const lr_report *r) {
  uint64_t h = fnv_str(fnv_str(LR_FNV_START, r->kind), r->misuse);
  uint64_t a = stack_key(&r->acc[0].st), b = stack_key(&r->acc[1].st);
  if (!strcmp(r->kind, "data-race") && a > b) { /* either access may come first */
    const uint64_t x = a;
    a = b, b = x;
  }
  h = lr_fnv1a(lr_fnv1a(h, &a, sizeof a), &b, sizeof b);
  for (int i = 0; i < r->nedges; i++) {
    const uint64_t e[2] = {stack_key(&r->edges[i].wanted), stack_key(&r->edges[i].held)};
    h = lr_fnv1a(h, e, sizeof e);
  }
  for (int i = 0; i < r->nthreads; i++) /* a thread leak is where it was made */
    if (!strcmp(r->kind, "thread-leak") && r->threads[i].id == r->leak_thread) {
      const uint64_t c = stack_key(&r->threads[i].created);
      h = lr_fnv1a(h, &c, sizeof c);
    }
  return h | 1;
}

/* Was a report of this key printed before?  The pid that printed it first,
 * else 0 (and the key is noted as printed by pid). */
static long printed_before(uint64_t key, long pid) {
  if (2 * (R.nkeys + 1) > R.capkeys) {
    const size_t cap = R.capkeys ? 2 * R.capkeys : 64;
    struct printed_key *k = calloc(cap, sizeof *k);
    if (!k) die("out of memory");
    for (size_t i = 0; i < R.capkeys; i++)
      if (R.keys[i].key) {
        size_t j = R.keys[i].key & (cap - 1);
        while (k[j].key) j = (j + 1) & (cap - 1);
        k[j] = R.keys[i];
      }
    free(R.keys);
    R.keys = k, R.capkeys = cap;
  }
  size_t j = key & (R.capkeys - 1);
  for (; R.keys[j].key; j = (j + 1) & (R.capkeys - 1))
    if (R.keys[j].key == key) return R.keys[j].pid;
  R.keys[j] = (struct printed_key){key, pid};
  R.nkeys++;
  return 0;
}

/* The line that stands for a repeat: where, in which process of which
 * program, and whose report it repeats. */
static void repeat_note(const lr_report *r, long first, lr_buf *b) {
  char exe[PATH_MAX], link[64];
  snprintf(link, sizeof link, "/proc/%ld/exe", r->pid);
  const ssize_t n = readlink(link, exe, sizeof exe - 1);
  exe[n > 0 ? n : 0] = 0;
  const lr_frame *f = r->acc[0].st.n ? &r->acc[0].st.f[0] : NULL;
  lr_bput(b, "dacce-race: %s", r->kind);
  if (f && f->function) lr_bput(b, " in %s", f->function);
  if (f && f->file) lr_bput(b, " (%s:%d)", lr_basename(f->file), f->line);
  lr_bput(b, " again, in process %ld (%s): reported above for process %ld\n", r->pid,
          n > 0 ? lr_basename(exe) : "?", first);
}

/* The runtime waits after each raw report until it was printed or
 * suppressed: a dc_report_ack per report (encoder/internal.h,
 * racedet/report.c wait_ack), to its pid (0: whoever waits).  Never
 * blocking: a runtime that stopped waiting leaves answers in the pipe, and
 * a full pipe drops more. */
static void ack(long pid, int printed) {
  const dc_report_ack a = {(int32_t)pid, printed};
  if (R.ack_fd > 0 && write(R.ack_fd, &a, sizeof a) < 0 && errno != EAGAIN) R.ack_fd = -1;
}

/* The runtime's record of a verdict __tsan_on_finalize changed at exit
 * (racedet/report.c rd_report_verdict): the program's own process only, a
 * forked child's exit decides nothing.  Not a report: no acknowledgement. */
static int handle_verdict(const char *line, size_t len) {
  /* the line is not NUL-terminated (the read buffer goes on after it):
   * sscanf gets a copy (before, it measured the buffer past the line) */
  static const char head[] = "{\"kind\":\"verdict\",";
  char copy[128];
  if (len < sizeof head - 1 || len >= sizeof copy || memcmp(line, head, sizeof head - 1))
    return 0;
  memcpy(copy, line, len);
  copy[len] = 0;
  int pid, failed, verdict;
  if (sscanf(copy, "{\"kind\":\"verdict\",\"pid\":%d,\"failed\":%d,\"verdict\":%d}", &pid,
             &failed, &verdict) != 3)
    return 0;
  if (pid == R.child) R.verdict = verdict != 0;
  return 1;
}

/* The runtime's record that an instrumented process started
 * (racedet/report.c rd_report_started).  Not a report: no
 * acknowledgement. */
static int handle_process(const char *line, size_t len) {
  static const char head[] = "{\"kind\":\"process\",\"pid\":";
  if (len < sizeof head - 1 || memcmp(line, head, sizeof head - 1)) return 0;
  R.processes++;
  const long pid = strtol(line + sizeof head - 1, NULL, 10);
  if (pid > 1 && pid != R.child) {
    if (R.n_announced == R.cap_announced) {
      R.cap_announced = R.cap_announced ? 2 * R.cap_announced : 16;
      R.announced = realloc(R.announced, R.cap_announced * sizeof *R.announced);
      if (!R.announced) die("out of memory");
    }
    R.announced[R.n_announced++] = (pid_t)pid;
  }
  return 1;
}

/* What handle_report did with a line, for its answer: none for an empty
 * line (nothing waits for it). */
enum { REPORT_DROPPED, REPORT_PRINTED, REPORT_UNREAD, REPORT_STOPPED, REPORT_EMPTY };

static int handle_report(const char *line, size_t len, long *pid);
static void handle_line(const char *line, size_t len) {
  if (handle_verdict(line, len) || handle_process(line, len)) return;
  long pid = 0;
  const int what = handle_report(line, len, &pid);
  /* a line it could not read is answered to whoever waits, as printed (the
   * process then fails, not passes); a process it stopped is not waiting */
  if (what == REPORT_UNREAD) ack(0, 1);
  else if (what != REPORT_STOPPED && what != REPORT_EMPTY) ack(pid, what == REPORT_PRINTED);
}

static int handle_report(const char *line, size_t len, long *pid) {
  while (len && (line[len - 1] == '\r' || line[len - 1] == ' ')) len--;
  if (!len) return REPORT_EMPTY;
  lr_report r;
  char why[256];
  if (lr_parse_raw(line, len, &r, why, sizeof why) != 0) {
    R.malformed++;
    warn("ignoring a malformed report line (%s)", why);
    return REPORT_UNREAD;
  }
  *pid = r.pid;
  if (equal_address(&r)) {
    lr_report_free(&r);
    return REPORT_DROPPED;
  }
  lr_symbolize(&r);
  if (lr_supps_match(R.supps, &r) >= 0) {
    lr_report_free(&r);
    return REPORT_DROPPED;
  }
  equal_address_note(&r);
  lr_buf b = {0};
  long first = printed_before(report_key(&r), r.pid);
  if (first == r.pid || opt.report_repeats) first = 0; /* (in its own process, the runtime's
                                                         * judgment: it printed both) */
  if (first) {
    R.repeats++;
    if (!opt.quiet) repeat_note(&r, first, &b);
  } else {
    R.printed++;
    if (!opt.quiet) {
      lr_text_opts to = {opt.tsan_header};
      lr_render_text(&r, &to, &b);
    }
  }
  if (b.n) write_all(*opt.log_path ? log_fd(r.pid) : 2, b.p, b.n);
  b.n = 0;
  if (R.json && !first) {
    lr_render_json(&r, &b);
    fwrite(b.p, 1, b.n, R.json);
    fflush(R.json);
  }
  if (R.sarif && !first) lr_sarif_add(R.sarif, &r);
  lr_buf_free(&b);
  lr_report_free(&r);
  if (R.halt_here && R.prog->plain) {
    /* the process that reported, not the command that started it: the
     * others go on, as each would stop itself at its own first report */
    if (*pid > 1) {
      fprintf(stderr, "dacce-race: halt_on_error: stopping process %ld after its first report\n",
              *pid);
      kill((pid_t)*pid, SIGKILL);
      return REPORT_STOPPED;
    }
  } else if (R.halt_here && !R.halted) {
    R.halted = 1;
    fprintf(stderr, "dacce-race: halt_on_error: stopping the program after the first report\n");
    kill(R.child, SIGKILL);
  }
  return REPORT_PRINTED;
}

#define MAX_LINE (16u << 20)

/* Reports longer than PIPE_BUF arrive as chunks "\x1e<pid>:<more>:<payload>"
 * (racedet/report.c emit_raw), each written atomically; reassemble them per
 * process, so reports of forked children never interleave. */
typedef struct partial {
  long pid;
  char *p;
  size_t n;
} partial;
static partial *partials;
static size_t n_partials;

static void handle_chunk(const char *line, size_t len) {
  char *end;
  long pid = strtol(line + 1, &end, 10);
  if (end >= line + len - 3 || *end != ':' || (end[1] != '0' && end[1] != '1') || end[2] != ':') {
    R.malformed++;
    warn("ignoring a malformed report chunk");
    ack(0, 1); /* its report's, perhaps: a waiting runtime goes on */
    return;
  }
  int more = end[1] == '1';
  const char *payload = end + 3;
  size_t plen = len - (size_t)(payload - line);
  partial *pt = NULL;
  for (size_t i = 0; i < n_partials; i++)
    if (partials[i].pid == pid) pt = &partials[i];
  if (!pt) {
    partial *np = realloc(partials, (n_partials + 1) * sizeof *np);
    if (!np) die("out of memory");
    partials = np;
    pt = &partials[n_partials++];
    *pt = (partial){pid, NULL, 0};
  }
  if (pt->n + plen > MAX_LINE) {
    R.malformed++;
    warn("ignoring an over-long report from process %ld", pid);
    free(pt->p);
    pt->p = NULL;
    pt->n = 0;
    return;
  }
  char *np = realloc(pt->p, pt->n + plen + 1);
  if (!np) die("out of memory");
  pt->p = np;
  memcpy(pt->p + pt->n, payload, plen);
  pt->n += plen;
  if (!more) {
    handle_line(pt->p, pt->n);
    free(pt->p);
    pt->p = NULL;
    pt->n = 0;
  }
}

static void handle_input_line(const char *line, size_t len) {
  if (len && line[0] == '\x1e')
    handle_chunk(line, len);
  else
    handle_line(line, len);
}

/* the program while it runs, for forward_signal (0: ended) */
static volatile sig_atomic_t child_pid;

/* Is process pid alive (and not a zombie, which holds no descriptor)? */
static int alive(pid_t pid) {
  char path[64], st[256];
  snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
  FILE *f = fopen(path, "r");
  if (!f) return 0;
  const char *state = NULL;
  if (fgets(st, sizeof st, f)) state = strrchr(st, ')');
  fclose(f);
  return state && state[1] == ' ' && state[2] != 'Z';
}

/* The channel stays open as long as any process holds it: the program's
 * children, forked or started by it, that it left running.  Their reports
 * are still read (and decide the exit status), but a silent wait looks
 * like a hang: two seconds after the program ended, say what is waited
 * for; Ctrl-C (or SIGTERM) then ends the wait. */
static void watch_program(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  if (!R.reaped) {
    int st;
    if (waitpid(R.child, &st, WNOHANG) != R.child) return;
    R.reaped = 1, R.status = st, R.reaped_at = now;
    child_pid = 0;
    if (R.hold_fd >= 0) close(R.hold_fd); /* EOF once the rest let go */
    R.hold_fd = -1;
    signal(SIGINT, SIG_DFL);
    signal(SIGQUIT, SIG_DFL);
    return;
  }
  if (R.lingering_noted || now.tv_sec - R.reaped_at.tv_sec < 2) return;
  R.lingering_noted = 1;
  lr_buf b = {0};
  for (size_t i = 0; i < R.n_announced; i++)
    if (alive(R.announced[i])) lr_bput(&b, "%s%d", b.n ? ", " : " (instrumented: ", (int)R.announced[i]);
  if (b.n) lr_bputs(&b, ")");
  fprintf(stderr,
          "dacce-race: %s has ended; waiting for the processes it left running, which may "
          "still report%s; Ctrl-C stops waiting\n",
          R.prog->word, b.n ? b.p : "");
  lr_buf_free(&b);
}

static void read_reports(int fd) {
  char *buf = NULL;
  size_t n = 0, cap = 0;
  int skipping = 0; /* inside an over-long line */
  for (;;) {
    if (cap - n < 65536) {
      cap = cap ? cap * 2 : 131072;
      char *nb = realloc(buf, cap);
      if (!nb) die("out of memory");
      buf = nb;
    }
    if (!R.lingering_noted) {
      struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = R.pidfd, .events = POLLIN}};
      const int k = poll(p, R.pidfd >= 0 ? 2 : 1, 500);
      if (k == 0 || (k < 0 && errno == EINTR)) { /* nothing for half a second */
        watch_program();
        continue;
      }
      if (k > 0 && R.pidfd >= 0 && p[1].revents) { /* the program ended */
        close(R.pidfd);
        R.pidfd = -1;
        watch_program();
        if (!p[0].revents) continue;
      }
    }
    ssize_t k = read(fd, buf + n, cap - n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) break;
    size_t start = 0, end = n + (size_t)k;
    for (size_t i = n; i < end; i++) {
      if (buf[i] != '\n') continue;
      if (!skipping) handle_input_line(buf + start, i - start);
      skipping = 0;
      start = i + 1;
      if (R.halted) break;
    }
    if (R.halted) break;
    memmove(buf, buf + start, end - start);
    n = end - start;
    if (n > MAX_LINE) {
      if (!skipping) warn("ignoring a report line longer than %u bytes", MAX_LINE);
      skipping = 1;
      n = 0;
    }
    /* keep the buffer from growing without bound on long lines */
    if (cap > 4 * MAX_LINE && n < cap / 4) {
      char *nb = realloc(buf, cap / 2);
      if (nb) {
        buf = nb;
        cap /= 2;
      }
    }
  }
  if (n && !skipping && !R.halted) {
    R.malformed++;
    warn("ignoring an incomplete report line at the end (%zu bytes)", n);
  }
  free(buf);
}

/* ------------------------------------------------------------ running */
/* fd moved to 100 or above, out of the way of programs that expect their
 * first open() to give 3 (close-on-exec; the child clears it) */
static int high_fd(int fd) {
  int h = fcntl(fd, F_DUPFD_CLOEXEC, 100);
  if (h < 0) return fd;
  close(fd);
  return h;
}

static void forward_signal(int sig) {
  if (child_pid > 0) {
    kill((pid_t)child_pid, sig);
    return;
  }
  /* the program has ended (watch_program): stop waiting for what it left */
  signal(sig, SIG_DFL);
  raise(sig);
}

/* plain: PROGRAM is not instrumented (--trace-children): the programs it
 * starts keep their own exit status only when the launcher printed none of
 * their reports, so that a test runner sees which of them raced */
static char *dacce_options(int wfd, int ackfd, int plain, const char *via) {
  lr_buf b = {0};
  const char *user = getenv("DACCE_OPTIONS");
  if (user && *user) {
    lr_bputs(&b, user);
    lr_bputs(&b, " ");
  }
  for (size_t i = 0; i < N_RT; i++)
    if (rt_values[i]) lr_bput(&b, "%s=%s:", rt_options[i].name, rt_values[i]);
  lr_bput(&b, "exitcode=%d:", opt.exitcode);
  if (opt.halt_on_error && !R.halt_here) lr_bputs(&b, "halt_on_error=1:");
  /* a runtime that can keep the program's own exit status lets suppressed
   * reports leave it alone (see exit_status) */
  if (rt_has("override_exit_status"))
    lr_bputs(&b, plain ? "override_exit_status=2:" : "override_exit_status=0:");
  lr_bput(&b, "raw_reports=/dev/fd/%d:report_ack_fd=%d:report_via=%s:report_text=0", wfd, ackfd,
          via);
  return b.p;
}

static char **child_env(const char *options, const char *preload) {
  size_t n = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 3, sizeof *env);
  if (!env) die("out of memory");
  size_t k = 0;
  const char *old_preload = NULL;
  for (size_t i = 0; i < n; i++) {
    if (!strncmp(environ[i], "DACCE_OPTIONS=", 14)) continue;
    if (preload && !strncmp(environ[i], "LD_PRELOAD=", 11)) {
      old_preload = environ[i] + 11;
      continue;
    }
    env[k++] = environ[i];
  }
  if (asprintf(&env[k++], "DACCE_OPTIONS=%s", options) < 0) die("out of memory");
  if (preload) {
    int r = old_preload && *old_preload
                ? asprintf(&env[k], "LD_PRELOAD=%s:%s", preload, old_preload)
                : asprintf(&env[k], "LD_PRELOAD=%s", preload);
    if (r < 0) die("out of memory");
    k++;
  }
  env[k] = NULL;
  return env;
}

static int exit_status(const program *p, int status) {
  if (WIFSIGNALED(status) && !R.halted) {
    int sig = WTERMSIG(status);
    const char *abbrev = sigabbrev_np(sig);
    fprintf(stderr, "dacce-race: %s killed by signal %d (SIG%s)\n", p->word, sig,
            abbrev ? abbrev : "?");
    return 128 + sig;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  /* the program's __tsan_on_finalize overrode the verdict: a failure is
   * exitcode; a pass is the program's own status, which the runtime left */
  if (R.verdict >= 0) return R.verdict ? opt.exitcode : code;
  if (R.printed) return opt.exitcode;
  /* Reports were found but all suppressed: a runtime without
   * override_exit_status replaced the program's status by exitcode at exit;
   * the program's own status is lost, take it as success. */
  if (lr_supps_total(R.supps) && code == opt.exitcode && !rt_has("override_exit_status")) return 0;
  return code;
}

/* --trace-children with a PROGRAM that is not instrumented: how many
 * instrumented processes it started.  None (and no report) is an error,
 * not a clean run: the programs it ran were not built with dacce-cc, or
 * could not reach the launcher even through /proc (report_via: a program
 * running as another user; its reports, if any, then went to stderr as
 * text, and its own exit status says so, which the runner between may not
 * pass on). */
static void trace_summary(const program *p, int *code) {
  if (!R.processes && !R.printed) {
    fprintf(stderr,
            "dacce-race: no instrumented program reached dacce-race under %s "
            "(--trace-children): build the programs it starts with dacce-cc (a program that "
            "cannot reach dacce-race, running as another user, prints its reports on stderr "
            "as text)\n",
            p->word);
    if (*code == 0) *code = 2;
  } else if (!opt.quiet) {
    fprintf(stderr, "dacce-race: %lu instrumented process%s ran under %s, %lu report%s",
            R.processes, R.processes == 1 ? "" : "es", p->word, R.printed,
            R.printed == 1 ? "" : "s");
    if (R.repeats)
      fprintf(stderr, " (and %lu repeat%s of them in other processes, not printed again)",
              R.repeats, R.repeats == 1 ? "" : "s");
    fputc('\n', stderr);
  }
}

int main(int argc, char **argv) {
  options_from_tsan_env();
  options_from_env();
  int first = options_from_argv(argc, argv);
  if (opt.help) {
    print_help();
    return 0;
  }
  if (opt.version) {
    printf("dacce-race %s\n", DACCE_VERSION);
    return 0;
  }
  if (first >= argc) die("no program to run (usage: dacce-race [options] [--] PROGRAM [ARGS...])");
  if (opt.exitcode > 255) die("option '--exitcode' must be at most 255, got %d", opt.exitcode);

  program prog = {argv[first], NULL, NULL, 0, 0};
  check_program(&prog);
  char *preload = prog.preload ? runtime_library() : NULL;

  if (*opt.suppressions) {
    char err[512];
    R.supps = lr_supps_load(opt.suppressions, err, sizeof err);
    if (!R.supps) {
      fprintf(stderr, "%s\n", err);
      return 2;
    }
  }
  if (*opt.log_path) check_log_prefix(opt.log_path);
  if (*opt.json) R.json = open_output(opt.json, "--json");
  FILE *sarif_out = NULL;
  if (*opt.sarif) sarif_out = open_output(opt.sarif, "--sarif");

  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd)) die("cannot get the working directory: %s", strerror(errno));
  if (sarif_out) {
    R.sarif = lr_sarif_new(cwd);
    if (!R.sarif) die("out of memory");
  }
  lr_progmap pm = {prog.word, prog.abspath, cwd};
  lr_sym_init(&pm);
  /* with suppressions the launcher decides what halts the program */
  R.halt_here = opt.halt_on_error && R.supps;

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) die("cannot create a pipe: %s", strerror(errno));
  int wfd = high_fd(fds[1]);
  /* the acknowledgements: the program reads, the launcher writes */
  int acks[2];
  if (pipe2(acks, O_CLOEXEC) != 0) die("cannot create a pipe: %s", strerror(errno));
  int ackfd = high_fd(acks[0]);
  R.ack_fd = acks[1];
  fcntl(R.ack_fd, F_SETFL, O_NONBLOCK);
  /* our own ends of both, for a program whose descriptors were closed on
   * the way (a runner that closes what it did not open): it opens them
   * again through /proc (the runtime's report_via) */
  struct stat st_r, st_a;
  char via[96];
  if (fstat(fds[0], &st_r) != 0 || fstat(R.ack_fd, &st_a) != 0)
    die("cannot stat a pipe: %s", strerror(errno));
  snprintf(via, sizeof via, "%d/%d/%d/%llu/%llu", (int)getpid(), fds[0], R.ack_fd,
           (unsigned long long)st_r.st_ino, (unsigned long long)st_a.st_ino);
  char *options = dacce_options(wfd, ackfd, prog.plain, via);
  char **env = child_env(options, preload);

  struct sigaction ign = {0}, fwd = {0}, old_int, old_quit;
  ign.sa_handler = SIG_IGN;
  fwd.sa_handler = forward_signal;
  fwd.sa_flags = SA_RESTART;
  sigaction(SIGINT, &ign, &old_int); /* the terminal sends it to the program too */
  sigaction(SIGQUIT, &ign, &old_quit);
  sigaction(SIGTERM, &fwd, NULL);
  sigaction(SIGHUP, &fwd, NULL);
  signal(SIGPIPE, SIG_IGN);
  fflush(NULL);

  pid_t pid = fork();
  if (pid < 0) die("cannot fork: %s", strerror(errno));
  if (pid == 0) {
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    signal(SIGTERM, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    if (fcntl(wfd, F_SETFD, 0) != 0 || fcntl(ackfd, F_SETFD, 0) != 0) _exit(127);
    execve(prog.path, argv + first, env);
    fprintf(stderr, "dacce-race: cannot run %s: %s\n", prog.word, strerror(errno));
    _exit(127);
  }
  child_pid = pid;
  R.child = pid;
  R.prog = &prog;
  R.hold_fd = wfd;
  R.pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* (-1 before Linux 5.3: half-second polls) */
  close(ackfd);

  read_reports(fds[0]);
  if (R.hold_fd >= 0) close(R.hold_fd); /* (halted) */
  if (R.pidfd >= 0) close(R.pidfd);
  close(fds[0]);
  close(R.ack_fd);
  int status = R.status;
  while (!R.reaped && waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      status = 1 << 8;
      break;
    }
  }
  child_pid = 0;

  int code = exit_status(&prog, status);
  if (prog.plain) trace_summary(&prog, &code);
  lr_supps_summary(R.supps, stderr);
  if (R.malformed) warn("%lu report line%s could not be read", R.malformed, R.malformed == 1 ? "" : "s");
  if (R.json && fclose(R.json) != 0) {
    warn("writing %s failed", opt.json);
    if (code == 0) code = 2;
  }
  if (sarif_out) {
    if (lr_sarif_write(R.sarif, sarif_out) != 0 || fclose(sarif_out) != 0) {
      warn("writing %s failed", opt.sarif);
      if (code == 0) code = 2;
    }
    lr_sarif_free(R.sarif);
  }
  for (int i = 0; i < nlogs; i++)
    if (logs[i].fd != 2) close(logs[i].fd);
  lr_supps_free(R.supps);
  lr_sym_fini();
  for (char **e = env; *e; e++)
    if (!strncmp(*e, "DACCE_OPTIONS=", 14) || (preload && !strncmp(*e, "LD_PRELOAD=", 11)))
      free(*e); /* ours; the rest belong to environ */
  free(env);
  free(options);
  free(preload);
  free(prog.path);
  free(prog.abspath);
  return code;
}
