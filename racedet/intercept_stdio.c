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
 * A format with positional arguments (%1$s) has its arguments recorded up
 * to the first of them.  A wide string (%ls) printed with a precision is
 * not recorded (the precision counts bytes of its conversion, not wide
 * characters).
 *
 * The runtime calls none of these itself (it formats with dc_snprintf,
 * encoder/common.c; tests/scripts/check_runtime_calls.sh), so the
 * interceptors only ever see the program's calls. */
#define _GNU_SOURCE
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
/* What a printf format with these arguments reads and writes (recorded
 * before the call): the format itself, each %s string, each %n target.
 * ap is walked on a copy; the caller's is left as it was. */
static void format_args(const char *fmt, va_list ap0, uintptr_t pc) {
  va_list ap;
  va_copy(ap, ap0);
  read_range(fmt, dc_strlen(fmt) + 1, pc);
  for (const char *c = fmt; *c; c++) {
    if (*c != '%') continue;
    c++;
    if (*c == '%') continue;
    while (*c == '-' || *c == '+' || *c == ' ' || *c == '#' || *c == '0' || *c == '\'' || *c == 'I')
      c++;
    if (*c == '*') {
      (void)va_arg(ap, int);
      c++;
    }
    while (*c >= '0' && *c <= '9') c++;
    if (*c == '$') break; /* positional: the order is not the list's */
    long prec = -1;
    if (*c == '.') {
      c++;
      if (*c == '*') {
        prec = va_arg(ap, int);
        c++;
      } else {
        for (prec = 0; *c >= '0' && *c <= '9'; c++) prec = prec * 10 + (*c - '0');
      }
    }
    const int len = length_of(&c);
    switch (*c) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'c': case 'C':
      if (len >= 3 && *c != 'c' && *c != 'C') (void)va_arg(ap, long long);
      else (void)va_arg(ap, int);
      break;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
      if (len == 5) (void)va_arg(ap, long double);
      else (void)va_arg(ap, double);
      break;
    case 's':
      if (len != 3) {
        const char *s = va_arg(ap, const char *);
        if (s) {
          const size_t k = bounded_len(s, prec);
          read_range(s, prec >= 0 && (long)k == prec ? k : k + 1, pc);
        }
        break;
      }
      __attribute__((fallthrough)); /* %ls is %S */
    case 'S': {
      const wchar_t *s = va_arg(ap, const wchar_t *);
      if (s && prec < 0) read_range(s, wide_size(s), pc);
      break;
    }
    case 'p':
      (void)va_arg(ap, void *);
      break;
    case 'n': {
      void *p = va_arg(ap, void *);
      write_range(p, int_size(len), pc);
      break;
    }
    case 'm':
      break;
    default: /* not a conversion glibc knows: it prints the rest as text */
      va_end(ap);
      return;
    }
  }
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
  DC_EXPORT int name(STDIO_UNPAREN params, ...) {                                 \
    va_list ap;                                                                   \
    va_start(ap, last);                                                           \
    const int r = body(STDIO_UNPAREN args, ap, PC());                             \
    va_end(ap);                                                                   \
    return r;                                                                     \
  }
/* name (params, va_list ap) calling body (args, ap, pc) */
#define VFORM(name, params, body, args)                                           \
  DC_EXPORT int name(STDIO_UNPAREN params, va_list ap) {                          \
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
  DC_EXPORT size_t name params {                                                  \
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
  DC_EXPORT size_t name(const void *p, size_t size, size_t n, FILE *f) {          \
    REAL(size_t, name, const void *, size_t, size_t, FILE *);                     \
    if (watching() && size && n <= (size_t)-1 / size) read_range(p, size * n, PC());   \
    return real_##name(p, size, n, f);                                            \
  }
FWRITE(fwrite)
FWRITE(fwrite_unlocked)

/* fgets stores the line read and its terminator */
#define FGETS(name, params, args, s)                                              \
  DC_EXPORT char *name params {                                                   \
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
  DC_EXPORT int name params {                                                     \
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
  DC_EXPORT ssize_t name(char **line, size_t *n, int delim, FILE *f) {            \
    REAL(ssize_t, name, char **, size_t *, int, FILE *);                          \
    const ssize_t r = real_##name(line, n, delim, f);                             \
    if (watching()) got_line(line, n, r, PC());                                   \
    return r;                                                                     \
  }
GETDELIM(getdelim)
GETDELIM(__getdelim) /* what an optimised build's inline getline calls */
DC_EXPORT ssize_t getline(char **line, size_t *n, FILE *f) {
  REAL(ssize_t, getline, char **, size_t *, FILE *);
  const ssize_t r = real_getline(line, n, f);
  if (watching()) got_line(line, n, r, PC());
  return r;
}

/* ------------------------------------------------------------ the scanf family */
/* What a scanf format stored, given that the call assigned r conversions
 * (recorded after it): each target of the first r assigning conversions,
 * by its type's size (a string's: what was stored, the terminator too;
 * %c's: its width), and each %n target that the scan surely reached (an
 * assignment after it).  %m's target is the pointer to the new string.
 * Wide targets (%ls or %S, %lc or %C, %l[) count in wide characters.  ap:
 * as before the call; walked on a copy. */
static void scan_stores(const char *fmt, va_list ap0, int r, uintptr_t pc) {
  va_list ap;
  va_copy(ap, ap0);
  int k = 0; /* assignments seen */
  for (const char *c = fmt; *c && k <= r; c++) {
    if (*c != '%') continue;
    c++;
    if (*c == '%') continue;
    const int skip = *c == '*';
    if (skip) c++;
    long width = 0;
    while (*c >= '0' && *c <= '9') width = width * 10 + (*c++ - '0');
    if (*c == '$') break; /* positional */
    const int alloc = *c == 'm';
    if (alloc) c++;
    const int len = length_of(&c);
    size_t size = 0; /* of a fixed-size target */
    int text = 0;    /* a string target: s [ (1), c (2) */
    int wide = len == 3;
    switch (*c) {
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
      size = int_size(len);
      break;
    case 'a': case 'A': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G':
      size = len == 5 ? sizeof(long double) : len == 3 ? 8 : 4;
      break;
    case 'p':
      size = sizeof(void *);
      break;
    case 's':
      text = 1;
      break;
    case '[':
      text = 1;
      c++;
      if (*c == '^') c++;
      if (*c == ']') c++;
      while (*c && *c != ']') c++;
      if (!*c) goto out;
      break;
    case 'c':
      text = 2;
      break;
    case 'S':
      text = 1, wide = 1;
      break;
    case 'C':
      text = 2, wide = 1;
      break;
    case 'n':
      if (!skip) {
        void *p = va_arg(ap, void *);
        if (k < r) write_range(p, int_size(len), pc);
      }
      continue;
    default:
      goto out;
    }
    if (skip) continue;
    void *p = va_arg(ap, void *);
    if (++k > r) break;
    if (alloc) size = sizeof(char *);
    if (size) {
      write_range(p, size, pc);
    } else if (text == 2) { /* %c: width characters, no terminator */
      write_range(p, (size_t)(width ? width : 1) * (wide ? sizeof(wchar_t) : 1), pc);
    } else {
      write_range(p, wide ? wide_size(p) : dc_strlen(p) + 1, pc);
    }
  }
out:
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
  DC_EXPORT int id(STDIO_UNPAREN params, ...) __asm__(sym);                       \
  DC_EXPORT int id(STDIO_UNPAREN params, ...) {                                   \
    va_list ap;                                                                   \
    va_start(ap, fmt);                                                            \
    const int r = id##_body(STDIO_UNPAREN args, ap, PC());                        \
    va_end(ap);                                                                   \
    return r;                                                                     \
  }                                                                               \
  DC_EXPORT int v##id(STDIO_UNPAREN params, va_list ap) __asm__(vsym);            \
  DC_EXPORT int v##id(STDIO_UNPAREN params, va_list ap) {                         \
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
