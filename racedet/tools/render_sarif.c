/* render_sarif.c: the reports as one SARIF 2.1.0 log (--sarif FILE), for
 * GitHub code scanning and other SARIF viewers.
 *
 * One run; tool.driver names the seven rules (data-race, heap-use-after-free,
 * thread-leak, lock-order-inversion, mutex-misuse, signal-unsafe-call,
 * signal-errno; a leak's result is at its thread's creation, with the
 * creation flows only; a lock-order inversion's at its first edge's
 * acquisition, the others related, a flow per stack; a signal handler's
 * bug at its innermost frame with a source file).
 * One result per report:
 *  - locations: the current access's innermost frame with a source file
 *    (else the previous access's, else the module of the innermost frame);
 *    source files under the source root (the working directory dacce-race
 *    ran in) are relative URIs with uriBaseId %SRCROOT%, others file:// URIs;
 *  - relatedLocations: the previous access's frame;
 *  - partialFingerprints["dacceRace/v1"]: a 64-bit FNV-1a hash, in hex, of the
 *    kind, the two stacks' function names (in a fixed order, as either access
 *    may be the "current" one from one run to the next) and the location's
 *    name: no addresses, pids, paths or line numbers, so it is stable across
 *    runs, machines and unrelated edits;
 *  - codeFlows: one threadFlow per access and one per thread-creation stack,
 *    frames outermost first (SARIF's order: a flow runs from the entry to
 *    the point of interest) with nestingLevel = call depth.
 * Results are rendered as they arrive; the log is written at the end.
 */
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

#ifndef DACCE_VERSION
#define DACCE_VERSION "0.0.0"
#endif
#ifndef DACCE_INFO_URI
#define DACCE_INFO_URI ""
#endif

struct lr_sarif {
  char *root; /* normalised, no trailing slash */
  lr_buf results;
  int n;
};

/* Lexically normalised absolute path: no "//", "." or ".." components. */
static char *normalise(const char *path) {
  size_t n = strlen(path);
  char *out = malloc(n + 2);
  if (!out) return NULL;
  size_t o = 0;
  const char *p = path;
  while (*p) {
    while (*p == '/') p++;
    const char *s = p;
    while (*p && *p != '/') p++;
    size_t len = (size_t)(p - s);
    if (!len || (len == 1 && s[0] == '.')) continue;
    if (len == 2 && s[0] == '.' && s[1] == '.') {
      while (o > 0 && out[o - 1] != '/') o--;
      if (o > 0) o--; /* drop the slash too */
      continue;
    }
    out[o++] = '/';
    memcpy(out + o, s, len);
    o += len;
  }
  if (!o) out[o++] = '/';
  out[o] = 0;
  return out;
}

lr_sarif *lr_sarif_new(const char *srcroot) {
  lr_sarif *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->root = normalise(srcroot);
  if (!s->root) {
    free(s);
    return NULL;
  }
  if (!strcmp(s->root, "/")) s->root[0] = 0;
  return s;
}

void lr_sarif_free(lr_sarif *s) {
  if (!s) return;
  free(s->root);
  lr_buf_free(&s->results);
  free(s);
}

/* RFC 3986 percent-encoding of a path (slashes kept) */
static void put_uri_path(lr_buf *b, const char *p) {
  for (const unsigned char *c = (const unsigned char *)p; *c; c++) {
    if ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
        strchr("-._~/", *c))
      lr_bputn(b, (const char *)c, 1);
    else
      lr_bput(b, "%%%02X", *c);
  }
}

/* "artifactLocation": {...} for an absolute or relative path */
static void artifact(lr_sarif *s, lr_buf *b, const char *path) {
  lr_bputs(b, "\"artifactLocation\":{\"uri\":\"");
  char *norm = path[0] == '/' ? normalise(path) : NULL;
  const char *p = norm ? norm : path;
  size_t rl = strlen(s->root);
  if (p[0] == '/' && !strncmp(p, s->root, rl) && p[rl] == '/') {
    put_uri_path(b, p + rl + 1);
    lr_bputs(b, "\",\"uriBaseId\":\"%SRCROOT%\"}");
  } else if (p[0] == '/') {
    lr_bputs(b, "file://");
    put_uri_path(b, p);
    lr_bputs(b, "\"}");
  } else {
    put_uri_path(b, p);
    lr_bputs(b, "\"}");
  }
  free(norm);
}

static void frame_text(lr_buf *t, const lr_frame *f) {
  lr_bputs(t, f->function ? f->function : "<unknown function>");
  if (f->module) lr_bput(t, " (%s+%#lx)", lr_basename(f->module), (unsigned long)f->offset);
  if (f->inlined) lr_bputs(t, " [inlined]");
}

static void message(lr_buf *b, const char *text) {
  lr_bputs(b, "\"message\":{\"text\":");
  lr_bjson_str(b, text);
  lr_bputs(b, "}");
}

/* a location object for frame f, with msg as its message (NULL: none) */
static void location(lr_sarif *s, lr_buf *b, const lr_frame *f, const char *msg, int id) {
  lr_bputs(b, "{");
  if (id >= 0) lr_bput(b, "\"id\":%d,", id);
  if (f->file || f->module) {
    lr_bputs(b, "\"physicalLocation\":{");
    artifact(s, b, f->file ? f->file : f->module);
    if (f->file && f->line > 0) {
      lr_bput(b, ",\"region\":{\"startLine\":%d", f->line);
      if (f->column > 0) lr_bput(b, ",\"startColumn\":%d", f->column);
      lr_bputs(b, "}");
    }
    lr_bputs(b, "},");
  }
  if (f->function) {
    lr_bputs(b, "\"logicalLocations\":[{\"fullyQualifiedName\":");
    lr_bjson_str(b, f->function);
    lr_bputs(b, ",\"kind\":\"function\"}],");
  }
  if (msg) {
    message(b, msg);
  } else {
    lr_buf t = {0};
    frame_text(&t, f);
    message(b, t.p);
    lr_buf_free(&t);
  }
  lr_bputs(b, "}");
}

static void thread_flow(lr_sarif *s, lr_buf *b, const char *id, const char *msg,
                        const lr_stack *st) {
  lr_bputs(b, "{\"id\":");
  lr_bjson_str(b, id);
  lr_bputs(b, ",");
  message(b, msg);
  lr_bputs(b, ",\"locations\":[");
  int depth = 0;
  for (int i = st->n - 1; i >= 0; i--) {
    const lr_frame *f = &st->f[i];
    lr_bputs(b, i == st->n - 1 ? "{\"location\":" : ",{\"location\":");
    location(s, b, f, NULL, -1);
    lr_bput(b, ",\"nestingLevel\":%d}", depth++);
  }
  lr_bputs(b, "]}");
}

static const lr_frame *src_frame(const lr_stack *st) {
  for (int i = 0; i < st->n; i++)
    if (st->f[i].file && st->f[i].line > 0) return &st->f[i];
  return NULL;
}

/* ------------------------------------------------------------ fingerprint */
static uint64_t fnv(uint64_t h, const char *s) {
  return lr_fnv1a(lr_fnv1a(h, s, strlen(s)), "\xff", 1); /* (a field separator) */
}

static char *stack_signature(const lr_stack *st) {
  lr_buf b = {0};
  lr_bputs(&b, "");
  for (int i = 0; i < st->n; i++) {
    const lr_frame *f = &st->f[i];
    lr_bputs(&b, f->function ? f->function : f->module ? lr_basename(f->module) : "?");
    lr_bputs(&b, "\n");
  }
  return b.p;
}

static uint64_t fingerprint(const lr_report *r) {
  char *a = stack_signature(&r->acc[0].st), *p = stack_signature(&r->acc[1].st);
  if (strcmp(a, p) > 0) {
    char *t = a;
    a = p;
    p = t;
  }
  uint64_t h = 1469598103934665603ull;
  h = fnv(h, r->kind);
  h = fnv(h, a);
  h = fnv(h, p);
  h = fnv(h, r->loc.name ? r->loc.name : "");
  free(a);
  free(p);
  return h;
}

/* ------------------------------------------------------------ results */
static void access_words(lr_buf *t, const lr_report *r, int k, int capital) {
  const lr_access *a = &r->acc[k];
  char tn[LR_TNAME], w[32];
  snprintf(w, sizeof w, "%s%s", a->is_atomic ? "atomic " : "",
           a->is_free ? "free" : a->is_write ? "write" : "read");
  if (capital) w[0] = (char)(w[0] - 'a' + 'A');
  lr_bput(t, "%s of size %u by %s", w, a->size, lr_thread_name(r, a->thread, tn));
  const lr_frame *f = src_frame(&a->st);
  if (!f && a->st.n) f = &a->st.f[0];
  if (f && f->function) lr_bput(t, " in %s", f->function);
  if (f && f->file) lr_bput(t, " (%s:%d)", lr_basename(f->file), f->line);
  if (a->st.pc_merged) lr_bputs(t, " (the first of several accesses there merged into one record)");
}

/* The creation flows of every thread named, with their ancestry. */
static void creation_flows(lr_sarif *s, lr_buf *b, const lr_report *r, int first) {
  for (int i = 0; i < r->nthreads; i++) {
    const lr_thread *th = &r->threads[i];
    if (!th->has_parent) continue;
    char id[48], tn[LR_TNAME], text[2 * LR_TNAME];
    snprintf(id, sizeof id, "creation-T%u", th->id);
    snprintf(text, sizeof text, "Thread T%u created by %s", th->id, lr_thread_name(r, th->parent, tn));
    if (!first) lr_bputs(b, ",");
    first = 0;
    thread_flow(s, b, id, text, &th->created);
  }
}

/* A thread leak: at the leaked thread's creation, fingerprinted by its
 * creation stack's functions. */
static void add_leak(lr_sarif *s, const lr_report *r) {
  lr_buf *b = &s->results;
  const lr_thread *th = lr_leaked_thread(r);
  const lr_frame *top = lr_report_top(r);
  char tn[LR_TNAME];
  lr_buf msg = {0};
  lr_bput(&msg, "Thread leak: %s", lr_thread_name(r, r->leak_thread, tn));
  if (top && top->function) lr_bput(&msg, ", created in %s", top->function);
  if (top && top->file) lr_bput(&msg, " (%s:%d)", lr_basename(top->file), top->line);
  lr_bputs(&msg, ", finished but was neither joined nor detached");
  if (r->leak_similar)
    lr_bput(&msg, "; %u more thread%s created there leaked too", r->leak_similar,
            r->leak_similar > 1 ? "s" : "");
  lr_bputs(&msg, ".");
  if (s->n++) lr_bputs(b, ",");
  lr_bputs(b, "{\"ruleId\":\"thread-leak\",\"ruleIndex\":2,\"level\":\"warning\",");
  message(b, msg.p);
  lr_buf_free(&msg);
  lr_bputs(b, ",\"locations\":[");
  if (top) location(s, b, top, "Created here", -1);
  lr_bputs(b, "]");
  char *sig = th ? stack_signature(&th->created) : NULL;
  uint64_t h = fnv(fnv(1469598103934665603ull, r->kind), sig ? sig : "");
  free(sig);
  lr_bput(b, ",\"partialFingerprints\":{\"dacceRace/v1\":\"%016llx\"}", (unsigned long long)h);
  lr_bputs(b, ",\"codeFlows\":[{");
  message(b, "Where the leaked thread and its ancestors were created");
  lr_bputs(b, ",\"threadFlows\":[");
  creation_flows(s, b, r, 1);
  lr_bputs(b, "]}]");
  lr_bput(b, ",\"properties\":{\"pid\":%ld,\"similarLeaks\":%u}}", r->pid, r->leak_similar);
}

/* "thread T1 takes M2 in f (file.c:12) while holding M1" */
static void edge_words(lr_buf *t, const lr_report *r, const lr_edge *e) {
  char tn[LR_TNAME];
  lr_bput(t, "%s takes M%d%s", lr_thread_name(r, e->thread, tn), e->to + 1,
          e->to_read ? " for reading" : "");
  const lr_frame *f = src_frame(&e->wanted);
  if (f && f->function) lr_bput(t, " in %s", f->function);
  if (f && f->file) lr_bput(t, " (%s:%d)", lr_basename(f->file), f->line);
  lr_bput(t, " while holding M%d", e->from + 1);
}

static int strcmp_p(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A lock-order inversion: at the first edge's acquisition, the other
 * edges' as related locations, fingerprinted by the acquisition stacks'
 * functions in a fixed order (any edge may close the cycle first). */
static void add_deadlock(lr_sarif *s, const lr_report *r) {
  lr_buf *b = &s->results;
  lr_buf msg = {0};
  lr_bputs(&msg, "Lock-order inversion (potential deadlock): ");
  for (int i = 0; i < r->nedges; i++) lr_bput(&msg, "M%d => ", r->edges[i].from + 1);
  lr_bput(&msg, "M%d", r->edges[0].from + 1);
  for (int i = 0; i < r->nedges; i++) {
    lr_bputs(&msg, i ? ", " : "; ");
    edge_words(&msg, r, &r->edges[i]);
  }
  lr_bputs(&msg, ".");
  if (s->n++) lr_bputs(b, ",");
  lr_bputs(b, "{\"ruleId\":\"lock-order-inversion\",\"ruleIndex\":3,\"level\":\"error\",");
  message(b, msg.p);
  lr_buf_free(&msg);
  const lr_frame *top = lr_report_top(r);
  lr_bputs(b, ",\"locations\":[");
  if (top) {
    lr_buf t = {0};
    edge_words(&t, r, &r->edges[0]);
    location(s, b, top, t.p, -1);
    lr_buf_free(&t);
  }
  lr_bputs(b, "],\"relatedLocations\":[");
  for (int i = 1, n = 0; i < r->nedges; i++) {
    const lr_frame *f = src_frame(&r->edges[i].wanted);
    if (!f) continue;
    lr_buf t = {0};
    edge_words(&t, r, &r->edges[i]);
    if (n++) lr_bputs(b, ",");
    location(s, b, f, t.p, i);
    lr_buf_free(&t);
  }
  lr_bputs(b, "]");
  char *sig[2 * LR_MAX_HELD];
  for (int i = 0; i < r->nedges; i++) sig[i] = stack_signature(&r->edges[i].wanted);
  qsort(sig, (size_t)r->nedges, sizeof *sig, strcmp_p);
  uint64_t h = fnv(1469598103934665603ull, r->kind);
  for (int i = 0; i < r->nedges; i++) {
    h = fnv(h, sig[i]);
    free(sig[i]);
  }
  lr_bput(b, ",\"partialFingerprints\":{\"dacceRace/v1\":\"%016llx\"}", (unsigned long long)h);
  lr_bputs(b, ",\"codeFlows\":[{");
  message(b, "Where each thread took the lock it held and asked for the next, and where the "
             "threads were created");
  lr_bputs(b, ",\"threadFlows\":[");
  for (int i = 0; i < r->nedges; i++) {
    const lr_edge *e = &r->edges[i];
    char id[32], tn[LR_TNAME];
    lr_buf t = {0};
    snprintf(id, sizeof id, "edge-%d-held", i + 1);
    lr_bput(&t, "M%d taken by %s", e->from + 1, lr_thread_name(r, e->thread, tn));
    thread_flow(s, b, id, t.p, &e->held);
    t.n = 0;
    snprintf(id, sizeof id, "edge-%d-wanted", i + 1);
    edge_words(&t, r, e);
    lr_bputs(b, ",");
    thread_flow(s, b, id, t.p, &e->wanted);
    lr_bputs(b, i + 1 < r->nedges ? "," : "");
    lr_buf_free(&t);
  }
  creation_flows(s, b, r, 0);
  lr_bputs(b, "]}]");
  lr_bput(b, ",\"properties\":{\"pid\":%ld}}", r->pid);
}

/* A mutex misuse: at the call, with where the thread had taken the mutex
 * related; fingerprinted by what and the call's stack. */
static void add_misuse(lr_sarif *s, const lr_report *r) {
  lr_buf *b = &s->results;
  char tn[LR_TNAME];
  const lr_frame *top = lr_report_top(r), *held = src_frame(&r->acc[1].st);
  lr_buf msg = {0};
  lr_bputs(&msg, lr_report_title(r));
  msg.p[0] = (char)(msg.p[0] - 'a' + 'A');
  lr_bput(&msg, ": %s", lr_thread_name(r, r->acc[0].thread, tn));
  if (top && top->function) lr_bput(&msg, " in %s", top->function);
  if (top && top->file) lr_bput(&msg, " (%s:%d)", lr_basename(top->file), top->line);
  if (held && held->function) lr_bput(&msg, ", which took it in %s", held->function);
  if (held && held->file) lr_bput(&msg, " (%s:%d)", lr_basename(held->file), held->line);
  if (r->has_holder) lr_bput(&msg, ", while %s holds it", lr_thread_name(r, r->holder, tn));
  lr_bputs(&msg, ".");
  if (s->n++) lr_bputs(b, ",");
  lr_bputs(b, "{\"ruleId\":\"mutex-misuse\",\"ruleIndex\":4,\"level\":\"error\",");
  message(b, msg.p);
  lr_bputs(b, ",\"locations\":[");
  if (top) location(s, b, top, msg.p, -1);
  lr_buf_free(&msg);
  lr_bputs(b, "]");
  if (held) {
    lr_bputs(b, ",\"relatedLocations\":[");
    location(s, b, held, "Where the thread took the mutex", 1);
    lr_bputs(b, "]");
  }
  char *sig = stack_signature(&r->acc[0].st);
  uint64_t h = fnv(fnv(fnv(1469598103934665603ull, r->kind), r->misuse), sig);
  free(sig);
  lr_bput(b, ",\"partialFingerprints\":{\"dacceRace/v1\":\"%016llx\"}", (unsigned long long)h);
  lr_bputs(b, ",\"codeFlows\":[{");
  message(b, "The call, where the thread took the mutex, and where the thread was created");
  lr_bputs(b, ",\"threadFlows\":[");
  thread_flow(s, b, "call", lr_report_title(r), &r->acc[0].st);
  if (r->acc[1].st.n) {
    lr_bputs(b, ",");
    thread_flow(s, b, "held", "Where the thread took the mutex", &r->acc[1].st);
  }
  creation_flows(s, b, r, 0);
  lr_bputs(b, "]}]");
  lr_bput(b, ",\"properties\":{\"pid\":%ld}}", r->pid);
}

/* A signal handler's bug: at the call (the handler, for errno),
 * fingerprinted by the kind, the function called and the stack's
 * functions. */
static void add_signal(lr_sarif *s, const lr_report *r) {
  lr_buf *b = &s->results;
  char tn[LR_TNAME], sn[24];
  const int unsafe = r->unsafe_fn != NULL;
  const lr_frame *top = lr_report_top(r);
  lr_buf msg = {0};
  if (unsafe)
    lr_bput(&msg, "Signal-unsafe call inside of a signal handler: %s calls %s in the handler of "
                  "signal %d (%s)",
            lr_thread_name(r, r->acc[0].thread, tn), r->unsafe_fn, r->signal,
            lr_signal_name(r->signal, sn));
  else
    lr_bput(&msg, "Signal handler spoils errno: the handler of signal %d (%s) changed errno from "
                  "%d to %d in %s",
            r->signal, lr_signal_name(r->signal, sn), r->errno_before, r->errno_after,
            lr_thread_name(r, r->acc[0].thread, tn));
  if (top && top->function) lr_bput(&msg, ", in %s", top->function);
  if (top && top->file) lr_bput(&msg, " (%s:%d)", lr_basename(top->file), top->line);
  lr_bputs(&msg, ".");
  if (s->n++) lr_bputs(b, ",");
  lr_bput(b, "{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"%s\",", r->kind, unsafe ? 5 : 6,
          unsafe ? "error" : "warning");
  message(b, msg.p);
  lr_bputs(b, ",\"locations\":[");
  if (top) location(s, b, top, msg.p, -1);
  lr_buf_free(&msg);
  lr_bputs(b, "]");
  char *sig = stack_signature(&r->acc[0].st);
  uint64_t h = fnv(fnv(fnv(1469598103934665603ull, r->kind), unsafe ? r->unsafe_fn : ""), sig);
  free(sig);
  lr_bput(b, ",\"partialFingerprints\":{\"dacceRace/v1\":\"%016llx\"}", (unsigned long long)h);
  lr_bputs(b, ",\"codeFlows\":[{");
  message(b, unsafe ? "The call in the handler, and where the thread was created"
                    : "The handler over where its signal arrived, and where the thread was created");
  lr_bputs(b, ",\"threadFlows\":[");
  thread_flow(s, b, unsafe ? "call" : "handler", lr_report_title(r), &r->acc[0].st);
  creation_flows(s, b, r, 0);
  lr_bputs(b, "]}]");
  lr_bput(b, ",\"properties\":{\"pid\":%ld,\"signal\":%d}}", r->pid, r->signal);
}

void lr_sarif_add(lr_sarif *s, const lr_report *r) {
  if (lr_is_signal(r)) {
    add_signal(s, r);
    return;
  }
  if (lr_is_leak(r)) {
    add_leak(s, r);
    return;
  }
  if (lr_is_misuse(r)) {
    add_misuse(s, r);
    return;
  }
  if (lr_is_deadlock(r)) {
    add_deadlock(s, r);
    return;
  }
  lr_buf *b = &s->results;
  int uaf = !strcmp(r->kind, "heap-use-after-free");
  lr_buf msg = {0};
  lr_bputs(&msg, uaf ? "Heap use after free: "
                 : r->acc[0].is_vptr ? "Data race on vptr (ctor/dtor vs virtual call): "
                                     : "Data race: "); /* RD_VPTR_RACE_TITLE, capitalised */
  access_words(&msg, r, 0, 0);
  lr_bputs(&msg, uaf ? " after the " : ", conflicting with the previous ");
  access_words(&msg, r, 1, 0);
  const lr_location *l = &r->loc;
  if (!strcmp(l->kind, "global") && l->name && *l->name)
    lr_bput(&msg, ", on global '%s'", l->name);
  else if (!strcmp(l->kind, "heap"))
    lr_bput(&msg, ", on a heap block of size %llu", (unsigned long long)l->size);
  else if (!strcmp(l->kind, "stack"))
    lr_bputs(&msg, ", on a thread's stack");
  else if (!strcmp(l->kind, "tls"))
    lr_bputs(&msg, ", on a thread-local variable");
  else if (!strcmp(l->kind, "fd"))
    lr_bput(&msg, ", on file descriptor %d", l->fd);
  if (l->object_type) lr_bput(&msg, " (an object of type '%s')", l->object_type);
  lr_bputs(&msg, ".");

  if (s->n++) lr_bputs(b, ",");
  lr_bput(b, "{\"ruleId\":\"%s\",\"ruleIndex\":%d,\"level\":\"error\",", r->kind, uaf ? 1 : 0);
  message(b, msg.p);
  lr_buf_free(&msg);

  /* primary location */
  const lr_frame *top = src_frame(&r->acc[0].st);
  if (!top) top = src_frame(&r->acc[1].st);
  if (!top && r->acc[0].st.n) top = &r->acc[0].st.f[0];
  lr_bputs(b, ",\"locations\":[");
  if (top) {
    lr_buf t = {0};
    access_words(&t, r, 0, 1);
    location(s, b, top, t.p, -1);
    lr_buf_free(&t);
  }
  lr_bputs(b, "]");
  const lr_frame *prev = src_frame(&r->acc[1].st);
  if (prev) {
    lr_bputs(b, ",\"relatedLocations\":[");
    lr_buf t = {0};
    lr_bputs(&t, "Previous ");
    access_words(&t, r, 1, 0);
    location(s, b, prev, t.p, 1);
    lr_buf_free(&t);
    lr_bputs(b, "]");
  }
  lr_bput(b, ",\"partialFingerprints\":{\"dacceRace/v1\":\"%016llx\"}",
          (unsigned long long)fingerprint(r));

  /* code flows */
  lr_bputs(b, ",\"codeFlows\":[{");
  message(b, uaf ? "The use, the free, and where their threads were created"
                 : "The two accesses, and where their threads were created");
  lr_bputs(b, ",\"threadFlows\":[");
  for (int k = 0; k < 2; k++) {
    lr_buf t = {0};
    if (k) lr_bputs(&t, "Previous ");
    access_words(&t, r, k, !k);
    if (k) lr_bputs(b, ",");
    thread_flow(s, b, k ? "previous" : "current", t.p, &r->acc[k].st);
    lr_buf_free(&t);
  }
  creation_flows(s, b, r, 0);
  lr_bputs(b, "]}]");
  lr_bput(b, ",\"properties\":{\"pid\":%ld}}", r->pid);
}

int lr_sarif_write(lr_sarif *s, FILE *out) {
  lr_buf b = {0};
  lr_bputs(&b,
           "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
           "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"dacce-race\"");
  /* informationUri is optional in SARIF 2.1.0: given only when configured */
  if (DACCE_INFO_URI[0]) {
    lr_bputs(&b, ",\"informationUri\":");
    lr_bjson_str(&b, DACCE_INFO_URI);
  }
  lr_bputs(&b, ",\"version\":\"" DACCE_VERSION "\",\"semanticVersion\":\"" DACCE_VERSION "\","
               "\"rules\":["
               "{\"id\":\"data-race\",\"name\":\"DataRace\","
               "\"shortDescription\":{\"text\":\"Data race\"},"
               "\"fullDescription\":{\"text\":\"Two threads access the same memory location "
               "without synchronization ordering the accesses, and at least one of them writes: "
               "the result depends on timing and the program's behaviour is undefined.\"},"
               "\"help\":{\"text\":\"Order the accesses with a mutex, an atomic operation with "
               "the right memory order, or thread create/join; both stacks and the threads' "
               "creation stacks are in the code flows.\"},"
               "\"defaultConfiguration\":{\"level\":\"error\"},"
               "\"properties\":{\"tags\":[\"concurrency\",\"reliability\"],\"precision\":\"high\","
               "\"problem.severity\":\"error\"}},"
               "{\"id\":\"heap-use-after-free\",\"name\":\"HeapUseAfterFree\","
               "\"shortDescription\":{\"text\":\"Heap use after free\"},"
               "\"fullDescription\":{\"text\":\"A thread accesses a heap block that another "
               "thread freed, and nothing orders the free after the access.\"},"
               "\"help\":{\"text\":\"Make sure every thread is done with the block (join it, or "
               "hand the block over under a lock or a reference count) before it is freed.\"},"
               "\"defaultConfiguration\":{\"level\":\"error\"},"
               "\"properties\":{\"tags\":[\"concurrency\",\"reliability\",\"security\"],"
               "\"precision\":\"high\",\"problem.severity\":\"error\"}},"
               "{\"id\":\"thread-leak\",\"name\":\"ThreadLeak\","
               "\"shortDescription\":{\"text\":\"Thread leak\"},"
               "\"fullDescription\":{\"text\":\"A thread finished but was neither joined nor "
               "detached: its stack and its thread resources stay allocated until the process "
               "ends.\"},"
               "\"help\":{\"text\":\"Join the thread (pthread_join, std::thread::join) or "
               "detach it (pthread_detach, PTHREAD_CREATE_DETACHED, std::thread::detach).\"},"
               "\"defaultConfiguration\":{\"level\":\"warning\"},"
               "\"properties\":{\"tags\":[\"concurrency\",\"reliability\"],"
               "\"precision\":\"high\",\"problem.severity\":\"warning\"}},"
               "{\"id\":\"lock-order-inversion\",\"name\":\"LockOrderInversion\","
               "\"shortDescription\":{\"text\":\"Lock-order inversion (potential deadlock)\"},"
               "\"fullDescription\":{\"text\":\"Threads take the same locks in orders that "
               "form a cycle: each can hold one lock of the cycle while it waits for the next, "
               "and then all of them wait forever.\"},"
               "\"help\":{\"text\":\"Take the locks in one global order everywhere, or do "
               "not hold one while taking the other; each thread's two stacks (where it took "
               "the lock it held, where it asked for the next) are in the code flows.\"},"
               "\"defaultConfiguration\":{\"level\":\"error\"},"
               "\"properties\":{\"tags\":[\"concurrency\",\"reliability\"],"
               "\"precision\":\"high\",\"problem.severity\":\"error\"}},"
               "{\"id\":\"mutex-misuse\",\"name\":\"MutexMisuse\","
               "\"shortDescription\":{\"text\":\"Mutex misuse\"},"
               "\"fullDescription\":{\"text\":\"A thread unlocks a lock it does not hold, "
               "locks again a non-recursive lock it holds (it waits for itself forever), or "
               "destroys a lock it holds: undefined behaviour.\"},"
               "\"help\":{\"text\":\"Unlock only what the thread locked, once; use a "
               "recursive mutex for re-entrant locking; unlock before destroying.\"},"
               "\"defaultConfiguration\":{\"level\":\"error\"},"
               "\"properties\":{\"tags\":[\"concurrency\",\"reliability\"],"
               "\"precision\":\"high\",\"problem.severity\":\"error\"}},"
               "{\"id\":\"signal-unsafe-call\",\"name\":\"SignalUnsafeCall\","
               "\"shortDescription\":{\"text\":\"Signal-unsafe call inside of a signal "
               "handler\"},"
               "\"fullDescription\":{\"text\":\"A signal handler calls malloc, free or "
               "operator new/delete, which are not async-signal-safe: if the signal arrived "
               "while the thread was inside the allocator, the handler deadlocks on the "
               "allocator's lock or corrupts the heap.\"},"
               "\"help\":{\"text\":\"Do only async-signal-safe work in the handler (set a "
               "volatile sig_atomic_t flag, write to a pipe) and do the rest outside it, or "
               "take the signal synchronously (sigwait, signalfd).\"},"
               "\"defaultConfiguration\":{\"level\":\"error\"},"
               "\"properties\":{\"tags\":[\"concurrency\",\"reliability\"],"
               "\"precision\":\"high\",\"problem.severity\":\"error\"}},"
               "{\"id\":\"signal-errno\",\"name\":\"SignalHandlerSpoilsErrno\","
               "\"shortDescription\":{\"text\":\"Signal handler spoils errno\"},"
               "\"fullDescription\":{\"text\":\"An asynchronous signal's handler returns "
               "with errno changed: the code it interrupted may have been about to read errno "
               "from a call that just failed, and then sees the handler's value.\"},"
               "\"help\":{\"text\":\"Save errno on entry to the handler and restore it "
               "before returning.\"},"
               "\"defaultConfiguration\":{\"level\":\"warning\"},"
               "\"properties\":{\"tags\":[\"reliability\"],"
               "\"precision\":\"high\",\"problem.severity\":\"warning\"}}"
               "]}},\"originalUriBaseIds\":{\"%SRCROOT%\":{\"uri\":\"file://");
  put_uri_path(&b, s->root);
  lr_bputs(&b, "/\"}},\"results\":[");
  if (s->results.n) lr_bputn(&b, s->results.p, s->results.n);
  lr_bputs(&b, "]}]}\n");
  int r = fwrite(b.p, 1, b.n, out) == b.n ? 0 : -1;
  lr_buf_free(&b);
  return r;
}
