/* common.c: logging, memory and hashing that are safe inside a preloaded
 * runtime (no malloc, no stdio on the hot or early paths). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <limits.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>
#include <sys/syscall.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "internal.h"

/* ------------------------------------------------------------ system calls */
long dc_write(int fd, const void *p, size_t n) { return syscall(SYS_write, fd, p, n); }
long dc_read(int fd, void *p, size_t n) { return syscall(SYS_read, fd, p, n); }
int dc_open(const char *path, int flags, int mode) {
  return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
}
int dc_close(int fd) { return (int)syscall(SYS_close, fd); }

/* ------------------------------------------------------------ formatting */
/* The runtime's own snprintf.  It may not call the printf family: the
 * runtime intercepts it (intercept_stdio.c), and formats reports where
 * stdio is not safe (in a crashing thread's signal handler, under its own
 * locks).  The conversions: d i u o x X c s p f and %%, with the flags
 * - 0 # space +, a width and a precision (digits or *), and the length
 * modifiers hh h l ll q j z t L.  %f rounds as glibc does below 2^64; above,
 * it gives the leading digits and then zeros (the runtime prints no such
 * number).  %n, and any other conversion, is written out as text. */
typedef struct sink {
  char *p;
  size_t cap, n; /* n: the length of the whole, also past cap */
} sink;
static void put(sink *s, char c) {
  if (s->n + 1 < s->cap) s->p[s->n] = c;
  s->n++;
}
static void put_n(sink *s, const char *q, size_t k) {
  while (k--) put(s, *q++);
}
static void pad(sink *s, char c, long k) {
  while (k-- > 0) put(s, c);
}
typedef struct spec {
  int left, zero, alt, space, plus;
  long width, prec; /* prec -1: none */
} spec;
/* a field: prefix (sign, 0x), zeros, then the body, padded to the width */
static void field(sink *s, const spec *f, const char *pre, const char *body, size_t len,
                  size_t zeros) {
  size_t pl = dc_strlen(pre);
  long room = f->width - (long)(pl + zeros + len);
  if (!f->left && !f->zero) pad(s, ' ', room);
  put_n(s, pre, pl);
  if (!f->left && f->zero) pad(s, '0', room);
  pad(s, '0', (long)zeros);
  put_n(s, body, len);
  if (f->left) pad(s, ' ', room);
}
/* the digits of v in base, into the end of d[24]; returns the first */
static char *digits(unsigned long long v, unsigned base, int upper, char *d) {
  const char *set = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  char *q = d + 24;
  do *--q = set[v % base];
  while (v /= base);
  return q;
}
static void put_int(sink *s, spec f, unsigned long long v, int neg, unsigned base, int upper,
                    const char *sign) {
  char d[24], *q = digits(v, base, upper, d);
  size_t len = (size_t)(d + 24 - q);
  if (f.prec >= 0) {
    f.zero = 0;
    if (f.prec == 0 && v == 0) len = 0; /* "%.0d" of 0 is nothing */
  }
  size_t zeros = f.prec > (long)len ? (size_t)f.prec - len : 0;
  const char *pre = neg ? "-" : sign;
  if (f.alt && base == 16 && v) pre = upper ? "0X" : "0x";
  if (f.alt && base == 8 && !zeros && (len == 0 || *q != '0')) zeros = 1;
  field(s, &f, pre, q, len, zeros);
}
static void put_double(sink *s, spec f, double v) {
  const char *sign = v < 0 ? "-" : f.plus ? "+" : f.space ? " " : "";
  if (v < 0) v = -v;
  if (v != v || v > DBL_MAX) { /* nan, inf */
    f.zero = 0;
    field(s, &f, sign, v != v ? "nan" : "inf", 3, 0);
    return;
  }
  long prec = f.prec < 0 ? 6 : f.prec > 17 ? 17 : f.prec;
  unsigned long long scale = 1;
  for (long i = 0; i < prec; i++) scale *= 10;
  int tens = 0; /* above 2^64: the leading digits, then zeros */
  while (v >= 18446744073709549568.0) v /= 10, tens++;
  unsigned long long ip = (unsigned long long)v, fr = 0;
  if (!tens) { /* rounded to nearest, a tie to even, as glibc does */
    const double x = (v - (double)ip) * (double)scale;
    fr = (unsigned long long)x;
    const double rest = x - (double)fr;
    if (rest > 0.5 || (rest == 0.5 && ((prec ? fr : ip) & 1))) fr++;
    if (fr >= scale) ip++, fr -= scale;
  }
  char body[64], d[24], *q = digits(ip, 10, 0, d);
  size_t len = (size_t)(d + 24 - q);
  dc_memcpy(body, q, len);
  for (int i = 0; i < tens && len < 40; i++) body[len++] = '0';
  if (prec || f.alt) body[len++] = '.';
  for (long i = prec - 1; i >= 0; i--, fr /= 10) body[len + (size_t)i] = (char)('0' + fr % 10);
  len += (size_t)prec;
  field(s, &f, sign, body, len, 0);
}

int dc_vsnprintf(char *buf, size_t cap, const char *fmt, va_list ap) {
  sink s = {buf, cap, 0};
  for (const char *c = fmt; *c; c++) {
    if (*c != '%') {
      put(&s, *c);
      continue;
    }
    const char *start = c++;
    spec f = {0, 0, 0, 0, 0, 0, -1};
    for (;; c++) {
      if (*c == '-') f.left = 1;
      else if (*c == '0') f.zero = 1;
      else if (*c == '#') f.alt = 1;
      else if (*c == ' ') f.space = 1;
      else if (*c == '+') f.plus = 1;
      else break;
    }
    if (*c == '*') {
      f.width = va_arg(ap, int);
      if (f.width < 0) f.left = 1, f.width = -f.width;
      c++;
    } else {
      while (*c >= '0' && *c <= '9') f.width = f.width * 10 + (*c++ - '0');
    }
    if (*c == '.') {
      c++;
      f.prec = 0;
      if (*c == '*') {
        f.prec = va_arg(ap, int);
        if (f.prec < 0) f.prec = -1;
        c++;
      } else {
        while (*c >= '0' && *c <= '9') f.prec = f.prec * 10 + (*c++ - '0');
      }
    }
    if (f.left) f.zero = 0;
    int len = 0; /* 1 h, 2 hh, 3 l, 4 ll (and j, z, t, q) */
    for (;; c++) {
      if (*c == 'h') len = len == 1 ? 2 : 1;
      else if (*c == 'l') len = len == 3 ? 4 : 3;
      else if (*c == 'q' || *c == 'j' || *c == 'z' || *c == 't') len = 4;
      else if (*c != 'L') break;
    }
    const char *sign = f.plus ? "+" : f.space ? " " : "";
    switch (*c) {
    case 'd':
    case 'i': {
      long long v = len >= 4 ? va_arg(ap, long long) : len == 3 ? va_arg(ap, long) : va_arg(ap, int);
      if (len == 1) v = (short)v;
      if (len == 2) v = (signed char)v;
      put_int(&s, f, v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v, v < 0, 10, 0,
              sign);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X': {
      unsigned long long v = len >= 4   ? va_arg(ap, unsigned long long)
                             : len == 3 ? va_arg(ap, unsigned long)
                                        : va_arg(ap, unsigned);
      if (len == 1) v = (unsigned short)v;
      if (len == 2) v = (unsigned char)v;
      put_int(&s, f, v, 0, *c == 'u' ? 10 : *c == 'o' ? 8 : 16, *c == 'X', "");
      break;
    }
    case 'p': {
      void *v = va_arg(ap, void *);
      if (!v) {
        field(&s, &f, "", "(nil)", 5, 0);
        break;
      }
      f.alt = 1;
      put_int(&s, f, (uintptr_t)v, 0, 16, 0, "");
      break;
    }
    case 'c': {
      char ch = (char)va_arg(ap, int);
      f.zero = 0;
      field(&s, &f, "", &ch, 1, 0);
      break;
    }
    case 's': {
      const char *v = va_arg(ap, const char *);
      if (!v) v = "(null)";
      size_t k = 0;
      while ((f.prec < 0 || (long)k < f.prec) && v[k]) k++;
      f.zero = 0;
      field(&s, &f, "", v, k, 0);
      break;
    }
    case 'f':
    case 'F':
      put_double(&s, f, va_arg(ap, double));
      break;
    case '%':
      put(&s, '%');
      break;
    default: /* unknown (or %n): the text as it is */
      put_n(&s, start, (size_t)(c - start) + (*c != 0));
      if (!*c) c--;
    }
  }
  if (cap) buf[s.n < cap ? s.n : cap - 1] = 0;
  return s.n > INT_MAX ? -1 : (int)s.n;
}

int dc_snprintf(char *buf, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = dc_vsnprintf(buf, cap, fmt, ap);
  va_end(ap);
  return n;
}

/* ------------------------------------------------------------ logging */
void dc_write_all(int fd, const void *p, size_t n) {
  const char *q = p;
  while (n) {
    long w = dc_write(fd, q, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    q += w;
    n -= (size_t)w;
  }
}

static void vlog(const char *fmt, va_list ap) {
  char buf[2048];
  int n = dc_vsnprintf(buf, sizeof buf, fmt, ap);
  if (n < 0) return;
  dc_write_all(2, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

void dc_printf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
}

void dc_die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vlog(fmt, ap);
  va_end(ap);
  _exit(70);
}

/* ------------------------------------------------------------ memory */
/* The system calls themselves, as glibc's wrappers make them on x86-64:
 * the runtime intercepts mmap, munmap, mremap and mprotect (intercept_mmap.c), and
 * its own mappings are not the program's. */
void *dc_sys_mmap(void *addr, size_t size, int prot, int flags, int fd, off_t off) {
  return (void *)syscall(SYS_mmap, addr, size, prot, flags, fd, off);
}
int dc_sys_munmap(void *addr, size_t size) { return (int)syscall(SYS_munmap, addr, size); }
int dc_sys_mprotect(void *addr, size_t size, int prot) {
  return (int)syscall(SYS_mprotect, addr, size, prot);
}
void *dc_sys_mremap(void *old, size_t old_size, size_t size, int flags, void *to) {
  return (void *)syscall(SYS_mremap, old, old_size, size, flags, to);
}

/* The runtime's memory: reserved, committed page by page as it is
 * touched, and never in transparent huge pages, which a kernel set to
 * "always" would otherwise give every 2 MiB-aligned range at its first
 * touch: the shadow, its plane B and the runtime's tables are touched
 * sparsely (one cell in plane B committed 2 MiB).  With THP "always",
 * mergesort peaked at 577 MB, SQLite at 121 MB and rwhash at 72 MB, against
 * 428, 37 and 21 MB with "madvise" (clang TSan, which keeps huge pages off
 * its shadow too: 409, 46 and 45).  The shadow of a large block asks for
 * them itself, ahead of dense sweeps (shadow.c, sh_huge_ahead).  (errno: the program's, kept.) */
void *dc_mmap(size_t size) {
  void *p = dc_sys_mmap(0, size, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) dc_die("dacce: out of address space (mmap of %zu bytes failed)\n", size);
  const int e = errno;
  syscall(SYS_madvise, p, size, MADV_NOHUGEPAGE); /* (fails where THP is not built in) */
  errno = e;
  return p;
}

void dc_munmap(void *p, size_t size) { dc_sys_munmap(p, size); }

void *dc_mmap_once(void *_Atomic *slot, size_t size) {
  void *m = atomic_load_explicit(slot, memory_order_acquire);
  if (m) return m;
  void *fresh = dc_mmap(size);
  if (atomic_compare_exchange_strong(slot, &m, fresh)) return fresh;
  dc_munmap(fresh, size); /* another thread won */
  return m;
}

static _Atomic int perm_lock;
void *dc_perm_alloc(size_t size) {
  static char *cur, *end;
  size = (size + 15) & ~(size_t)15;
  dc_lock(&perm_lock);
  if (!cur || (size_t)(end - cur) < size) {
    size_t chunk = size > (1u << 20) ? size : (1u << 20);
    cur = dc_mmap(chunk);
    end = cur + chunk;
  }
  void *p = cur;
  cur += size;
  dc_unlock(&perm_lock);
  return p;
}

uint64_t dc_hash(const void *p, size_t n) { return XXH3_64bits(p, n); }

uint64_t dc_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ dc_vec */
void dc_vec_init(dc_vec *v, size_t elem, size_t cap) {
  v->elem = elem;
  v->cap = cap;
  v->base = dc_mmap(elem * cap);
  atomic_store(&v->n, 0);
}

/* ------------------------------------------------------------ dc_index */
/* a table's bytes, for cap slots */
static size_t itab_bytes(size_t cap) { return sizeof(dc_itab) + cap * sizeof(uint32_t); }

static dc_itab *itab_new(uint32_t log2cap) {
  size_t cap = (size_t)1 << log2cap;
  size_t bytes = itab_bytes(cap);
  dc_itab *t = dc_mmap(bytes);
  /* Probes read before they write, and a page first read gets the kernel's
   * zero page, which the write then replaces (a second fault and a TLB
   * flush on every CPU running the process: a twentieth of a run that
   * interns many contexts).  Hashing spreads a table's entries over all
   * its pages by the time it is a quarter full (it starts three eighths
   * full after growing), so committing it now costs no memory it would not
   * take. */
  if (bytes >= 65536) madvise(t, bytes, MADV_POPULATE_WRITE); /* Linux >= 5.14 */
  t->mask = (uint32_t)(cap - 1);
  return t;
}

static void itab_put(dc_itab *t, uint64_t h, uint32_t idx) {
  uint32_t pos = (uint32_t)(h >> 32);
  while (t->slots[pos & t->mask]) pos++;
  __atomic_store_n(&t->slots[pos & t->mask], dc_index_tag(h) | idx, __ATOMIC_RELEASE);
}

void dc_index_init(dc_index *x, uint32_t log2cap, uint64_t (*rehash)(uint32_t idx)) {
  atomic_store(&x->tab, itab_new(log2cap));
  x->used = 0;
  x->rehash = rehash;
}

/* Caller holds the owner's lock.  A table grows when it would be three
 * quarters full (at half, mergesort's ccStack nodes' index took 8 MB
 * instead of 4).  Growth rehashes every record (the slots keep only a
 * tag).  The old table stays mapped (but empty) for readers still inside
 * it; a reader that misses there re-checks under the owner's lock. */
void dc_index_insert(dc_index *x, uint64_t h, uint32_t idx) {
  if (!idx || idx >= DC_INDEX_MAX) dc_die("dacce: index entry %u out of range\n", idx);
  dc_itab *t = atomic_load_explicit(&x->tab, memory_order_relaxed);
  if ((uint64_t)(x->used + 1) * 4 > ((uint64_t)t->mask + 1) * 3) {
    uint32_t log2 = 0;
    while (((uint64_t)1 << log2) <= (uint64_t)t->mask) log2++;
    dc_itab *n = itab_new(log2 + 1);
    for (uint64_t i = 0; i <= t->mask; i++)
      if (t->slots[i]) {
        const uint32_t j = t->slots[i] & (DC_INDEX_MAX - 1);
        itab_put(n, x->rehash(j), j);
      }
    atomic_store_explicit(&x->tab, n, memory_order_release);
    /* The old table's pages go back to the kernel; its mapping stays.  A
     * reader still inside it reads zeros, the end of every probe: a miss,
     * which it re-checks under the owner's lock in the new table.  Kept,
     * the tables a big index outgrew were as big as the one it uses (48 MB
     * of mergesort's peak, with 8-byte slots). */
    madvise(t, itab_bytes((size_t)t->mask + 1), MADV_DONTNEED);
    t = n;
  }
  itab_put(t, h, idx);
  x->used++;
}

/* ------------------------------------------------------------ dc_alloc */
/* Power-of-two size classes from 16 bytes to 64 KiB with free lists; larger
 * blocks are mapped directly.  The lists are shared under one lock; the
 * four smallest classes also have a magazine per thread (dc_thread.mag),
 * which an allocation takes from and a free puts into without the lock,
 * a batch at a time to and from the shared lists.  Those classes are the
 * sync objects' clocks (racedet/clock.c): a program that release-stores
 * to many atomic locations and frees them (bench/kernels/atomics.c, LevelDB's
 * skip list nodes) makes and frees a clock for each, and its threads took
 * the one lock twice per location, from both CPUs (rd_vc_ensure's
 * allocation 96 instructions, the free about 65, callgrind). */
#define DC_NCLASS 13
#define MAG_BATCH 32u /* blocks moved between a magazine and the shared list */
#define MAG_MAX 64u   /* a magazine that would hold more gives MAG_BATCH back */
static void *free_list[DC_NCLASS];
static _Atomic int alloc_lock;

static inline int size_class(size_t size) {
  return size <= 16 ? 0 : 60 - __builtin_clzl(size - 1); /* (16 << c >= size) */
}

static inline void zero_block(void *p, size_t csize) {
  for (size_t i = 0; i < csize / 8; i++) ((uint64_t *)p)[i] = 0;
}

/* Free blocks are lists through their first word. */
static inline void *pop(void **head) {
  void *p = *head;
  if (p) *head = *(void **)p;
  return p;
}
static inline void push(void **head, void *p) {
  *(void **)p = *head;
  *head = p;
}

/* An empty magazine of class c gets up to MAG_BATCH blocks from the shared
 * list; none there: 0, and the caller takes new memory, one block (a
 * batch of new blocks per thread and class would hold about 7 KB of every
 * thread alive: its table of sites alone is two classes). */
static int mag_fill(dc_thread *t, int c) {
  void *p;
  uint32_t n = 0;
  dc_lock(&alloc_lock);
  while (n < MAG_BATCH && (p = pop(&free_list[c]))) push(&t->mag[c], p), n++;
  dc_unlock(&alloc_lock);
  t->mag_n[c] = n;
  return n != 0;
}

/* n blocks from the head of the thread's magazine of class c go back to the
 * shared list. */
static void mag_drain(dc_thread *t, int c, uint32_t n) {
  void *first = t->mag[c], *last = first;
  if (!first || !n) return;
  uint32_t k = 1;
  for (; k < n && *(void **)last; k++) last = *(void **)last;
  t->mag[c] = *(void **)last;
  t->mag_n[c] -= k;
  dc_lock(&alloc_lock);
  *(void **)last = free_list[c];
  free_list[c] = first;
  dc_unlock(&alloc_lock);
}

/* The thread's own state for its magazines, with its asynchronous signals
 * deferred (as dc_lock defers them: a handler's runtime work may allocate),
 * or 0. */
static inline dc_thread *mag_enter(int c) {
  dc_thread *t = c < DC_MAG_CLASSES ? dc_guard_owner() : 0;
  if (t) dc_hold(t);
  return t;
}

void *dc_alloc(size_t size) {
  if (size > ((size_t)16 << (DC_NCLASS - 1))) return dc_mmap((size + 4095) & ~(size_t)4095);
  int c = size_class(size);
  size_t csize = (size_t)16 << c;
  void *p;
  dc_thread *t = mag_enter(c);
  if (t) {
    if ((p = t->mag[c] || mag_fill(t, c) ? pop(&t->mag[c]) : 0)) t->mag_n[c]--;
    dc_unhold(t);
  } else {
    dc_lock(&alloc_lock);
    p = pop(&free_list[c]);
    dc_unlock(&alloc_lock);
  }
  if (!p) return dc_perm_alloc(csize);
  zero_block(p, csize);
  return p;
}

void dc_free(void *p, size_t size) {
  if (!p) return;
  if (size > ((size_t)16 << (DC_NCLASS - 1))) {
    dc_munmap(p, (size + 4095) & ~(size_t)4095);
    return;
  }
  int c = size_class(size);
  dc_thread *t = mag_enter(c);
  if (t) {
    push(&t->mag[c], p);
    if (++t->mag_n[c] > MAG_MAX) mag_drain(t, c, MAG_BATCH);
    dc_unhold(t);
    return;
  }
  dc_lock(&alloc_lock);
  push(&free_list[c], p);
  dc_unlock(&alloc_lock);
}

void dc_alloc_thread_end(dc_thread *t) {
  for (int c = 0; c < DC_MAG_CLASSES; c++) mag_drain(t, c, t->mag_n[c]);
}

/* ------------------------------------------------------------ fork */
typedef struct lockset {
  int rank;
  _Atomic int *first;
  unsigned count;
  size_t stride;
  void (*inner)(int lock); /* locks nested inside this set (sync objects) */
} lockset;
static lockset locksets[32];
static int n_locksets;

void dc_atfork_register(int rank, _Atomic int *first, unsigned count, size_t stride) {
  dc_atfork_register_inner(rank, first, count, stride, 0);
}

void dc_atfork_register_inner(int rank, _Atomic int *first, unsigned count, size_t stride,
                              void (*inner)(int lock)) {
  if (n_locksets == 32) dc_die("dacce: internal error: too many lock sets\n");
  int i = n_locksets++;
  while (i > 0 && locksets[i - 1].rank > rank) {
    locksets[i] = locksets[i - 1];
    i--;
  }
  locksets[i] = (lockset){rank, first, count, stride, inner};
}

static _Atomic int *lock_at(const lockset *l, unsigned k) {
  return (_Atomic int *)((char *)l->first + (size_t)k * l->stride);
}

/* The calling thread's state (thread.c makes it; until then
 * dc_unborn_thread), here with the locks that read it; and the state of
 * every thread past its end (and of one not yet made): in the runtime for
 * good, its accesses and synchronisation ignored, as a thread without a
 * slot's (a program's thread-specific-data destructors can run after the
 * runtime's: tests/racedet/key_destructor_late.c). */
DC_TLS dc_thread *dc_tls = &dc_unborn_thread;
void (*_Atomic dc_sig_deliver)(dc_thread *t);
#define DC_IGNORING_THREAD                                                                   \
  {                                                                                          \
    .in_runtime = 1, .serial = UINT32_MAX,                                                   \
    .rd = {.ignore_accesses = 1, .ignore_sync = 1, .disabled = 1 }                          \
  }
dc_thread dc_dead_thread = DC_IGNORING_THREAD, dc_unborn_thread = DC_IGNORING_THREAD;

static void sift_down(uint32_t *a, uint32_t i, uint32_t n, int (*before)(uint32_t, uint32_t)) {
  for (uint32_t k; (k = 2 * i + 1) < n; i = k) {
    if (k + 1 < n && before(a[k], a[k + 1])) k++;
    if (!before(a[i], a[k])) return;
    const uint32_t x = a[i];
    a[i] = a[k], a[k] = x;
  }
}

void dc_sort_u32(uint32_t *a, uint32_t n, int (*before)(uint32_t x, uint32_t y)) {
  for (uint32_t i = n / 2; i-- > 0;) sift_down(a, i, n, before);
  while (n > 1) {
    const uint32_t x = a[0];
    a[0] = a[--n], a[n] = x;
    sift_down(a, 0, n, before);
  }
}

void dc_lock_wait(_Atomic int *l) {
  for (unsigned n = 0; n < 100; n++) {
    __builtin_ia32_pause();
    int free = 0;
    if (!atomic_load_explicit(l, memory_order_relaxed) &&
        atomic_compare_exchange_strong_explicit(l, &free, 1, memory_order_acquire,
                                                memory_order_relaxed))
      return;
  }
  /* asleep until an unlock sees the 2; taken as 2 (there may be other
   * sleepers: this thread's unlock wakes the next one) */
  const int e = errno; /* (a wait that finds the word changed fails: EAGAIN) */
  while (atomic_exchange_explicit(l, 2, memory_order_acquire))
    syscall(SYS_futex, l, FUTEX_WAIT_PRIVATE, 2, (void *)0, (void *)0, 0);
  errno = e;
}

void dc_lock_wake(_Atomic int *l) {
  const int e = errno;
  syscall(SYS_futex, l, FUTEX_WAKE_PRIVATE, 1, (void *)0, (void *)0, 0);
  errno = e;
}

void dc_atfork_prepare(void) {
  for (int i = 0; i < n_locksets; i++) {
    for (unsigned k = 0; k < locksets[i].count; k++) {
      dc_lock(lock_at(&locksets[i], k));
    }
    if (locksets[i].inner) locksets[i].inner(1);
  }
}

void dc_atfork_release(void) {
  for (int i = n_locksets; i-- > 0;) {
    if (locksets[i].inner) locksets[i].inner(0);
    for (unsigned k = 0; k < locksets[i].count; k++) dc_unlock(lock_at(&locksets[i], k));
  }
}

__attribute__((constructor)) static void common_locks(void) {
  dc_atfork_register(DC_RANK_ALLOC, &alloc_lock, 1, 0);
  dc_atfork_register(DC_RANK_PERM, &perm_lock, 1, 0);
}
