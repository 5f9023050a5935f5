/* intercept_libc.c: memory and string functions read and write ranges.
 * Compilers emit calls to memcpy/memmove/memset for block copies, so these
 * matter even in code that never names them.  The runtime itself never calls
 * them (tests/check_runtime_symbols.sh checks the object's undefined
 * symbols), and skips its own accesses anyway (in_runtime). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "intercept.h"

static inline int watching(void) {
  dc_thread *t = dc_self();
  return t && !t->in_runtime && !t->rd.ignore_accesses;
}

/* What each function reads and writes, recorded before the call: shared
 * by the plain functions and their fortified variants (below). */
static void record_copy(const void *d, const void *s, size_t n, uintptr_t pc) {
  rd_range((uintptr_t)s, n, 0, pc);
  rd_range((uintptr_t)d, n, 1, pc);
}
static void copy_ranges(const void *d, const void *s, size_t n, uintptr_t pc) {
  if (watching() && n) record_copy(d, s, n, pc);
}
static void set_range(const void *d, size_t n, uintptr_t pc) {
  if (watching() && n) rd_range((uintptr_t)d, n, 1, pc);
}
static void strcpy_ranges(const char *d, const char *s, uintptr_t pc) {
  REAL(size_t, strlen, const char *);
  if (watching()) record_copy(d, s, real_strlen(s) + 1, pc);
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

DC_EXPORT void *memcpy(void *d, const void *s, size_t n) {
  REAL(void *, memcpy, void *, const void *, size_t);
  copy_ranges(d, s, n, PC());
  return real_memcpy(d, s, n);
}
DC_EXPORT void *memmove(void *d, const void *s, size_t n) {
  REAL(void *, memmove, void *, const void *, size_t);
  copy_ranges(d, s, n, PC());
  return real_memmove(d, s, n);
}
DC_EXPORT void *memset(void *d, int c, size_t n) {
  REAL(void *, memset, void *, int, size_t);
  set_range(d, n, PC());
  return real_memset(d, c, n);
}
DC_EXPORT int memcmp(const void *a, const void *b, size_t n) {
  REAL(int, memcmp, const void *, const void *, size_t);
  if (watching() && n) {
    rd_range((uintptr_t)a, n, 0, PC());
    rd_range((uintptr_t)b, n, 0, PC());
  }
  return real_memcmp(a, b, n);
}
DC_EXPORT size_t strlen(const char *s) {
  REAL(size_t, strlen, const char *);
  size_t n = real_strlen(s);
  if (watching()) rd_range((uintptr_t)s, n + 1, 0, PC());
  return n;
}
DC_EXPORT char *strcpy(char *d, const char *s) {
  REAL(char *, strcpy, char *, const char *);
  strcpy_ranges(d, s, PC());
  return real_strcpy(d, s);
}
DC_EXPORT char *strncpy(char *d, const char *s, size_t n) {
  REAL(char *, strncpy, char *, const char *, size_t);
  strncpy_ranges(d, s, n, PC());
  return real_strncpy(d, s, n);
}
DC_EXPORT char *strcat(char *d, const char *s) {
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
DC_EXPORT void *__memcpy_chk(void *d, const void *s, size_t n, size_t room) {
  REAL(void *, __memcpy_chk, void *, const void *, size_t, size_t);
  if (n <= room) copy_ranges(d, s, n, PC());
  return real___memcpy_chk(d, s, n, room);
}
DC_EXPORT void *__memmove_chk(void *d, const void *s, size_t n, size_t room) {
  REAL(void *, __memmove_chk, void *, const void *, size_t, size_t);
  if (n <= room) copy_ranges(d, s, n, PC());
  return real___memmove_chk(d, s, n, room);
}
DC_EXPORT void *__memset_chk(void *d, int c, size_t n, size_t room) {
  REAL(void *, __memset_chk, void *, int, size_t, size_t);
  if (n <= room) set_range(d, n, PC());
  return real___memset_chk(d, c, n, room);
}
DC_EXPORT char *__strcpy_chk(char *d, const char *s, size_t room) {
  REAL(char *, __strcpy_chk, char *, const char *, size_t);
  REAL(size_t, strlen, const char *);
  if (real_strlen(s) < room) strcpy_ranges(d, s, PC());
  return real___strcpy_chk(d, s, room);
}
DC_EXPORT char *__strncpy_chk(char *d, const char *s, size_t n, size_t room) {
  REAL(char *, __strncpy_chk, char *, const char *, size_t, size_t);
  if (n <= room) strncpy_ranges(d, s, n, PC());
  return real___strncpy_chk(d, s, n, room);
}
DC_EXPORT char *__strcat_chk(char *d, const char *s, size_t room) {
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
DC_EXPORT int strcmp(const char *a, const char *b) {
  REAL(int, strcmp, const char *, const char *);
  if (watching()) read_cmp(a, b, (size_t)-1, PC());
  return real_strcmp(a, b);
}
DC_EXPORT int strncmp(const char *a, const char *b, size_t n) {
  REAL(int, strncmp, const char *, const char *, size_t);
  if (watching()) read_cmp(a, b, n, PC());
  return real_strncmp(a, b, n);
}
DC_EXPORT char *strchr(const char *s, int c) {
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
DC_EXPORT char *strdup(const char *s) {
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
