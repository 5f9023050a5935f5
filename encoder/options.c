/* options.c: the runtime's options, generated from the DC_OPTIONS table in
 * internal.h.  Read once from DACCE_OPTIONS ("key=value" separated by spaces,
 * commas or colons).  A bad option is a one-line error and exit status 70
 * (the runtime's fatal-error status; the launcher checks options first and
 * exits with 2). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

dc_options dc_opt = {
#define DC_OPT_DEFAULT(type, name, def, desc) .name = def,
    DC_OPTIONS(DC_OPT_DEFAULT)
#undef DC_OPT_DEFAULT
};
int dc_capture_mode = DC_CAPTURE_DACCE;

static int dc_key_is(const char *key, size_t klen, const char *name) {
  size_t i = 0;
  while (i < klen && name[i] && key[i] == name[i]) i++;
  return i == klen && !name[i];
}

/* a non-negative int, decimal, 0x hex or 0 octal, as strtol's base 0 reads
 * it (the runtime calls no strtol: it would be the program's, intercepted) */
static int digit_of(char c, int base) {
  const int d = c >= '0' && c <= '9' ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : 99;
  return d < base ? d : -1;
}
static int parse_int(const char *v, int *out) {
  const char *c = v;
  while (*c == ' ' || (*c >= '\t' && *c <= '\r')) c++;
  if (*c == '+') c++;
  int base = 10;
  if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X') && digit_of(c[2], 16) >= 0) base = 16, c += 2;
  else if (c[0] == '0') base = 8;
  if (digit_of(*c, base) < 0) return -1;
  long long x = 0;
  for (int d; (d = digit_of(*c, base)) >= 0; c++)
    if ((x = x * base + d) > 0x7fffffff) return -1;
  if (*c) return -1;
  *out = (int)x;
  return 0;
}

static int set_option(const char *key, size_t klen, const char *val) {
#define DC_OPT_SET_int(name)                                                     \
  if (parse_int(val, &dc_opt.name))                                            \
    dc_die("dacce: option '%s' wants a non-negative integer, got '%s'\n", #name, val); \
  return 0;
#define DC_OPT_SET_str(name)                                                     \
  dc_opt.name = val;                                                           \
  return 0;
#define DC_OPT_MATCH(type, name, def, desc)                                     \
  if (klen == sizeof(#name) - 1 && dc_key_is(key, klen, #name)) { DC_OPT_SET_##type(name) }
  DC_OPTIONS(DC_OPT_MATCH)
#undef DC_OPT_MATCH
  return -1;
}

/* The separators of option strings: spaces, commas, colons, and with ws
 * (TSan's flag strings) tabs and newlines too. */
static int is_sep(char c, int ws) {
  return c == ' ' || c == ',' || c == ':' || (ws && (c == '\t' || c == '\n'));
}

/* The next "key=value" of an option string from p: the key [*k, *k + *kl),
 * the value [*v, *v + *vl) (*v NULL without '=').  Returns where the scan
 * goes on, or NULL at the end of the string. */
static const char *next_option(const char *p, int ws, const char **k, size_t *kl, const char **v,
                               size_t *vl) {
  while (is_sep(*p, ws)) p++;
  if (!*p) return NULL;
  *k = p;
  while (*p && *p != '=' && !is_sep(*p, ws)) p++;
  *kl = (size_t)(p - *k);
  *v = NULL;
  *vl = 0;
  if (*p == '=') {
    *v = ++p;
    while (*p && !is_sep(*p, ws)) p++;
    *vl = (size_t)(p - *v);
  }
  return p;
}

/* The value of key in a TSan flag string, or NULL; *len its length. */
static const char *flag_value(const char *s, const char *key, size_t *len) {
  const char *k, *v;
  size_t kl;
  for (const char *p = s; (p = next_option(p, 1, &k, &kl, &v, len));)
    if (v && dc_key_is(k, kl, key)) return v;
  return NULL;
}

/* DACCE_OPTIONS' value, or 0.  The runtime may start before libc has set
 * up the environment (environ is 0 until libc's own initialiser runs, after
 * a program's .preinit_array functions, which clang instruments: their
 * call hook makes the first thread), and getenv then finds nothing: so the
 * environment is read from /proc/self/environ, as the kernel laid it out
 * (tests/racedet/unborn_access.c; without it the program ran with the
 * default options, and the launcher got no report). */
static const char *options_env(void) {
  static const char key[] = "DACCE_OPTIONS=";
  if (environ) return getenv("DACCE_OPTIONS");
  int fd = dc_open("/proc/self/environ", O_RDONLY | O_CLOEXEC, 0);
  if (fd < 0) return 0;
  size_t cap = 1 << 16, n = 0;
  char *buf = dc_mmap(cap);
  for (long r; (r = dc_read(fd, buf + n, cap - 1 - n)) > 0;) {
    n += (size_t)r;
    if (n == cap - 1) { /* a large environment: twice the room */
      char *more = dc_mmap(2 * cap);
      dc_memcpy(more, buf, n);
      dc_munmap(buf, cap);
      buf = more, cap *= 2;
    }
  }
  dc_close(fd);
  buf[n] = 0; /* entries end with a 0 each; the last one too */
  const char *found = 0;
  for (char *e = buf; !found && e < buf + n; e += dc_strlen(e) + 1)
    if (dc_key_is(e, sizeof key - 1, key)) {
      const size_t len = dc_strlen(e + sizeof key - 1);
      char *v = dc_perm_alloc(len + 1);
      dc_memcpy(v, e + sizeof key - 1, len + 1);
      found = v;
    }
  dc_munmap(buf, cap);
  return found;
}

extern const char *__tsan_default_options(void) __attribute__((weak));

void dc_options_program_defaults(void) {
  static int done;
  if (done || !__tsan_default_options) return;
  done = 1;
  dc_thread *t = dc_self(); /* its instrumentation is not the program's doing */
  if (t) dc_enter(t);
  const char *s = __tsan_default_options(), *env = options_env();
  if (t) dc_leave(t);
  static const char *const keys[] = {"report_bugs", "report_thread_leaks", "detect_deadlocks",
                                     "report_mutex_bugs", "report_signal_unsafe"};
  int *const fields[] = {&dc_opt.report_bugs, &dc_opt.report_thread_leaks,
                         &dc_opt.detect_deadlocks, &dc_opt.report_mutex_bugs,
                         &dc_opt.report_signal_unsafe};
  _Static_assert(sizeof keys / sizeof keys[0] == sizeof fields / sizeof fields[0],
                 "a field per key");
  for (size_t i = 0; s && i < sizeof keys / sizeof keys[0]; i++) {
    size_t n, m;
    const char *v = flag_value(s, keys[i], &n);
    if (!v || (env && flag_value(env, keys[i], &m))) continue;
    if (n == 1 && (*v == '0' || *v == '1')) *fields[i] = *v - '0';
  }
}

static void print_help(void) {
  dc_printf("DACCE_OPTIONS (key=value, separated by spaces, commas or colons):\n");
#define DC_OPT_HELP_int(name, def) dc_printf("  %-22s %-8d ", #name, (int)(def));
#define DC_OPT_HELP_str(name, def) dc_printf("  %-22s %-8s ", #name, *(def) ? (def) : "\"\"");
#define DC_OPT_HELP(type, name, def, desc) DC_OPT_HELP_##type(name, def) dc_printf("%s\n", desc);
  DC_OPTIONS(DC_OPT_HELP)
#undef DC_OPT_HELP
}

void dc_options_init(void) {
  static int done;
  if (done) return;
  done = 1;
  const char *env = options_env();
  if (!env) return;
  /* copy into permanent storage so string options can point into it */
  size_t n = dc_strlen(env);
  char *s = dc_perm_alloc(n + 1);
  dc_memcpy(s, env, n + 1);
  const char *key, *val;
  size_t klen, vlen;
  for (const char *p = s; (p = next_option(p, 0, &key, &klen, &val, &vlen));) {
    if (!val) dc_die("dacce: DACCE_OPTIONS: '%.*s' is not key=value\n", (int)klen, key);
    if (*p) p++; /* past the separator, which becomes the value's end: */
    s[val + vlen - s] = 0; /* string options point into the copy */
    if (set_option(key, klen, val))
      dc_die("dacce: DACCE_OPTIONS: unknown option '%.*s' (DACCE_OPTIONS=help=1 lists them)\n",
             (int)klen, key);
  }
  if (dc_opt.help) {
    print_help();
    _exit(0);
  }
  if (dc_opt.max_id_bits < 2 || dc_opt.max_id_bits > 63)
    dc_die("dacce: option 'max_id_bits' must be in [2, 63], got %d\n", dc_opt.max_id_bits);
  if (dc_opt.slot_epochs < 64 || dc_opt.slot_epochs > 1048575)
    dc_die("dacce: option 'slot_epochs' must be in [64, 1048575], got %d\n", dc_opt.slot_epochs);
  if (dc_opt.slots < 16 || dc_opt.slots > 8192)
    dc_die("dacce: option 'slots' must be in [16, 8192], got %d\n", dc_opt.slots);
  if (dc_opt.heap_trim_kb < 0 || dc_opt.heap_trim_kb > (1 << 21) - 1) /* (bytes: an int) */
    dc_die("dacce: option 'heap_trim_kb' must be in [0, 2097151], got %d\n", dc_opt.heap_trim_kb);
  if (dc_opt.small_heap != 0 && dc_opt.small_heap != 1)
    dc_die("dacce: option 'small_heap' must be 0 or 1, got %d\n", dc_opt.small_heap);
  if (dc_streq(dc_opt.capture, "dacce") || dc_streq(dc_opt.capture, "0"))
    dc_capture_mode = DC_CAPTURE_DACCE;
  else if (dc_streq(dc_opt.capture, "stackwalk") || dc_streq(dc_opt.capture, "1"))
    dc_capture_mode = DC_CAPTURE_STACKWALK;
  else if (dc_streq(dc_opt.capture, "cct") || dc_streq(dc_opt.capture, "2"))
    dc_capture_mode = DC_CAPTURE_CCT;
  else
    dc_die("dacce: option 'capture' is dacce, stackwalk or cct, got '%s'\n", dc_opt.capture);
  if (dc_capture_mode != DC_CAPTURE_DACCE && dc_opt.verify)
    dc_die("dacce: option 'verify' checks the DACCE encoding: it needs capture=dacce\n");
}
