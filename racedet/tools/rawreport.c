/* rawreport.c: one line of the runtime's raw reports (racedet/report.c
 * render_raw) -> lr_report with raw frames.
 *
 * A small JSON parser (RFC 8259 values; nesting limited, no external
 * library) builds a tree in the report's arena; the fields are then taken
 * from the tree.  Anything malformed, at any depth, rejects the line with a
 * reason: a damaged line (a child that died mid-write, interleaved writes)
 * must never crash the launcher or produce a half report.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

/* ------------------------------------------------------------ JSON tree */
typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ } jtype;
typedef struct jval {
  jtype t;
  int b;               /* J_BOOL */
  const char *s;       /* J_STR (NUL-terminated), J_NUM (its text) */
  int is_int;          /* J_NUM without fraction or exponent */
  long long i;         /* J_NUM: value when is_int and it fits */
  struct jval *child;  /* J_ARR, J_OBJ: first element / member */
  struct jval *next;   /* next sibling */
  const char *key;     /* member name inside an object */
} jval;

typedef struct jparser {
  const char *p, *end;
  lr_arena *a;
  const char *err;
  int depth;
} jparser;

#define J_MAX_DEPTH 32

static void ws(jparser *j) {
  while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
    j->p++;
}

static int fail(jparser *j, const char *why) {
  if (!j->err) j->err = why;
  return -1;
}

static int hex4(const char *p, unsigned *out) {
  unsigned v = 0;
  for (int k = 0; k < 4; k++) {
    char c = p[k];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return -1;
  }
  *out = v;
  return 0;
}

static size_t utf8(unsigned cp, char *o) {
  if (cp < 0x80) { o[0] = (char)cp; return 1; }
  if (cp < 0x800) { o[0] = (char)(0xc0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
  if (cp < 0x10000) {
    o[0] = (char)(0xe0 | cp >> 12);
    o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (char)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (char)(0xf0 | cp >> 18);
  o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (char)(0x80 | (cp & 0x3f));
  return 4;
}

/* at the opening quote */
static int jstring(jparser *j, const char **out) {
  j->p++;
  const char *start = j->p;
  size_t n = 0;
  /* first pass: find the end, check escapes and size the result */
  const char *q = start;
  while (q < j->end && *q != '"') {
    unsigned char c = (unsigned char)*q;
    if (c < 0x20) return fail(j, "control character in a string");
    if (c == '\\') {
      if (q + 1 >= j->end) return fail(j, "unterminated string");
      if (q[1] == 'u') {
        if (j->end - q < 6) return fail(j, "bad \\u escape");
        q += 6;
        n += 4; /* upper bound per escape (a surrogate pair gives 4 for 12) */
        continue;
      }
      if (!strchr("\"\\/bfnrt", q[1])) return fail(j, "bad escape in a string");
      q += 2;
      n++;
      continue;
    }
    q++;
    n++;
  }
  if (q >= j->end) return fail(j, "unterminated string");
  char *o = lr_alloc(j->a, n + 1), *w = o;
  for (const char *p = start; p < q;) {
    if (*p != '\\') {
      *w++ = *p++;
      continue;
    }
    char e = p[1];
    if (e != 'u') {
      const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
      *w++ = to[strchr(from, e) - from];
      p += 2;
      continue;
    }
    unsigned cp;
    if (hex4(p + 2, &cp)) return fail(j, "bad \\u escape");
    p += 6;
    if (cp >= 0xd800 && cp < 0xdc00) {
      unsigned lo;
      if (q - p >= 6 && p[0] == '\\' && p[1] == 'u' && !hex4(p + 2, &lo) && lo >= 0xdc00 &&
          lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        p += 6;
      } else {
        cp = 0xfffd;
      }
    } else if (cp >= 0xdc00 && cp < 0xe000) {
      cp = 0xfffd;
    }
    if (cp == 0) cp = 0xfffd; /* no NULs inside C strings */
    w += utf8(cp, w);
  }
  *w = 0;
  *out = o;
  j->p = q + 1;
  return 0;
}

static int jvalue(jparser *j, jval *v);

static int jnumber(jparser *j, jval *v) {
  const char *s = j->p;
  const char *p = s;
  if (p < j->end && *p == '-') p++;
  if (p >= j->end || *p < '0' || *p > '9') return fail(j, "bad number");
  if (*p == '0') p++;
  else while (p < j->end && *p >= '0' && *p <= '9') p++;
  int is_int = 1;
  if (p < j->end && *p == '.') {
    is_int = 0;
    p++;
    if (p >= j->end || *p < '0' || *p > '9') return fail(j, "bad number");
    while (p < j->end && *p >= '0' && *p <= '9') p++;
  }
  if (p < j->end && (*p == 'e' || *p == 'E')) {
    is_int = 0;
    p++;
    if (p < j->end && (*p == '+' || *p == '-')) p++;
    if (p >= j->end || *p < '0' || *p > '9') return fail(j, "bad number");
    while (p < j->end && *p >= '0' && *p <= '9') p++;
  }
  v->t = J_NUM;
  v->s = lr_strndup(j->a, s, (size_t)(p - s));
  if (is_int) {
    errno = 0;
    long long x = strtoll(v->s, NULL, 10);
    v->is_int = errno == 0;
    v->i = x;
  }
  j->p = p;
  return 0;
}

static int literal(jparser *j, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n)) return fail(j, "bad literal");
  j->p += n;
  return 0;
}

static int jvalue(jparser *j, jval *v) {
  ws(j);
  if (j->p >= j->end) return fail(j, "unexpected end of line");
  char c = *j->p;
  if (c == '{' || c == '[') {
    if (++j->depth > J_MAX_DEPTH) return fail(j, "nested too deeply");
    int obj = c == '{';
    v->t = obj ? J_OBJ : J_ARR;
    j->p++;
    ws(j);
    jval **tail = &v->child;
    if (j->p < j->end && *j->p == (obj ? '}' : ']')) {
      j->p++;
      j->depth--;
      return 0;
    }
    for (;;) {
      jval *e = lr_alloc(j->a, sizeof *e);
      if (obj) {
        ws(j);
        if (j->p >= j->end || *j->p != '"') return fail(j, "expected a member name");
        if (jstring(j, &e->key)) return -1;
        ws(j);
        if (j->p >= j->end || *j->p != ':') return fail(j, "expected ':'");
        j->p++;
      }
      if (jvalue(j, e)) return -1;
      *tail = e;
      tail = &e->next;
      ws(j);
      if (j->p >= j->end) return fail(j, "unexpected end of line");
      if (*j->p == ',') {
        j->p++;
        continue;
      }
      if (*j->p == (obj ? '}' : ']')) {
        j->p++;
        break;
      }
      return fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
    j->depth--;
    return 0;
  }
  if (c == '"') {
    v->t = J_STR;
    return jstring(j, &v->s);
  }
  if (c == 't') { v->t = J_BOOL; v->b = 1; return literal(j, "true"); }
  if (c == 'f') { v->t = J_BOOL; v->b = 0; return literal(j, "false"); }
  if (c == 'n') { v->t = J_NULL; return literal(j, "null"); }
  return jnumber(j, v);
}

static const jval *get(const jval *o, const char *key) {
  if (!o || o->t != J_OBJ) return NULL;
  for (const jval *m = o->child; m; m = m->next)
    if (!strcmp(m->key, key)) return m;
  return NULL;
}

/* ------------------------------------------------------------ fields */
typedef struct conv {
  lr_arena *a;
  const char *err;
  char detail[160];
} conv;

static int bad(conv *c, const char *field, const char *what) {
  if (!c->err) {
    snprintf(c->detail, sizeof c->detail, "'%s' %s", field, what);
    c->err = c->detail;
  }
  return -1;
}

/* A hex string ("0x1f", also "0") -> *out. */
static int field_hex(conv *c, const jval *o, const char *key, uint64_t *out, int required) {
  const jval *v = get(o, key);
  if (!v) return required ? bad(c, key, "missing") : 0;
  if (v->t != J_STR) return bad(c, key, "is not a hex string");
  const char *s = v->s;
  char *end;
  errno = 0;
  unsigned long long x = strtoull(s, &end, 16);
  if (!*s || *end || errno || s[0] == '-' || s[0] == '+' || s[0] == ' ')
    return bad(c, key, "is not a hex string");
  *out = x;
  return 0;
}

static int field_uint(conv *c, const jval *o, const char *key, uint64_t max, uint64_t *out,
                      int required) {
  const jval *v = get(o, key);
  if (!v) return required ? bad(c, key, "missing") : 0;
  if (v->t != J_NUM || !v->is_int || v->i < 0 || (uint64_t)v->i > max)
    return bad(c, key, "is not a valid count");
  *out = (uint64_t)v->i;
  return 0;
}

static int field_bool(conv *c, const jval *o, const char *key, int *out) {
  const jval *v = get(o, key);
  if (!v) return 0;
  if (v->t != J_BOOL) return bad(c, key, "is not a boolean");
  *out = v->b;
  return 0;
}

static int field_str(conv *c, const jval *o, const char *key, const char **out, int required) {
  const jval *v = get(o, key);
  if (!v || v->t == J_NULL) return required ? bad(c, key, "missing") : 0;
  if (v->t != J_STR) return bad(c, key, "is not a string");
  *out = v->s;
  return 0;
}

static int raw_frame(conv *c, const jval *f, lr_frame *out) {
  if (!f || f->t != J_OBJ) return bad(c, "frames", "holds a non-object");
  uint64_t pc = 0, bias = 0;
  const char *mod = NULL;
  if (field_hex(c, f, "pc", &pc, 1) || field_hex(c, f, "bias", &bias, 0) ||
      field_str(c, f, "module", &mod, 0))
    return -1;
  out->pc = (uintptr_t)pc;
  out->bias = (uintptr_t)bias;
  out->module = mod && *mod ? mod : NULL;
  out->offset = out->pc - out->bias;
  return 0;
}

static int raw_stack(conv *c, const jval *o, const char *key, lr_stack *st, int required) {
  const jval *v = get(o, key);
  if (!v || v->t == J_NULL) return required ? bad(c, key, "missing") : 0;
  if (v->t != J_ARR) return bad(c, key, "is not an array");
  int n = 0;
  for (const jval *e = v->child; e; e = e->next) n++;
  if (n > 100000) return bad(c, key, "is too long");
  st->f = lr_alloc(c->a, sizeof *st->f * (size_t)(n ? n : 1));
  st->n = 0;
  for (const jval *e = v->child; e; e = e->next)
    if (raw_frame(c, e, &st->f[st->n++])) return -1;
  return 0;
}

static int raw_access(conv *c, const jval *root, const char *key, lr_access *a) {
  const jval *o = get(root, key);
  if (!o) return bad(c, key, "missing");
  if (o->t != J_OBJ) return bad(c, key, "is not an object");
  uint64_t tid = 0, size = 0, addr = 0;
  if (field_uint(c, o, "thread", UINT32_MAX, &tid, 1) || field_bool(c, o, "is_write", &a->is_write) ||
      field_bool(c, o, "is_atomic", &a->is_atomic) || field_bool(c, o, "is_free", &a->is_free) ||
      field_uint(c, o, "size", UINT32_MAX, &size, 0) || field_hex(c, o, "address", &addr, 0) ||
      raw_stack(c, o, "frames", &a->st, 1))
    return -1;
  const jval *de = get(o, "decode_error");
  if (de && de->t == J_NUM && de->is_int && de->i > -1000000 && de->i < 1000000)
    a->st.decode_error = (int)de->i;
  if (field_bool(c, o, "frames_truncated", &a->st.truncated) ||
      field_bool(c, o, "pc_merged", &a->st.pc_merged) || field_bool(c, o, "is_vptr", &a->is_vptr))
    return -1;
  a->thread = (unsigned)tid;
  a->size = (unsigned)size;
  a->address = addr;
  return 0;
}

static int raw_location(conv *c, const jval *root, lr_location *l) {
  l->kind = "unknown";
  l->name = "";
  const jval *o = get(root, "location");
  if (!o || o->t == J_NULL) return 0;
  if (o->t != J_OBJ) return bad(c, "location", "is not an object");
  const char *kind = NULL, *name = NULL;
  uint64_t addr = 0, size = 0, acc = 0, tid = 0;
  if (field_str(c, o, "kind", &kind, 0) || field_str(c, o, "name", &name, 0) ||
      field_hex(c, o, "address", &addr, 0) || field_uint(c, o, "size", UINT64_MAX >> 1, &size, 0) ||
      field_hex(c, o, "access_address", &acc, 0))
    return -1;
  if (kind) {
    if (strcmp(kind, "global") && strcmp(kind, "heap") && strcmp(kind, "stack") &&
        strcmp(kind, "tls") && strcmp(kind, "fd") && strcmp(kind, "unknown"))
      return bad(c, "location.kind", "is not global, heap, stack, tls, fd or unknown");
    l->kind = kind;
  }
  if (kind && !strcmp(kind, "fd")) {
    uint64_t fd;
    if (field_uint(c, o, "fd", 65535, &fd, 1)) return -1;
    l->fd = (int)fd;
  }
  if (name) l->name = name;
  if (get(o, "object_type") && field_str(c, o, "object_type", &l->object_type, 1)) return -1;
  l->address = addr;
  l->size = size;
  l->access_address = acc;
  const jval *d = get(o, "data");
  if (d && d->t != J_NULL && raw_frame(c, d, &l->data)) return -1;
  if (get(o, "allocated_by_thread")) {
    if (field_uint(c, o, "allocated_by_thread", UINT32_MAX, &tid, 1)) return -1;
    l->has_thread = 1;
    l->thread = (unsigned)tid;
  }
  if (get(o, "allocation_frames")) {
    if (raw_stack(c, o, "allocation_frames", &l->alloc, 1)) return -1;
    l->has_alloc = 1;
  }
  return 0;
}

/* The raw thread list is searched by id; the model's list is ordered:
 * each thread named, then its ancestors. */
typedef struct raw_threads {
  lr_thread *t;
  int n;
} raw_threads;

static const lr_thread *find_thread(const lr_thread *t, int n, unsigned id) {
  for (int i = 0; i < n; i++)
    if (t[i].id == id) return &t[i];
  return NULL;
}

static void order_add(lr_report *r, const raw_threads *raw, unsigned id) {
  for (int hops = 0; hops < 4096; hops++) {
    if (find_thread(r->threads, r->nthreads, id)) return;
    const lr_thread *t = find_thread(raw->t, raw->n, id);
    if (!t) {
      /* named but not described: keep it (no creator known) */
      lr_thread *n = &r->threads[r->nthreads++];
      n->id = id;
      return;
    }
    r->threads[r->nthreads++] = *t;
    if (!t->has_parent) return;
    id = t->parent;
  }
}

static int raw_threads_of(conv *c, const jval *root, lr_report *r) {
  const jval *v = get(root, "threads");
  raw_threads raw = {0};
  if (v && v->t != J_NULL) {
    if (v->t != J_ARR) return bad(c, "threads", "is not an array");
    int n = 0;
    for (const jval *e = v->child; e; e = e->next) n++;
    if (n > 100000) return bad(c, "threads", "is too long");
    raw.t = lr_alloc(c->a, sizeof *raw.t * (size_t)(n ? n : 1));
    for (const jval *e = v->child; e; e = e->next) {
      if (e->t != J_OBJ) return bad(c, "threads", "holds a non-object");
      lr_thread *t = &raw.t[raw.n];
      uint64_t id = 0, parent = 0;
      if (field_uint(c, e, "id", UINT32_MAX, &id, 1)) return -1;
      const jval *p = get(e, "parent");
      if (p && p->t != J_NULL) {
        if (field_uint(c, e, "parent", UINT32_MAX, &parent, 1)) return -1;
        t->has_parent = 1;
        t->parent = (unsigned)parent;
      }
      if (raw_stack(c, e, "creation_frames", &t->created, 0)) return -1;
      t->name = "";
      if (field_str(c, e, "name", &t->name, 0)) return -1;
      if (!t->name) t->name = "";
      t->id = (unsigned)id;
      if (!find_thread(raw.t, raw.n, t->id)) raw.n++;
    }
  }
  /* at most every raw thread plus the three named ones */
  r->threads = lr_alloc(c->a, sizeof *r->threads * (size_t)(raw.n + 3 + r->nedges));
  if (lr_is_leak(r)) {
    order_add(r, &raw, r->leak_thread);
  } else if (lr_is_deadlock(r)) {
    for (int i = 0; i < r->nedges; i++) order_add(r, &raw, r->edges[i].thread);
  } else if (lr_is_misuse(r)) {
    order_add(r, &raw, r->acc[0].thread);
    if (r->has_holder) order_add(r, &raw, r->holder);
  } else if (lr_is_signal(r)) {
    order_add(r, &raw, r->acc[0].thread);
  } else {
    order_add(r, &raw, r->acc[0].thread);
    order_add(r, &raw, r->acc[1].thread);
    if (r->loc.has_thread) order_add(r, &raw, r->loc.thread);
  }
  /* threads the runtime listed for other reasons, in its order */
  for (int i = 0; i < raw.n; i++) order_add(r, &raw, raw.t[i].id);
  return 0;
}

/* Room for n mutexes (M-numbers) and their creation stacks. */
static void mutexes_alloc(conv *c, lr_report *r, size_t n) {
  r->mutexes = lr_alloc(c->a, sizeof *r->mutexes * n);
  r->mutex_created = lr_alloc(c->a, sizeof *r->mutex_created * n);
  r->mutex_created_known = lr_alloc(c->a, sizeof *r->mutex_created_known * n);
}

/* A mutex as M-number of the report, added on first mention. */
static int mutex_id(lr_report *r, uint64_t addr) {
  for (int i = 0; i < r->nmutexes; i++)
    if (r->mutexes[i] == addr) return i;
  r->mutexes[r->nmutexes] = addr;
  return r->nmutexes++;
}

/* "mutexes" of one access (hex, low bit set when read-locked), or the old
 * top-level list (the current access's) */
static int raw_held(conv *c, const jval *v, lr_report *r, lr_access *a) {
  if (!v || v->t == J_NULL) return 0;
  if (v->t != J_ARR) return bad(c, "mutexes", "is not an array");
  for (const jval *e = v->child; e; e = e->next) {
    if (e->t != J_STR) return bad(c, "mutexes", "holds a non-string");
    char *end;
    errno = 0;
    unsigned long long x = strtoull(e->s, &end, 16);
    if (!*e->s || *end || errno) return bad(c, "mutexes", "holds a non-hex string");
    if (a->nheld == LR_MAX_HELD || r->nmutexes >= 2 * LR_MAX_HELD) continue;
    a->held_read[a->nheld] = (int)(x & 1);
    a->held[a->nheld++] = mutex_id(r, x & ~1ull);
  }
  return 0;
}

/* "mutex_creations": [{"address": "0x..", "frames": [...]}], for mutexes
 * the accesses held (others are ignored) */
static int raw_mutex_creations(conv *c, const jval *root, lr_report *r) {
  const jval *v = get(root, "mutex_creations");
  if (!v || v->t == J_NULL) return 0;
  if (v->t != J_ARR) return bad(c, "mutex_creations", "is not an array");
  for (const jval *e = v->child; e; e = e->next) {
    if (e->t != J_OBJ) return bad(c, "mutex_creations", "holds a non-object");
    uint64_t addr = 0;
    if (field_hex(c, e, "address", &addr, 1)) return -1;
    for (int i = 0; i < r->nmutexes; i++)
      if (r->mutexes[i] == addr) {
        if (raw_stack(c, e, "frames", &r->mutex_created[i], 1)) return -1;
        r->mutex_created_known[i] = 1;
      }
  }
  return 0;
}

static int raw_mutexes(conv *c, const jval *root, lr_report *r) {
  mutexes_alloc(c, r, 2 * LR_MAX_HELD);
  int per_access = 0;
  for (int k = 0; k < 2; k++) {
    const jval *o = get(root, k ? "previous" : "current");
    const jval *v = o ? get(o, "mutexes") : NULL;
    if (v) per_access = 1;
    if (raw_held(c, v, r, &r->acc[k])) return -1;
  }
  if (!per_access && raw_held(c, get(root, "mutexes"), r, &r->acc[0])) return -1;
  return raw_mutex_creations(c, root, r);
}

/* "cycle": [{"from": "0x..", "to": "0x..", "from_read", "to_read", "thread",
 * "frames", "held_frames"}], then the cycle's mutexes' creations */
static int raw_cycle(conv *c, const jval *root, lr_report *r) {
  const jval *v = get(root, "cycle");
  if (!v) return bad(c, "cycle", "missing");
  if (v->t != J_ARR) return bad(c, "cycle", "is not an array");
  int n = 0;
  for (const jval *e = v->child; e; e = e->next) n++;
  if (n < 2 || n > 2 * LR_MAX_HELD) return bad(c, "cycle", "is not 2 to 32 edges long");
  r->edges = lr_alloc(c->a, sizeof *r->edges * (size_t)n);
  mutexes_alloc(c, r, 2 * LR_MAX_HELD);
  for (const jval *e = v->child; e; e = e->next) {
    if (e->t != J_OBJ) return bad(c, "cycle", "holds a non-object");
    lr_edge *d = &r->edges[r->nedges++];
    uint64_t from = 0, to = 0, tid = 0;
    if (field_hex(c, e, "from", &from, 1) || field_hex(c, e, "to", &to, 1) ||
        field_bool(c, e, "from_read", &d->from_read) || field_bool(c, e, "to_read", &d->to_read) ||
        field_uint(c, e, "thread", UINT32_MAX, &tid, 1) ||
        raw_stack(c, e, "frames", &d->wanted, 1) || raw_stack(c, e, "held_frames", &d->held, 1))
      return -1;
    d->thread = (unsigned)tid;
    d->from = mutex_id(r, from);
    d->to = mutex_id(r, to);
  }
  return raw_mutex_creations(c, root, r);
}

/* "misuse", "mutex", "thread", "holder", "frames", "held_read", "held_frames" */
static int raw_misuse(conv *c, const jval *root, lr_report *r) {
  uint64_t tid = 0, m = 0;
  if (field_str(c, root, "misuse", &r->misuse, 1) || field_hex(c, root, "mutex", &m, 1) ||
      field_uint(c, root, "thread", UINT32_MAX, &tid, 1) ||
      raw_stack(c, root, "frames", &r->acc[0].st, 1) ||
      field_bool(c, root, "held_read", &r->held_read) ||
      raw_stack(c, root, "held_frames", &r->acc[1].st, 0))
    return -1;
  if (lr_misuse_index(r) < 0) return bad(c, "misuse", "is not a known misuse");
  if (get(root, "holder")) {
    uint64_t h = 0;
    if (field_uint(c, root, "holder", UINT32_MAX, &h, 1)) return -1;
    r->has_holder = 1;
    r->holder = (unsigned)h;
  }
  r->acc[0].thread = r->acc[1].thread = (unsigned)tid;
  mutexes_alloc(c, r, 1);
  mutex_id(r, m);
  return raw_mutex_creations(c, root, r);
}

/* "signal", "thread", "frames", and "function" (signal-unsafe-call) or
 * "errno_before", "errno_after" (signal-errno) */
static int raw_signal(conv *c, const jval *root, lr_report *r) {
  uint64_t sig = 0, tid = 0, e0 = 0, e1 = 0;
  if (field_uint(c, root, "signal", 1023, &sig, 1) ||
      field_uint(c, root, "thread", UINT32_MAX, &tid, 1) ||
      raw_stack(c, root, "frames", &r->acc[0].st, 1))
    return -1;
  if (!strcmp(r->kind, "signal-unsafe-call")) {
    if (field_str(c, root, "function", &r->unsafe_fn, 1)) return -1;
  } else if (field_uint(c, root, "errno_before", INT32_MAX, &e0, 1) ||
             field_uint(c, root, "errno_after", INT32_MAX, &e1, 1)) {
    return -1;
  }
  r->signal = (int)sig;
  r->errno_before = (int)e0;
  r->errno_after = (int)e1;
  r->acc[0].thread = (unsigned)tid;
  return 0;
}

/* "leak": {"thread": N, "similar": K} */
static int raw_leak(conv *c, const jval *root, lr_report *r) {
  const jval *o = get(root, "leak");
  if (!o) return bad(c, "leak", "missing");
  if (o->t != J_OBJ) return bad(c, "leak", "is not an object");
  uint64_t tid = 0, similar = 0;
  if (field_uint(c, o, "thread", UINT32_MAX, &tid, 1) ||
      field_uint(c, o, "similar", UINT32_MAX, &similar, 0))
    return -1;
  r->leak_thread = (unsigned)tid;
  r->leak_similar = (unsigned)similar;
  return 0;
}

void lr_report_free(lr_report *r) {
  lr_arena_free(&r->arena);
  memset(r, 0, sizeof *r);
}

int lr_parse_raw(const char *line, size_t len, lr_report *r, char *why, size_t whylen) {
  memset(r, 0, sizeof *r);
  jparser j = {line, line + len, &r->arena, NULL, 0};
  jval *root = lr_alloc(&r->arena, sizeof *root);
  conv c = {&r->arena, NULL, {0}};
  if (jvalue(&j, root) == 0) {
    ws(&j);
    if (j.p != j.end) fail(&j, "text after the JSON value");
  }
  if (j.err) {
    snprintf(why, whylen, "not JSON: %s at byte %zu", j.err, (size_t)(j.p - line));
    lr_report_free(r);
    return -1;
  }
  if (root->t != J_OBJ) {
    snprintf(why, whylen, "not a JSON object");
    lr_report_free(r);
    return -1;
  }
  uint64_t pid = 0;
  const char *kind = NULL;
  if (field_str(&c, root, "kind", &kind, 1) == 0 && strcmp(kind, "data-race") &&
      strcmp(kind, "heap-use-after-free") && strcmp(kind, "thread-leak") &&
      strcmp(kind, "lock-order-inversion") && strcmp(kind, "mutex-misuse") &&
      strcmp(kind, "signal-unsafe-call") && strcmp(kind, "signal-errno"))
    bad(&c, "kind",
        "is not data-race, heap-use-after-free, thread-leak, lock-order-inversion, "
        "mutex-misuse, signal-unsafe-call or signal-errno");
  if (!c.err) r->kind = kind;
  if (!c.err) field_uint(&c, root, "pid", INT32_MAX, &pid, 0);
  if (!c.err) field_str(&c, root, "capture", &r->capture, 0);
  if (!c.err && (lr_is_leak(r) || lr_is_deadlock(r) || lr_is_misuse(r) || lr_is_signal(r))) {
    if (lr_is_leak(r))
      raw_leak(&c, root, r);
    else if (lr_is_deadlock(r))
      raw_cycle(&c, root, r);
    else if (lr_is_signal(r))
      raw_signal(&c, root, r);
    else
      raw_misuse(&c, root, r);
    r->loc.kind = "unknown";
    r->loc.name = "";
  } else if (!c.err) {
    raw_access(&c, root, "current", &r->acc[0]);
    if (!c.err) raw_access(&c, root, "previous", &r->acc[1]);
    if (!c.err) raw_location(&c, root, &r->loc);
    if (!c.err) raw_mutexes(&c, root, r);
  }
  if (!c.err) raw_threads_of(&c, root, r);
  if (c.err) {
    snprintf(why, whylen, "bad report: %s", c.err);
    lr_report_free(r);
    return -1;
  }
  r->pid = (long)pid;
  return 0;
}
