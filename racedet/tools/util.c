/* util.c: arena, string buffers and small helpers shared by the launcher. */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../report_words.h"
#include "../signal_words.h"
#include "launcher.h"

/* ------------------------------------------------------------ arena */
struct lr_chunk {
  struct lr_chunk *next;
  size_t used, cap;
  _Alignas(16) char data[];
};

static void oom(void) {
  fputs("dacce-race: out of memory\n", stderr);
  exit(2);
}

void *lr_alloc(lr_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  struct lr_chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > 16384 ? n : 16384;
    c = malloc(sizeof *c + cap);
    if (!c) oom();
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

char *lr_strndup(lr_arena *a, const char *s, size_t n) {
  char *p = lr_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

char *lr_strdup(lr_arena *a, const char *s) { return s ? lr_strndup(a, s, strlen(s)) : NULL; }

void lr_arena_free(lr_arena *a) {
  struct lr_chunk *c = a->head;
  while (c) {
    struct lr_chunk *n = c->next;
    free(c);
    c = n;
  }
  a->head = NULL;
}

/* ------------------------------------------------------------ buffers */
static void reserve(lr_buf *b, size_t extra) {
  if (b->cap - b->n > extra) return;
  size_t cap = b->cap ? b->cap : 1024;
  while (cap - b->n <= extra) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) oom();
  b->p = p;
  b->cap = cap;
}

void lr_bputn(lr_buf *b, const char *s, size_t n) {
  reserve(b, n);
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

void lr_bputs(lr_buf *b, const char *s) { lr_bputn(b, s, strlen(s)); }

void lr_bput(lr_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (k < 0) return;
  if ((size_t)k < sizeof tmp) {
    lr_bputn(b, tmp, (size_t)k);
    return;
  }
  reserve(b, (size_t)k);
  va_start(ap, fmt);
  vsnprintf(b->p + b->n, (size_t)k + 1, fmt, ap);
  va_end(ap);
  b->n += (size_t)k;
}

void lr_bjson_str(lr_buf *b, const char *s) {
  if (!s) {
    lr_bputs(b, "null");
    return;
  }
  lr_bputs(b, "\"");
  const char *run = s;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    const char *esc = NULL;
    char u[8];
    switch (*p) {
      case '"': esc = "\\\""; break;
      case '\\': esc = "\\\\"; break;
      case '\n': esc = "\\n"; break;
      case '\r': esc = "\\r"; break;
      case '\t': esc = "\\t"; break;
      default:
        if (*p < 0x20 || *p == 0x7f) {
          snprintf(u, sizeof u, "\\u%04x", *p);
          esc = u;
        }
    }
    if (esc) {
      lr_bputn(b, run, (size_t)((const char *)p - run));
      lr_bputs(b, esc);
      run = (const char *)p + 1;
    }
  }
  lr_bputs(b, run);
  lr_bputs(b, "\"");
}

void lr_buf_free(lr_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

const char *lr_basename(const char *path) {
  if (!path) return NULL;
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

uint64_t lr_fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *c = p;
  for (size_t i = 0; i < n; i++) h = (h ^ c[i]) * 0x100000001b3ull;
  return h;
}

/* ------------------------------------------------------------ report helpers */
const char *lr_kind_words(const char *kind) {
  if (!strcmp(kind, "data-race")) return "data race";
  if (!strcmp(kind, "thread-leak")) return "thread leak";
  if (!strcmp(kind, "lock-order-inversion")) return RD_DEADLOCK_TITLE;
  if (!strcmp(kind, "signal-unsafe-call")) return RD_SIGNAL_UNSAFE_TITLE;
  if (!strcmp(kind, "signal-errno")) return RD_SIGNAL_ERRNO_TITLE;
  return kind;
}

int lr_misuse_index(const lr_report *r) {
  static const char *const codes[] = RD_MISUSE_CODES;
  for (int i = 0; lr_is_misuse(r) && r->misuse && i < (int)(sizeof codes / sizeof *codes); i++)
    if (!strcmp(r->misuse, codes[i])) return i;
  return -1;
}

const char *lr_report_title(const lr_report *r) {
  static const char *const titles[] = RD_MISUSE_TITLES;
  if (!strcmp(r->kind, "data-race") && r->acc[0].is_vptr)
    return RD_VPTR_RACE_TITLE;
  const int m = lr_misuse_index(r);
  if (m >= 0) return titles[m];
  return lr_kind_words(r->kind);
}

int lr_is_leak(const lr_report *r) { return !strcmp(r->kind, "thread-leak"); }
int lr_is_deadlock(const lr_report *r) { return !strcmp(r->kind, "lock-order-inversion"); }
int lr_is_misuse(const lr_report *r) { return !strcmp(r->kind, "mutex-misuse"); }
const char *lr_signal_name(int sig, char buf[24]) { return rd_signal_name(sig, buf); }
int lr_is_signal(const lr_report *r) {
  return !strcmp(r->kind, "signal-unsafe-call") || !strcmp(r->kind, "signal-errno");
}

const lr_thread *lr_leaked_thread(const lr_report *r) {
  for (int i = 0; i < r->nthreads; i++)
    if (r->threads[i].id == r->leak_thread) return &r->threads[i];
  return NULL;
}

const char *lr_thread_name(const lr_report *r, unsigned id, char buf[LR_TNAME]) {
  if (id == 0) return "main thread";
  const char *name = "";
  for (int i = 0; r && i < r->nthreads; i++)
    if (r->threads[i].id == id && r->threads[i].name) name = r->threads[i].name;
  snprintf(buf, LR_TNAME, "thread T%u%s%.60s%s", id, *name ? " '" : "", name, *name ? "'" : "");
  return buf;
}

const lr_frame *lr_report_top(const lr_report *r) {
  const lr_thread *leaked = lr_is_leak(r) ? lr_leaked_thread(r) : NULL;
  const lr_stack *s = leaked ? &leaked->created
                     : lr_is_deadlock(r) && r->nedges ? &r->edges[0].wanted
                                                      : &r->acc[0].st;
  for (int i = 0; i < s->n; i++)
    if (s->f[i].file) return &s->f[i];
  return s->n ? &s->f[0] : NULL;
}
