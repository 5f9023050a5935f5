/* intercept_libc.c: memory and string functions read and write ranges.
 * Compilers emit calls to memcpy/memmove/memset for block copies, so these
 * matter even in code that never names them.  The runtime itself never calls
 * them (tests/scripts/check_runtime_calls.sh checks the object's undefined
 * symbols), and skips its own accesses anyway (in_runtime). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "intercept.h"

/* What each function reads and writes, recorded before the call: shared
 * by the plain functions and their fortified variants (below). */
static size_t str_size(const char *s) { /* with the terminator */
  REAL(size_t, strlen, const char *);
  return real_strlen(s) + 1;
}
static void record_copy(const void *d, const void *s, size_t n, uintptr_t pc) {
  rd_range((uintptr_t)s, n, 0, pc);
  rd_range((uintptr_t)d, n, 1, pc);
}
static void copy_ranges(const void *d, const void *s, size_t n, uintptr_t pc) {
  if (watching() && n) record_copy(d, s, n, pc);
}
static void set_range(const void *d, size_t n, uintptr_t pc) {
  if (watching()) write_range(d, n, pc);
}
static void strcpy_ranges(const char *d, const char *s, uintptr_t pc) {
  if (watching()) record_copy(d, s, str_size(s), pc);
}
static void strncpy_ranges(const char *d, const char *s, size_t n, uintptr_t pc) {
  REAL(size_t, strnlen, const char *, size_t);
  if (watching() && n) {
    size_t k = real_strnlen(s, n);
    rd_range((uintptr_t)s, k < n ? k + 1 : n, 0, pc);
    rd_range((uintptr_t)d, n, 1, pc);
  }
}
static void strcat_ranges(const char *d, const char *s, uintptr_t pc) {
  REAL(size_t, strlen, const char *);
  if (watching()) {
    size_t dn = real_strlen(d), sn = real_strlen(s) + 1;
    rd_range((uintptr_t)d, dn, 0, pc);
    rd_range((uintptr_t)s, sn, 0, pc);
    rd_range((uintptr_t)d + dn, sn, 1, pc);
  }
}

DC_EXPORT_LEAF void *memcpy(void *d, const void *s, size_t n) {
  REAL(void *, memcpy, void *, const void *, size_t);
  copy_ranges(d, s, n, PC());
  return real_memcpy(d, s, n);
}
DC_EXPORT_LEAF void *memmove(void *d, const void *s, size_t n) {
  REAL(void *, memmove, void *, const void *, size_t);
  copy_ranges(d, s, n, PC());
  return real_memmove(d, s, n);
}
DC_EXPORT_LEAF void *memset(void *d, int c, size_t n) {
  REAL(void *, memset, void *, int, size_t);
  set_range(d, n, PC());
  return real_memset(d, c, n);
}
DC_EXPORT_LEAF int memcmp(const void *a, const void *b, size_t n) {
  REAL(int, memcmp, const void *, const void *, size_t);
  if (watching() && n) {
    rd_range((uintptr_t)a, n, 0, PC());
    rd_range((uintptr_t)b, n, 0, PC());
  }
  return real_memcmp(a, b, n);
}
DC_EXPORT_LEAF size_t strlen(const char *s) {
  REAL(size_t, strlen, const char *);
  size_t n = real_strlen(s);
  if (watching()) rd_range((uintptr_t)s, n + 1, 0, PC());
  return n;
}
DC_EXPORT_LEAF char *strcpy(char *d, const char *s) {
  REAL(char *, strcpy, char *, const char *);
  strcpy_ranges(d, s, PC());
  return real_strcpy(d, s);
}
DC_EXPORT_LEAF char *strncpy(char *d, const char *s, size_t n) {
  REAL(char *, strncpy, char *, const char *, size_t);
  strncpy_ranges(d, s, n, PC());
  return real_strncpy(d, s, n);
}
DC_EXPORT_LEAF char *strcat(char *d, const char *s) {
  REAL(char *, strcat, char *, const char *);
  strcat_ranges(d, s, PC());
  return real_strcat(d, s);
}

/* The fortified variants (-D_FORTIFY_SOURCE, which Debian's and Ubuntu's
 * packages and many builds use: a copy into an object of known size
 * becomes __memcpy_chk with that size).  Recorded as the plain function
 * when the call is within the object (else the real one reports the
 * overflow and aborts, and nothing was copied); before, they went
 * unseen, and so did races through them. */
DC_EXPORT_LEAF void *__memcpy_chk(void *d, const void *s, size_t n, size_t room) {
  REAL(void *, __memcpy_chk, void *, const void *, size_t, size_t);
  if (n <= room) copy_ranges(d, s, n, PC());
  return real___memcpy_chk(d, s, n, room);
}
DC_EXPORT_LEAF void *__memmove_chk(void *d, const void *s, size_t n, size_t room) {
  REAL(void *, __memmove_chk, void *, const void *, size_t, size_t);
  if (n <= room) copy_ranges(d, s, n, PC());
  return real___memmove_chk(d, s, n, room);
}
DC_EXPORT_LEAF void *__memset_chk(void *d, int c, size_t n, size_t room) {
  REAL(void *, __memset_chk, void *, int, size_t, size_t);
  if (n <= room) set_range(d, n, PC());
  return real___memset_chk(d, c, n, room);
}
DC_EXPORT_LEAF char *__strcpy_chk(char *d, const char *s, size_t room) {
  REAL(char *, __strcpy_chk, char *, const char *, size_t);
  if (str_size(s) <= room) strcpy_ranges(d, s, PC());
  return real___strcpy_chk(d, s, room);
}
DC_EXPORT_LEAF char *__strncpy_chk(char *d, const char *s, size_t n, size_t room) {
  REAL(char *, __strncpy_chk, char *, const char *, size_t, size_t);
  if (n <= room) strncpy_ranges(d, s, n, PC());
  return real___strncpy_chk(d, s, n, room);
}
DC_EXPORT_LEAF char *__strcat_chk(char *d, const char *s, size_t room) {
  REAL(char *, __strcat_chk, char *, const char *, size_t);
  REAL(size_t, strlen, const char *);
  if (real_strlen(d) + real_strlen(s) < room) strcat_ranges(d, s, PC());
  return real___strcat_chk(d, s, room);
}
static void read_cmp(const char *a, const char *b, size_t limit, uintptr_t pc) {
  size_t i = 0;
  while (i < limit && a[i] && a[i] == b[i]) i++;
  size_t n = i < limit ? i + 1 : limit;
  if (n) {
    rd_range((uintptr_t)a, n, 0, pc);
    rd_range((uintptr_t)b, n, 0, pc);
  }
}
DC_EXPORT_LEAF int strcmp(const char *a, const char *b) {
  REAL(int, strcmp, const char *, const char *);
  if (watching()) read_cmp(a, b, (size_t)-1, PC());
  return real_strcmp(a, b);
}
DC_EXPORT_LEAF int strncmp(const char *a, const char *b, size_t n) {
  REAL(int, strncmp, const char *, const char *, size_t);
  if (watching()) read_cmp(a, b, n, PC());
  return real_strncmp(a, b, n);
}
DC_EXPORT_LEAF char *strchr(const char *s, int c) {
  REAL(char *, strchr, const char *, int);
  char *r = real_strchr(s, c);
  if (watching()) {
    size_t n = r ? (size_t)(r - s) + 1 : 0;
    if (!r) {
      REAL(size_t, strlen, const char *);
      n = real_strlen(s) + 1;
    }
    rd_range((uintptr_t)s, n, 0, PC());
  }
  return r;
}
DC_EXPORT_LEAF char *strdup(const char *s) {
  REAL(size_t, strlen, const char *);
  size_t n = real_strlen(s) + 1;
  if (watching()) rd_range((uintptr_t)s, n, 0, PC());
  char *d = malloc(n);
  if (d) {
    REAL(void *, memcpy, void *, const void *, size_t);
    real_memcpy(d, s, n);
  }
  return d;
}

/* The rest of the common string functions: what each reads and writes, as
 * ThreadSanitizer records them.  A scan reads up to and including the byte
 * where it stopped (the match, or the terminator); clang turns
 * `memcmp(...) == 0` into bcmp, and gcc a strcpy whose end is used into
 * stpcpy, so even code that never names these calls them. */
DC_EXPORT_LEAF size_t strnlen(const char *s, size_t n) {
  REAL(size_t, strnlen, const char *, size_t);
  const size_t r = real_strnlen(s, n);
  if (watching()) read_range(s, r < n ? r + 1 : n, PC());
  return r;
}
DC_EXPORT_LEAF char *strrchr(const char *s, int c) {
  REAL(char *, strrchr, const char *, int);
  if (watching()) read_range(s, str_size(s), PC());
  return real_strrchr(s, c);
}
DC_EXPORT_LEAF char *strchrnul(const char *s, int c) {
  REAL(char *, strchrnul, const char *, int);
  char *r = real_strchrnul(s, c);
  if (watching()) read_range(s, (size_t)(r - s) + 1, PC());
  return r;
}
DC_EXPORT_LEAF void *memchr(const void *s, int c, size_t n) {
  REAL(void *, memchr, const void *, int, size_t);
  void *r = real_memchr(s, c, n);
  if (watching()) read_range(s, r ? (size_t)((const char *)r - (const char *)s) + 1 : n, PC());
  return r;
}
DC_EXPORT_LEAF void *memrchr(const void *s, int c, size_t n) {
  REAL(void *, memrchr, const void *, int, size_t);
  void *r = real_memrchr(s, c, n);
  if (watching()) {
    const char *from = r ? (const char *)r : (const char *)s;
    read_range(from, n - (size_t)(from - (const char *)s), PC());
  }
  return r;
}
DC_EXPORT_LEAF char *strstr(const char *h, const char *nd) {
  REAL(char *, strstr, const char *, const char *);
  char *r = real_strstr(h, nd);
  if (watching()) {
    const size_t nn = str_size(nd);
    read_range(nd, nn, PC());
    read_range(h, r ? (size_t)(r - h) + nn - 1 : str_size(h), PC());
  }
  return r;
}
/* strspn, strcspn: the prefix and the byte after it; the set whole */
#define SPAN(name)                                                                \
  DC_EXPORT_LEAF size_t name(const char *s, const char *set) {                    \
    REAL(size_t, name, const char *, const char *);                               \
    const size_t r = real_##name(s, set);                                         \
    if (watching()) {                                                             \
      read_range(set, str_size(set), PC());                                       \
      read_range(s, r + 1, PC());                                                 \
    }                                                                             \
    return r;                                                                     \
  }
SPAN(strspn)
SPAN(strcspn)
DC_EXPORT_LEAF char *strpbrk(const char *s, const char *set) {
  REAL(char *, strpbrk, const char *, const char *);
  char *r = real_strpbrk(s, set);
  if (watching()) {
    read_range(set, str_size(set), PC());
    read_range(s, r ? (size_t)(r - s) + 1 : str_size(s), PC());
  }
  return r;
}
/* strcasecmp, strncasecmp: as read_cmp, with ASCII letters folded (a
 * locale that folds more bytes reads further: those bytes go unrecorded,
 * never bytes that were not read) */
static void read_casecmp(const char *a, const char *b, size_t limit, uintptr_t pc) {
  size_t i = 0;
  for (; i < limit && a[i]; i++) {
    const unsigned x = (unsigned char)a[i], y = (unsigned char)b[i];
    if ((x | (x - 'A' < 26u ? 32u : 0u)) != (y | (y - 'A' < 26u ? 32u : 0u))) break;
  }
  const size_t n = i < limit ? i + 1 : limit;
  read_range(a, n, pc);
  read_range(b, n, pc);
}
DC_EXPORT_LEAF int strcasecmp(const char *a, const char *b) {
  REAL(int, strcasecmp, const char *, const char *);
  if (watching()) read_casecmp(a, b, (size_t)-1, PC());
  return real_strcasecmp(a, b);
}
DC_EXPORT_LEAF int strncasecmp(const char *a, const char *b, size_t n) {
  REAL(int, strncasecmp, const char *, const char *, size_t);
  if (watching()) read_casecmp(a, b, n, PC());
  return real_strncasecmp(a, b, n);
}
DC_EXPORT_LEAF int bcmp(const void *a, const void *b, size_t n) {
  REAL(int, bcmp, const void *, const void *, size_t);
  if (watching()) {
    read_range(a, n, PC());
    read_range(b, n, PC());
  }
  return real_bcmp(a, b, n);
}
DC_EXPORT_LEAF char *strndup(const char *s, size_t n) {
  REAL(size_t, strnlen, const char *, size_t);
  const size_t k = real_strnlen(s, n);
  if (watching()) read_range(s, k < n ? k + 1 : n, PC());
  char *d = malloc(k + 1);
  if (d) {
    REAL(void *, memcpy, void *, const void *, size_t);
    real_memcpy(d, s, k);
    d[k] = 0;
  }
  return d;
}
/* strncat: d's string, at most n bytes of s (and its terminator if
 * reached), written after d's with a terminator */
static void strncat_ranges(const char *d, const char *s, size_t n, uintptr_t pc) {
  REAL(size_t, strlen, const char *);
  REAL(size_t, strnlen, const char *, size_t);
  if (!watching()) return;
  const size_t dn = real_strlen(d), k = real_strnlen(s, n);
  read_range(d, dn, pc);
  read_range(s, k < n ? k + 1 : n, pc);
  rd_range((uintptr_t)d + dn, k + 1, 1, pc);
}
DC_EXPORT_LEAF char *strncat(char *d, const char *s, size_t n) {
  REAL(char *, strncat, char *, const char *, size_t);
  strncat_ranges(d, s, n, PC());
  return real_strncat(d, s, n);
}
DC_EXPORT_LEAF char *stpcpy(char *d, const char *s) {
  REAL(char *, stpcpy, char *, const char *);
  strcpy_ranges(d, s, PC());
  return real_stpcpy(d, s);
}
DC_EXPORT_LEAF char *stpncpy(char *d, const char *s, size_t n) {
  REAL(char *, stpncpy, char *, const char *, size_t);
  strncpy_ranges(d, s, n, PC());
  return real_stpncpy(d, s, n);
}
DC_EXPORT_LEAF void *mempcpy(void *d, const void *s, size_t n) {
  REAL(void *, mempcpy, void *, const void *, size_t);
  copy_ranges(d, s, n, PC());
  return real_mempcpy(d, s, n);
}
DC_EXPORT_LEAF void bzero(void *d, size_t n) {
  REAL(void, bzero, void *, size_t);
  set_range(d, n, PC());
  real_bzero(d, n);
}
DC_EXPORT_LEAF void explicit_bzero(void *d, size_t n) {
  REAL(void, explicit_bzero, void *, size_t);
  set_range(d, n, PC());
  real_explicit_bzero(d, n);
}
/* their fortified variants, as above */
DC_EXPORT_LEAF char *__stpcpy_chk(char *d, const char *s, size_t room) {
  REAL(char *, __stpcpy_chk, char *, const char *, size_t);
  if (str_size(s) <= room) strcpy_ranges(d, s, PC());
  return real___stpcpy_chk(d, s, room);
}
DC_EXPORT_LEAF char *__stpncpy_chk(char *d, const char *s, size_t n, size_t room) {
  REAL(char *, __stpncpy_chk, char *, const char *, size_t, size_t);
  if (n <= room) strncpy_ranges(d, s, n, PC());
  return real___stpncpy_chk(d, s, n, room);
}
DC_EXPORT_LEAF void *__mempcpy_chk(void *d, const void *s, size_t n, size_t room) {
  REAL(void *, __mempcpy_chk, void *, const void *, size_t, size_t);
  if (n <= room) copy_ranges(d, s, n, PC());
  return real___mempcpy_chk(d, s, n, room);
}
DC_EXPORT_LEAF void __explicit_bzero_chk(void *d, size_t n, size_t room) {
  REAL(void, __explicit_bzero_chk, void *, size_t, size_t);
  if (n <= room) set_range(d, n, PC());
  real___explicit_bzero_chk(d, n, room);
}
DC_EXPORT_LEAF char *__strncat_chk(char *d, const char *s, size_t n, size_t room) {
  REAL(char *, __strncat_chk, char *, const char *, size_t, size_t);
  REAL(size_t, strlen, const char *);
  REAL(size_t, strnlen, const char *, size_t);
  if (real_strlen(d) + real_strnlen(s, n) < room) strncat_ranges(d, s, n, PC());
  return real___strncat_chk(d, s, n, room);
}

/* Number parsing: strtol and its kin read the characters they parsed and
 * the one that ended the number (after none parsed: the first), and write
 * the end pointer when asked for it, as ThreadSanitizer records them.
 * atoi and friends are theirs without the end pointer (an optimised build
 * calls strtol for them already, through glibc's inline atoi).  The
 * call's errno (ERANGE) is kept. */
static void parsed(const char *s, const char *end, char **endp, uintptr_t pc) {
  const int e = errno;
  if (watching()) {
    read_range(s, (size_t)(end - s) + 1, pc);
    if (endp) write_range(endp, sizeof *endp, pc);
  }
  errno = e;
}
#define STRTO_INT(ret, name)                                                      \
  DC_EXPORT_LEAF ret name(const char *s, char **endp, int base) {                 \
    REAL(ret, name, const char *, char **, int);                                  \
    char *end;                                                                    \
    const ret r = real_##name(s, &end, base);                                     \
    parsed(s, end, endp, PC());                                                   \
    if (endp) *endp = end;                                                        \
    return r;                                                                     \
  }
#define STRTO_FLOAT(ret, name)                                                    \
  DC_EXPORT_LEAF ret name(const char *s, char **endp) {                           \
    REAL(ret, name, const char *, char **);                                       \
    char *end;                                                                    \
    const ret r = real_##name(s, &end);                                           \
    parsed(s, end, endp, PC());                                                   \
    if (endp) *endp = end;                                                        \
    return r;                                                                     \
  }
STRTO_INT(long, strtol)
STRTO_INT(unsigned long, strtoul)
STRTO_INT(long long, strtoll)
STRTO_INT(unsigned long long, strtoull)
STRTO_INT(intmax_t, strtoimax)
STRTO_INT(uintmax_t, strtoumax)
STRTO_FLOAT(double, strtod)
STRTO_FLOAT(float, strtof)
STRTO_FLOAT(long double, strtold)
/* atoi (s) is (int)strtol (s, 0, 10), and so on */
#define ATO(ret, name, parse_ret, parse, types, args)                             \
  DC_EXPORT_LEAF ret name(const char *s) {                                        \
    REAL(parse_ret, parse, LIBC_UNPAREN types);                                   \
    char *end;                                                                    \
    const ret r = (ret)real_##parse args;                                         \
    parsed(s, end, 0, PC());                                                      \
    return r;                                                                     \
  }
#define LIBC_UNPAREN(...) __VA_ARGS__
ATO(int, atoi, long, strtol, (const char *, char **, int), (s, &end, 10))
ATO(long, atol, long, strtol, (const char *, char **, int), (s, &end, 10))
ATO(long long, atoll, long long, strtoll, (const char *, char **, int), (s, &end, 10))
ATO(double, atof, double, strtod, (const char *, char **), (s, &end))
