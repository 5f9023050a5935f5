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

DC_EXPORT void *memcpy(void *d, const void *s, size_t n) {
  REAL(void *, memcpy, void *, const void *, size_t);
  if (watching() && n) {
    rd_range((uintptr_t)s, n, 0, PC());
    rd_range((uintptr_t)d, n, 1, PC());
  }
  return real_memcpy(d, s, n);
}
DC_EXPORT void *memmove(void *d, const void *s, size_t n) {
  REAL(void *, memmove, void *, const void *, size_t);
  if (watching() && n) {
    rd_range((uintptr_t)s, n, 0, PC());
    rd_range((uintptr_t)d, n, 1, PC());
  }
  return real_memmove(d, s, n);
}
DC_EXPORT void *memset(void *d, int c, size_t n) {
  REAL(void *, memset, void *, int, size_t);
  if (watching() && n) rd_range((uintptr_t)d, n, 1, PC());
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
  REAL(size_t, strlen, const char *);
  if (watching()) {
    size_t n = real_strlen(s) + 1;
    rd_range((uintptr_t)s, n, 0, PC());
    rd_range((uintptr_t)d, n, 1, PC());
  }
  return real_strcpy(d, s);
}
DC_EXPORT char *strncpy(char *d, const char *s, size_t n) {
  REAL(char *, strncpy, char *, const char *, size_t);
  REAL(size_t, strnlen, const char *, size_t);
  if (watching() && n) {
    size_t k = real_strnlen(s, n);
    rd_range((uintptr_t)s, k < n ? k + 1 : n, 0, PC());
    rd_range((uintptr_t)d, n, 1, PC());
  }
  return real_strncpy(d, s, n);
}
DC_EXPORT char *strcat(char *d, const char *s) {
  REAL(char *, strcat, char *, const char *);
  REAL(size_t, strlen, const char *);
  if (watching()) {
    size_t dn = real_strlen(d), sn = real_strlen(s) + 1;
    rd_range((uintptr_t)d, dn, 0, PC());
    rd_range((uintptr_t)s, sn, 0, PC());
    rd_range((uintptr_t)d + dn, sn, 1, PC());
  }
  return real_strcat(d, s);
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
