/* intercept_stdio.c: what the printf family and stdio's buffer functions
 * read and write of the caller's memory, as ThreadSanitizer records it.
 *
 * The kernel's and libc's own accesses are not instrumented, so without
 * these a thread that snprintf()s into a buffer another thread reads, or
 * printf("%s")s a string another thread writes, or fgets() into a shared
 * line, raced unseen.  Recorded:
 *  - the printf family (printf, fprintf, dprintf, sprintf, snprintf,
 *    asprintf, their v-forms and the fortified __*_chk variants): the
 *    format string and every %s argument read (up to the precision, or
 *    through the terminator), every %n argument written; the output buffer
 *    of the s*printf forms written (what the call stored, the terminator
 *    too), and asprintf's new string;
 *  - fread, fgets, getline and getdelim: the bytes they stored (and the
 *    pointer and size getline may replace); fwrite, fputs and puts: the
 *    bytes they read; with the _unlocked and fortified variants;
 *  - the scanf family (scanf, fscanf, sscanf, their v-forms, and the
 *    __isoc99_ names a C99 build calls): the format and sscanf's input
 *    read, then what the call assigned written.
 * Formats with positional arguments (%2$s, *3$) are followed by position,
 * up to POS_MAX; a wide string (%ls) printed with a precision reads the
 * characters whose conversion fits in the precision's bytes.
 *
 * The runtime calls none of these itself (it formats with dc_snprintf,
 * encoder/common.c; tests/scripts/check_runtime_calls.sh), so the
 * interceptors only ever see the program's calls. */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <wchar.h>

#include "intercept.h"

/* (glibc may make these macros) */
#undef fread_unlocked
#undef fwrite_unlocked
#undef fgets_unlocked
#undef fputs_unlocked

static size_t bounded_len(const char *s, long max) { /* max < 0: none */
  size_t k = 0;
  while ((max < 0 || (long)k < max) && s[k]) k++;
  return k;
}
static size_t wide_size(const wchar_t *s) { /* in bytes, with the terminator */
  size_t k = 0;
  while (s[k]) k++;
  return (k + 1) * sizeof *s;
}

/* The length modifier of a printf or scanf conversion at *c, which moves
 * past it: 0 none, 1 h, 2 hh, 3 l, 4 ll (q j z Z t), 5 L. */
static int length_of(const char **c) {
  int len = 0;
  for (;; (*c)++) {
    const char m = **c;
    if (m == 'h') len = len == 1 ? 2 : 1;
    else if (m == 'l') len = len == 3 ? 4 : 3;
    else if (m == 'q' || m == 'j' || m == 'z' || m == 'Z' || m == 't') len = 4;
    else if (m == 'L') len = 5;
    else return len;
  }
}
/* the size of an integer (and %n) target with length modifier len */
static size_t int_size(int len) {
  return len == 2 ? 1 : len == 1 ? 2 : len >= 3 ? 8 : sizeof(int);
}

/* ------------------------------------------------------------ the format */
/* Formats may name their arguments by position (%2$s, a width *3$),
 * POSIX's way to reorder them for translations.  A position is read from
 * the list once all the positions' types are known; up to POS_MAX of them
 * (glibc takes 4096): a conversion whose argument lies further is not
 * recorded. */
#define POS_MAX 64

/* At c, a position "n$" (n > 0): *n is set and the result is past it;
 * else *n is 0 and c is returned. */
static const char *position(const char *c, int *n) {
  const char *d = c;
  long v = 0;
  while (*d >= '0' && *d <= '9' && v <= 1 << 20) v = v * 10 + (*d++ - '0');
  *n = d > c && *d == '$' && v > 0 && v <= 1 << 20 ? (int)v : 0;
  return *n ? d + 1 : c;
}

/* A printf conversion: its argument's position (0: the next one), where
 * its width and precision come from (0: the format; -1: the next
 * argument; n: argument n), its precision written as digits (-1: none),
 * its length modifier (length_of) and its letter. */
typedef struct {
  int pos, wstar, pstar;
  long prec;
  int len;
  char conv;
} pconv;

/* A star at c: from the next argument, or from argument n (*n$) */
static const char *star_at(const char *c, int *from) {
  int n;
  c = position(c + 1, &n);
  *from = n ? n : -1;
  return c;
}

/* The next conversion of a printf format from c (which is past the last
 * one), into *p; returns the address past it, or 0 at the format's end. */
static const char *next_pconv(const char *c, pconv *p) {
  for (;; c++) {
    if (!*c) return 0;
    if (*c == '%' && *++c != '%') break;
  }
  c = position(c, &p->pos);
  while (*c == '-' || *c == '+' || *c == ' ' || *c == '#' || *c == '0' || *c == '\'' || *c == 'I')
    c++;
  p->wstar = p->pstar = 0;
  p->prec = -1;
  if (*c == '*') c = star_at(c, &p->wstar);
  else while (*c >= '0' && *c <= '9') c++;
  if (*c == '.') {
    c++;
    if (*c == '*') c = star_at(c, &p->pstar);
    else for (p->prec = 0; *c >= '0' && *c <= '9'; c++) p->prec = p->prec * 10 + (*c - '0');
  }
  p->len = length_of(&c);
  p->conv = *c;
  return *c ? c + 1 : c;
}

/* what a conversion takes from the list */
enum { A_NONE, A_INT, A_LONG, A_DOUBLE, A_LDOUBLE, A_PTR, A_UNKNOWN };
static int pconv_type(const pconv *p) {
  switch (p->conv) {
  case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
    return p->len >= 3 ? A_LONG : A_INT;
  case 'c': case 'C':
    return A_INT;
  case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
    return p->len == 5 ? A_LDOUBLE : A_DOUBLE;
  case 's': case 'S': case 'p': case 'n':
    return A_PTR;
  case 'm':
    return A_NONE;
  default: /* not a conversion glibc knows: it prints the rest as text */
    return A_UNKNOWN;
  }
}
typedef union {
  long long i;
  void *p;
} argval;
static argval next_arg(va_list *ap, int type) {
  argval v = {0};
  switch (type) {
  case A_INT: v.i = va_arg(*ap, int); break;
  case A_LONG: v.i = va_arg(*ap, long long); break;
  case A_DOUBLE: (void)va_arg(*ap, double); break;
  case A_LDOUBLE: (void)va_arg(*ap, long double); break;
  case A_PTR: v.p = va_arg(*ap, void *); break;
  }
  return v;
}

/* The bytes of a wide string that %ls with precision prec (in bytes of
 * its multibyte conversion, whole characters only) surely read: the
 * characters that fit, and the terminator when the string ended short of
 * prec.  Converted as printf converts them (this thread's locale); a
 * character that does not convert ends the call's output, and this. */
static size_t wide_read(const wchar_t *s, long prec) {
  mbstate_t st = {0};
  char buf[MB_LEN_MAX];
  long used = 0;
  size_t k = 0;
  for (; used < prec; k++) {
    if (!s[k]) return (k + 1) * sizeof *s;
    const size_t b = wcrtomb(buf, s[k], &st);
    if (b == (size_t)-1 || used + (long)b > prec) break;
    used += (long)b;
  }
  return k * sizeof *s;
}

/* What a conversion with argument a and precision prec (-1: none) reads
 * or writes of the caller's memory: a string, a %n target. */
static void pconv_access(const pconv *p, void *a, long prec, uintptr_t pc) {
  if (!a) return;
  if (p->conv == 's' && p->len != 3) {
    const size_t k = bounded_len(a, prec);
    read_range(a, prec >= 0 && (long)k == prec ? k : k + 1, pc);
  } else if (p->conv == 's' || p->conv == 'S') { /* %ls is %S */
    read_range(a, prec < 0 ? wide_size(a) : wide_read(a, prec), pc);
  } else if (p->conv == 'n') {
    write_range(a, int_size(p->len), pc);
  }
}

/* The arguments in the list's order */
static void sequential_args(const char *fmt, va_list *ap, uintptr_t pc) {
  pconv p;
  for (const char *c = fmt; (c = next_pconv(c, &p));) {
    const int t = pconv_type(&p);
    if (t == A_UNKNOWN || p.pos || p.wstar > 0 || p.pstar > 0) return;
    if (p.wstar) next_arg(ap, A_INT);
    long prec = p.prec;
    if (p.pstar && (prec = next_arg(ap, A_INT).i) < 0) prec = -1;
    pconv_access(&p, next_arg(ap, t).p, prec, pc);
  }
}

/* type t for argument n of the list (0, or past POS_MAX: none); a second
 * type for the same argument is no type at all */
static void typed(unsigned char *types, int n, int t) {
  if (n > 0 && n <= POS_MAX) types[n] = !types[n] || types[n] == t ? t : A_UNKNOWN;
}

/* The arguments by position: their types from the whole format, then
 * their values from the list up to the first one left untyped, then the
 * conversions.  A conversion without a position in such a format ends
 * both walks (mixing them is undefined). */
static void positional_args(const char *fmt, va_list *ap, uintptr_t pc) {
  unsigned char types[POS_MAX + 1] = {0};
  argval vals[POS_MAX + 1];
  pconv p;
  for (const char *c = fmt; (c = next_pconv(c, &p));) {
    const int t = pconv_type(&p);
    if (t == A_UNKNOWN || (!p.pos && t != A_NONE)) break;
    typed(types, p.pos, t);
    typed(types, p.wstar, A_INT);
    typed(types, p.pstar, A_INT);
  }
  int have = 0;
  while (have < POS_MAX && types[have + 1] && types[have + 1] != A_UNKNOWN) {
    have++;
    vals[have] = next_arg(ap, types[have]);
  }
  for (const char *c = fmt; (c = next_pconv(c, &p));) {
    const int t = pconv_type(&p);
    if (t == A_UNKNOWN || (!p.pos && t != A_NONE)) return;
    long prec = p.prec;
    if (p.pstar) {
      if (p.pstar < 0 || p.pstar > have) continue; /* not known */
      if ((prec = vals[p.pstar].i) < 0) prec = -1;
    }
    if (p.pos <= have) pconv_access(&p, vals[p.pos].p, prec, pc);
  }
}

/* A format with a position anywhere takes its arguments by position */
static int by_position(const char *fmt) {
  pconv p;
  for (const char *c = fmt; (c = next_pconv(c, &p));)
    if (p.pos || p.wstar > 0 || p.pstar > 0) return 1;
  return 0;
}

/* What a printf format with these arguments reads and writes (recorded
 * before the call): the format itself, each %s string, each %n target.
 * ap is walked on a copy; the caller's is left as it was. */
static void format_args(const char *fmt, va_list ap0, uintptr_t pc) {
  va_list ap;
  va_copy(ap, ap0);
  read_range(fmt, dc_strlen(fmt) + 1, pc);
  if (by_position(fmt)) positional_args(fmt, &ap, pc);
  else sequential_args(fmt, &ap, pc);
  va_end(ap);
}

/* the output buffer of an s*printf: r characters formatted into room bytes
 * (room (size_t)-1: unbounded), and the terminator */
static void stored(const char *s, int r, size_t room, uintptr_t pc) {
  if (r < 0 || room == 0) return;
  write_range(s, (size_t)r + 1 < room ? (size_t)r + 1 : room, pc);
}

/* asprintf's: the pointer to the new string of r characters, and the string */
static void made_string(char **sp, int r, uintptr_t pc) {
  if (r < 0) return;
  write_range(sp, sizeof *sp, pc);
  stored(*sp, r, (size_t)-1, pc);
}

/* Each interceptor of the family: formats are recorded before the real
 * v-form runs, the stored bytes after.  The variadic forms call the same
 * body with their va_list. */
static int v_snprintf(char *s, size_t n, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, vsnprintf, char *, size_t, const char *, va_list);
  const int w = watching();
  if (w) format_args(fmt, ap, pc);
  const int r = real_vsnprintf(s, n, fmt, ap);
  if (w) stored(s, r, n, pc);
  return r;
}
static int v_sprintf(char *s, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, vsprintf, char *, const char *, va_list);
  const int w = watching();
  if (w) format_args(fmt, ap, pc);
  const int r = real_vsprintf(s, fmt, ap);
  if (w) stored(s, r, (size_t)-1, pc);
  return r;
}
static int v_asprintf(char **sp, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, vasprintf, char **, const char *, va_list);
  const int w = watching();
  if (w) format_args(fmt, ap, pc);
  const int r = real_vasprintf(sp, fmt, ap);
  if (w) made_string(sp, r, pc);
  return r;
}
static int v_fprintf(FILE *f, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, vfprintf, FILE *, const char *, va_list);
  if (watching()) format_args(fmt, ap, pc);
  return real_vfprintf(f, fmt, ap);
}
static int v_dprintf(int fd, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, vdprintf, int, const char *, va_list);
  if (watching()) format_args(fmt, ap, pc);
  return real_vdprintf(fd, fmt, ap);
}
/* the fortified forms (-D_FORTIFY_SOURCE=2): flag asks for the %n and
 * positional checks, room is the destination's size as the compiler knew
 * it (an overflow is the real function's to abort) */
static int v_snprintf_chk(char *s, size_t n, int flag, size_t room, const char *fmt, va_list ap,
                          uintptr_t pc) {
  REAL(int, __vsnprintf_chk, char *, size_t, int, size_t, const char *, va_list);
  const int w = watching();
  if (w) format_args(fmt, ap, pc);
  const int r = real___vsnprintf_chk(s, n, flag, room, fmt, ap);
  if (w) stored(s, r, n, pc);
  return r;
}
static int v_sprintf_chk(char *s, int flag, size_t room, const char *fmt, va_list ap,
                         uintptr_t pc) {
  REAL(int, __vsprintf_chk, char *, int, size_t, const char *, va_list);
  const int w = watching();
  if (w) format_args(fmt, ap, pc);
  const int r = real___vsprintf_chk(s, flag, room, fmt, ap);
  if (w) stored(s, r, (size_t)-1, pc);
  return r;
}
static int v_asprintf_chk(char **sp, int flag, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, __vasprintf_chk, char **, int, const char *, va_list);
  const int w = watching();
  if (w) format_args(fmt, ap, pc);
  const int r = real___vasprintf_chk(sp, flag, fmt, ap);
  if (w) made_string(sp, r, pc);
  return r;
}
static int v_fprintf_chk(FILE *f, int flag, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, __vfprintf_chk, FILE *, int, const char *, va_list);
  if (watching()) format_args(fmt, ap, pc);
  return real___vfprintf_chk(f, flag, fmt, ap);
}
static int v_dprintf_chk(int fd, int flag, const char *fmt, va_list ap, uintptr_t pc) {
  REAL(int, __vdprintf_chk, int, int, const char *, va_list);
  if (watching()) format_args(fmt, ap, pc);
  return real___vdprintf_chk(fd, flag, fmt, ap);
}

/* name (params, ...) calling body (args, ap, pc), its va_list from after last */
#define VARIADIC(name, params, last, body, args)                                  \
  DC_EXPORT_LEAF int name(STDIO_UNPAREN params, ...) {                            \
    va_list ap;                                                                   \
    va_start(ap, last);                                                           \
    const int r = body(STDIO_UNPAREN args, ap, PC());                             \
    va_end(ap);                                                                   \
    return r;                                                                     \
  }
/* name (params, va_list ap) calling body (args, ap, pc) */
#define VFORM(name, params, body, args)                                           \
  DC_EXPORT_LEAF int name(STDIO_UNPAREN params, va_list ap) {                     \
    return body(STDIO_UNPAREN args, ap, PC());                                    \
  }
#define STDIO_UNPAREN(...) __VA_ARGS__

VARIADIC(snprintf, (char *s, size_t n, const char *fmt), fmt, v_snprintf, (s, n, fmt))
VFORM(vsnprintf, (char *s, size_t n, const char *fmt), v_snprintf, (s, n, fmt))
VARIADIC(sprintf, (char *s, const char *fmt), fmt, v_sprintf, (s, fmt))
VFORM(vsprintf, (char *s, const char *fmt), v_sprintf, (s, fmt))
VARIADIC(asprintf, (char **sp, const char *fmt), fmt, v_asprintf, (sp, fmt))
VFORM(vasprintf, (char **sp, const char *fmt), v_asprintf, (sp, fmt))
VARIADIC(printf, (const char *fmt), fmt, v_fprintf, (stdout, fmt))
VFORM(vprintf, (const char *fmt), v_fprintf, (stdout, fmt))
VARIADIC(fprintf, (FILE *f, const char *fmt), fmt, v_fprintf, (f, fmt))
VFORM(vfprintf, (FILE *f, const char *fmt), v_fprintf, (f, fmt))
VARIADIC(dprintf, (int fd, const char *fmt), fmt, v_dprintf, (fd, fmt))
VFORM(vdprintf, (int fd, const char *fmt), v_dprintf, (fd, fmt))

VARIADIC(__snprintf_chk, (char *s, size_t n, int flag, size_t room, const char *fmt), fmt,
         v_snprintf_chk, (s, n, flag, room, fmt))
VFORM(__vsnprintf_chk, (char *s, size_t n, int flag, size_t room, const char *fmt),
      v_snprintf_chk, (s, n, flag, room, fmt))
VARIADIC(__sprintf_chk, (char *s, int flag, size_t room, const char *fmt), fmt, v_sprintf_chk,
         (s, flag, room, fmt))
VFORM(__vsprintf_chk, (char *s, int flag, size_t room, const char *fmt), v_sprintf_chk,
      (s, flag, room, fmt))
VARIADIC(__asprintf_chk, (char **sp, int flag, const char *fmt), fmt, v_asprintf_chk,
         (sp, flag, fmt))
VFORM(__vasprintf_chk, (char **sp, int flag, const char *fmt), v_asprintf_chk, (sp, flag, fmt))
VARIADIC(__printf_chk, (int flag, const char *fmt), fmt, v_fprintf_chk, (stdout, flag, fmt))
VFORM(__vprintf_chk, (int flag, const char *fmt), v_fprintf_chk, (stdout, flag, fmt))
VARIADIC(__fprintf_chk, (FILE *f, int flag, const char *fmt), fmt, v_fprintf_chk, (f, flag, fmt))
VFORM(__vfprintf_chk, (FILE *f, int flag, const char *fmt), v_fprintf_chk, (f, flag, fmt))
VARIADIC(__dprintf_chk, (int fd, int flag, const char *fmt), fmt, v_dprintf_chk, (fd, flag, fmt))
VFORM(__vdprintf_chk, (int fd, int flag, const char *fmt), v_dprintf_chk, (fd, flag, fmt))

/* ------------------------------------------------------------ stdio's buffers */
/* fread and its kin store size * (items read) bytes */
#define FREAD(name, params, args, p, size)                                        \
  DC_EXPORT_LEAF size_t name params {                                             \
    REAL(size_t, name, STDIO_UNPAREN params);                                     \
    const size_t r = real_##name args;                                            \
    if (watching()) write_range(p, r * (size), PC());                                  \
    return r;                                                                     \
  }
FREAD(fread, (void *p, size_t size, size_t n, FILE *f), (p, size, n, f), p, size)
FREAD(fread_unlocked, (void *p, size_t size, size_t n, FILE *f), (p, size, n, f), p, size)
FREAD(__fread_chk, (void *p, size_t room, size_t size, size_t n, FILE *f), (p, room, size, n, f),
      p, size)
FREAD(__fread_unlocked_chk, (void *p, size_t room, size_t size, size_t n, FILE *f),
      (p, room, size, n, f), p, size)

/* fwrite reads size * n bytes, before the call */
#define FWRITE(name)                                                              \
  DC_EXPORT_LEAF size_t name(const void *p, size_t size, size_t n, FILE *f) {     \
    REAL(size_t, name, const void *, size_t, size_t, FILE *);                     \
    if (watching() && size && n <= (size_t)-1 / size) read_range(p, size * n, PC());   \
    return real_##name(p, size, n, f);                                            \
  }
FWRITE(fwrite)
FWRITE(fwrite_unlocked)

/* fgets stores the line read and its terminator */
#define FGETS(name, params, args, s)                                              \
  DC_EXPORT_LEAF char *name params {                                              \
    REAL(char *, name, STDIO_UNPAREN params);                                     \
    char *r = real_##name args;                                                   \
    if (r && watching()) write_range(s, dc_strlen(s) + 1, PC());                       \
    return r;                                                                     \
  }
FGETS(fgets, (char *s, int n, FILE *f), (s, n, f), s)
FGETS(fgets_unlocked, (char *s, int n, FILE *f), (s, n, f), s)
FGETS(__fgets_chk, (char *s, size_t room, int n, FILE *f), (s, room, n, f), s)
FGETS(__fgets_unlocked_chk, (char *s, size_t room, int n, FILE *f), (s, room, n, f), s)

/* fputs and puts read the string */
#define FPUTS(name, params, args, s)                                              \
  DC_EXPORT_LEAF int name params {                                                \
    REAL(int, name, STDIO_UNPAREN params);                                        \
    if (watching()) read_range(s, dc_strlen(s) + 1, PC());                             \
    return real_##name args;                                                      \
  }
FPUTS(fputs, (const char *s, FILE *f), (s, f), s)
FPUTS(fputs_unlocked, (const char *s, FILE *f), (s, f), s)
FPUTS(puts, (const char *s), (s), s)

/* getline and getdelim may replace the buffer and its size, and store the
 * line and its terminator */
static void got_line(char **line, size_t *n, ssize_t r, uintptr_t pc) {
  write_range(line, sizeof *line, pc);
  write_range(n, sizeof *n, pc);
  if (r > 0) write_range(*line, (size_t)r + 1, pc);
}
#define GETDELIM(name)                                                            \
  DC_EXPORT_LEAF ssize_t name(char **line, size_t *n, int delim, FILE *f) {       \
    REAL(ssize_t, name, char **, size_t *, int, FILE *);                          \
    const ssize_t r = real_##name(line, n, delim, f);                             \
    if (watching()) got_line(line, n, r, PC());                                   \
    return r;                                                                     \
  }
GETDELIM(getdelim)
GETDELIM(__getdelim) /* what an optimised build's inline getline calls */
DC_EXPORT_LEAF ssize_t getline(char **line, size_t *n, FILE *f) {
  REAL(ssize_t, getline, char **, size_t *, FILE *);
  const ssize_t r = real_getline(line, n, f);
  if (watching()) got_line(line, n, r, PC());
  return r;
}

/* ------------------------------------------------------------ the scanf family */
/* A scanf conversion: its target's position (0: the next one), whether it
 * assigns (no *) and allocates (%m), its width (0: none), the size of a
 * fixed-size target (0: a string), a string's kind (s or [: 1; c: 2) and
 * whether it is wide, and its letter. */
typedef struct {
  int pos, skip, alloc, text, wide;
  long width;
  size_t size;
  char conv;
} sconv;

/* The next conversion of a scanf format from c, into *s; returns the
 * address past it, or 0 at the format's end or at a conversion glibc does
 * not know (the scan stops there). */
static const char *next_sconv(const char *c, sconv *s) {
  for (;; c++) {
    if (!*c) return 0;
    if (*c == '%' && *++c != '%') break;
  }
  c = position(c, &s->pos);
  s->skip = *c == '*';
  if (s->skip) c++;
  for (s->width = 0; *c >= '0' && *c <= '9'; c++) s->width = s->width * 10 + (*c - '0');
  s->alloc = *c == 'm';
  if (s->alloc) c++;
  const int len = length_of(&c);
  s->size = 0;
  s->text = 0;
  s->wide = len == 3;
  switch (s->conv = *c) {
  case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'n':
    s->size = int_size(len);
    break;
  case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
    s->size = len == 5 ? sizeof(long double) : len == 3 ? 8 : 4;
    break;
  case 'p':
    s->size = sizeof(void *);
    break;
  case 's':
    s->text = 1;
    break;
  case '[':
    s->text = 1;
    c++;
    if (*c == '^') c++;
    if (*c == ']') c++;
    while (*c && *c != ']') c++;
    if (!*c) return 0;
    break;
  case 'c':
    s->text = 2;
    break;
  case 'S':
    s->text = 1, s->wide = 1;
    break;
  case 'C':
    s->text = 2, s->wide = 1;
    break;
  default:
    return 0;
  }
  if (s->alloc) s->size = sizeof(char *);
  return c + 1;
}

/* What a scanf format stored, given that the call assigned r conversions
 * (recorded after it): each target of the first r assigning conversions,
 * by its type's size (a string's: what was stored, the terminator too;
 * %c's: its width), and each %n target that the scan surely reached (an
 * assignment after it).  %m's target is the pointer to the new string.
 * Wide targets (%ls or %S, %lc or %C, %l[) count in wide characters.  A
 * format with positions (%2$d) has its targets, all pointers, read from
 * the list first.  ap: as before the call; walked on a copy. */
static void scan_stores(const char *fmt, va_list ap0, int r, uintptr_t pc) {
  va_list ap;
  va_copy(ap, ap0);
  sconv s;
  int most = 0, have = 0; /* the furthest position; the targets read */
  for (const char *c = fmt; (c = next_sconv(c, &s));)
    if (s.pos > most) most = s.pos;
  void *vals[POS_MAX + 1];
  while (have < most && have < POS_MAX) vals[++have] = va_arg(ap, void *);
  int k = 0; /* assignments seen */
  for (const char *c = fmt; k <= r && (c = next_sconv(c, &s));) {
    if (s.skip) continue;
    void *p = !most ? va_arg(ap, void *) : s.pos && s.pos <= have ? vals[s.pos] : 0;
    if (s.conv == 'n') {
      if (p && k < r) write_range(p, s.size, pc);
      continue;
    }
    if (++k > r || !p) continue;
    if (s.size) {
      write_range(p, s.size, pc);
    } else if (s.text == 2) { /* %c: width characters, no terminator */
      write_range(p, (size_t)(s.width ? s.width : 1) * (s.wide ? sizeof(wchar_t) : 1), pc);
    } else {
      write_range(p, s.wide ? wide_size(p) : dc_strlen(p) + 1, pc);
    }
  }
  va_end(ap);
}

/* Each interceptor: the input string (sscanf's) and the format read before
 * the call, the stores after.  Defined under C names of their own (id) with
 * the symbols' names in asm labels: a C99 build's <stdio.h> names sscanf
 * __isoc99_sscanf, and both are libc's.  id (src, fmt, ...) is symbol sym
 * and vid (src, fmt, ap) symbol vsym; both call the real vreal; str: the
 * source is a string. */
#define SCANF(id, sym, vsym, vreal, src_t, str)                                   \
  static int id##_body(src_t src, const char *fmt, va_list ap, uintptr_t pc) {    \
    REAL(int, vreal, src_t, const char *, va_list);                               \
    const int w = watching();                                                     \
    if (w) {                                                                      \
      if (str) read_range((const void *)src, dc_strlen((const char *)src) + 1, pc);    \
      read_range(fmt, dc_strlen(fmt) + 1, pc);                                         \
    }                                                                             \
    va_list aq; /* (the real call walks ap: the stores are found on a copy) */    \
    va_copy(aq, ap);                                                              \
    const int r = real_##vreal(src, fmt, ap);                                     \
    if (w && r > 0) scan_stores(fmt, aq, r, pc);                                  \
    va_end(aq);                                                                   \
    return r;                                                                     \
  }                                                                               \
  SCANF_ENTRIES(id, sym, vsym, (src_t src, const char *fmt), (src, fmt))
#define SCANF_ENTRIES(id, sym, vsym, params, args)                                \
  DC_EXPORT_LEAF int id(STDIO_UNPAREN params, ...) __asm__(sym);                  \
  DC_EXPORT_LEAF int id(STDIO_UNPAREN params, ...) {                              \
    va_list ap;                                                                   \
    va_start(ap, fmt);                                                            \
    const int r = id##_body(STDIO_UNPAREN args, ap, PC());                        \
    va_end(ap);                                                                   \
    return r;                                                                     \
  }                                                                               \
  DC_EXPORT_LEAF int v##id(STDIO_UNPAREN params, va_list ap) __asm__(vsym);       \
  DC_EXPORT_LEAF int v##id(STDIO_UNPAREN params, va_list ap) {                    \
    return id##_body(STDIO_UNPAREN args, ap, PC());                               \
  }
SCANF(dc_sscanf, "sscanf", "vsscanf", vsscanf, const char *, 1)
SCANF(dc_isoc99_sscanf, "__isoc99_sscanf", "__isoc99_vsscanf", __isoc99_vsscanf, const char *, 1)
SCANF(dc_fscanf, "fscanf", "vfscanf", vfscanf, FILE *, 0)
SCANF(dc_isoc99_fscanf, "__isoc99_fscanf", "__isoc99_vfscanf", __isoc99_vfscanf, FILE *, 0)
/* scanf (fmt, ...) is fscanf (stdin, fmt, ...) */
#define dc_scanf_body(fmt, ap, pc) dc_fscanf_body(stdin, fmt, ap, pc)
#define dc_isoc99_scanf_body(fmt, ap, pc) dc_isoc99_fscanf_body(stdin, fmt, ap, pc)
SCANF_ENTRIES(dc_scanf, "scanf", "vscanf", (const char *fmt), (fmt))
SCANF_ENTRIES(dc_isoc99_scanf, "__isoc99_scanf", "__isoc99_vscanf", (const char *fmt), (fmt))
