/* render_json.c: a symbolised report as one JSON line (--json FILE).
 *
 * {"kind": "data-race" | "heap-use-after-free" | "thread-leak" |
 *          "lock-order-inversion" | "mutex-misuse", "pid": N,
 *  "capture": "stackwalk" | "cct"  (only under those ablation modes),
 *  "current"/"previous": {"thread", "is_write", "is_atomic", "is_free", "size",
 *     "address": "0x..", "decode_error", "frames": [FRAME...]},
 *  "location": {"kind": global|heap|stack|tls|fd|unknown, "name", "address", "size",
 *     "module", "offset" (globals), "declared_file", "declared_line" (globals
 *     with DWARF), "allocated_by_thread", "allocation_frames" (heap; fd,
 *     its creation, when known), "thread" (stack, tls), "fd" (fd: the
 *     descriptor's number), "object_type" (an object tagged through the
 *     external-race API)},
 *  "mutexes": [{"id": "M1", "address": "0x..", "creation_frames": [FRAME...]
 *     (where it was initialised, else first locked; [] when unknown)}]
 *     (every mutex either access held;
 *  each access lists its own as "mutexes": [{"id": "M1", "read": false}]),
 *  "threads": [{"id", "parent" (null for the main thread), "creation_frames"}],
 *  a thread leak has "leak": {"thread": id, "similar": more leaked threads
 *  created at the same place} instead of current, previous, location and
 *  mutexes,
 *  a lock-order inversion has "cycle": [{"from": "M1", "to": "M2",
 *  "from_read", "to_read", "thread", "frames" (where it wanted `to`),
 *  "held_frames" (where it had taken `from`)}] and "mutexes" instead of
 *  current, previous and location,
 *  a mutex misuse has "misuse": "unlock-not-held" | "double-lock" |
 *  "destroy-held", "mutex": "M1", "thread", "holder" (an unlock's: the
 *  thread that holds the mutex, when known), "frames" (the call), and when
 *  the thread holds the mutex "held_read" and "held_frames" (where it took
 *  it), and "mutexes",
 *  a signal handler's bug ("signal-unsafe-call", "signal-errno") has
 *  "signal" (its number), "signal_name" ("SIGUSR1"), "thread", "frames"
 *  (the call; or the handler, then where the signal arrived), and
 *  "function" (the unsafe call's: "malloc", "operator new", ...) or
 *  "errno_before" and "errno_after",
 *  "summary": "data race /path/file.c:7:45 in bump"}
 * FRAME = {"function", "file", "line", "column", "module", "offset": "0x..",
 *          "pc": "0x..", "inlined": bool}, innermost first; unknown strings
 * are null and unknown line/column 0.  Addresses are hex strings.
 */
#include <string.h>

#include "launcher.h"

static void hex(lr_buf *b, unsigned long long v) { lr_bput(b, "\"%#llx\"", v); }

static void frames(lr_buf *b, const lr_stack *s) {
  lr_bputs(b, "[");
  for (int i = 0; i < s->n; i++) {
    const lr_frame *f = &s->f[i];
    lr_bputs(b, i ? ",{\"function\":" : "{\"function\":");
    lr_bjson_str(b, f->function);
    lr_bputs(b, ",\"file\":");
    lr_bjson_str(b, f->file);
    lr_bput(b, ",\"line\":%d,\"column\":%d,\"module\":", f->line, f->column);
    lr_bjson_str(b, f->module);
    lr_bputs(b, ",\"offset\":");
    hex(b, f->offset);
    lr_bputs(b, ",\"pc\":");
    hex(b, f->pc);
    lr_bput(b, ",\"inlined\":%s}", f->inlined ? "true" : "false");
  }
  lr_bputs(b, "]");
}

static void access(lr_buf *b, const char *key, const lr_access *a) {
  lr_bput(b, ",\"%s\":{\"thread\":%u,\"is_write\":%s,\"is_atomic\":%s,\"is_free\":%s,\"size\":%u,"
             "\"address\":",
          key, a->thread, a->is_write ? "true" : "false", a->is_atomic ? "true" : "false",
          a->is_free ? "true" : "false", a->size);
  hex(b, a->address);
  if (a->st.truncated) lr_bputs(b, ",\"frames_truncated\":true");
  if (a->st.pc_merged) lr_bputs(b, ",\"pc_merged\":true");
  if (a->is_vptr) lr_bputs(b, ",\"is_vptr\":true");
  lr_bputs(b, ",\"mutexes\":[");
  for (int i = 0; i < a->nheld; i++)
    lr_bput(b, "%s{\"id\":\"M%d\",\"read\":%s}", i ? "," : "", a->held[i] + 1,
            a->held_read[i] ? "true" : "false");
  lr_bputs(b, "]");
  lr_bput(b, ",\"decode_error\":%d,\"frames\":", a->st.decode_error);
  frames(b, &a->st);
  lr_bputs(b, "}");
}

static void mutexes(lr_buf *b, const lr_report *r);

/* "cycle": a lock-order inversion's edges */
static void cycle(lr_buf *b, const lr_report *r) {
  lr_bputs(b, ",\"cycle\":[");
  for (int i = 0; i < r->nedges; i++) {
    const lr_edge *e = &r->edges[i];
    lr_bput(b, "%s{\"from\":\"M%d\",\"to\":\"M%d\",\"from_read\":%s,\"to_read\":%s,"
               "\"thread\":%u,\"frames\":",
            i ? "," : "", e->from + 1, e->to + 1, e->from_read ? "true" : "false",
            e->to_read ? "true" : "false", e->thread);
    frames(b, &e->wanted);
    lr_bputs(b, ",\"held_frames\":");
    frames(b, &e->held);
    lr_bputs(b, "}");
  }
  lr_bputs(b, "]");
  mutexes(b, r);
}

/* a mutex misuse: what, the mutex, the thread and its stacks */
static void misuse(lr_buf *b, const lr_report *r) {
  lr_bputs(b, ",\"misuse\":");
  lr_bjson_str(b, r->misuse);
  lr_bput(b, ",\"mutex\":\"M1\",\"thread\":%u,", r->acc[0].thread);
  if (r->has_holder) lr_bput(b, "\"holder\":%u,", r->holder);
  lr_bputs(b, "\"frames\":");
  frames(b, &r->acc[0].st);
  if (r->acc[1].st.n) {
    lr_bput(b, ",\"held_read\":%s,\"held_frames\":", r->held_read ? "true" : "false");
    frames(b, &r->acc[1].st);
  }
  mutexes(b, r);
}

/* a signal handler's bug: the signal, the thread, what it did, the stack */
static void signal_bug(lr_buf *b, const lr_report *r) {
  char sn[24];
  lr_bput(b, ",\"signal\":%d,\"signal_name\":\"%s\",\"thread\":%u,", r->signal,
          lr_signal_name(r->signal, sn), r->acc[0].thread);
  if (r->unsafe_fn) {
    lr_bputs(b, "\"function\":");
    lr_bjson_str(b, r->unsafe_fn);
  } else {
    lr_bput(b, "\"errno_before\":%d,\"errno_after\":%d", r->errno_before, r->errno_after);
  }
  lr_bputs(b, ",\"frames\":");
  frames(b, &r->acc[0].st);
}

/* current, previous, location and mutexes of a race or use after free */
static void accesses(lr_buf *b, const lr_report *r) {
  access(b, "current", &r->acc[0]);
  access(b, "previous", &r->acc[1]);

  const lr_location *l = &r->loc;
  lr_bputs(b, ",\"location\":{\"kind\":");
  lr_bjson_str(b, l->kind);
  lr_bputs(b, ",\"name\":");
  lr_bjson_str(b, l->name && *l->name ? l->name : NULL);
  lr_bputs(b, ",\"address\":");
  hex(b, l->address ? l->address : l->access_address);
  lr_bput(b, ",\"size\":%llu,\"access_address\":", (unsigned long long)l->size);
  hex(b, l->access_address);
  if (!strcmp(l->kind, "global")) {
    lr_bputs(b, ",\"module\":");
    lr_bjson_str(b, l->data.module);
    lr_bputs(b, ",\"offset\":");
    hex(b, l->data.offset);
    lr_bputs(b, ",\"declared_file\":");
    lr_bjson_str(b, l->decl_file);
    lr_bput(b, ",\"declared_line\":%d", l->decl_line);
  }
  if (!strcmp(l->kind, "fd")) lr_bput(b, ",\"fd\":%d", l->fd);
  if (l->object_type) {
    lr_bputs(b, ",\"object_type\":");
    lr_bjson_str(b, l->object_type);
  }
  if (l->has_thread)
    lr_bput(b, ",\"%s\":%u",
            !strcmp(l->kind, "heap") || !strcmp(l->kind, "fd") ? "allocated_by_thread" : "thread",
            l->thread);
  if (l->has_alloc) {
    lr_bputs(b, ",\"allocation_frames\":");
    frames(b, &l->alloc);
  }
  lr_bputs(b, "}");
  mutexes(b, r);
}

/* "mutexes": every mutex the report names, with its creation frames */
static void mutexes(lr_buf *b, const lr_report *r) {
  lr_bputs(b, ",\"mutexes\":[");
  for (int i = 0; i < r->nmutexes; i++) {
    lr_bput(b, "%s{\"id\":\"M%d\",\"address\":", i ? "," : "", i + 1);
    hex(b, r->mutexes[i]);
    lr_bputs(b, ",\"creation_frames\":");
    if (r->mutex_created_known[i])
      frames(b, &r->mutex_created[i]);
    else
      lr_bputs(b, "[]");
    lr_bputs(b, "}");
  }
  lr_bputs(b, "]");
}

void lr_render_json(const lr_report *r, lr_buf *b) {
  lr_bputs(b, "{\"kind\":");
  lr_bjson_str(b, r->kind);
  lr_bput(b, ",\"pid\":%ld", r->pid);
  if (r->capture) {
    lr_bputs(b, ",\"capture\":");
    lr_bjson_str(b, r->capture);
  }
  if (lr_is_leak(r))
    lr_bput(b, ",\"leak\":{\"thread\":%u,\"similar\":%u}", r->leak_thread, r->leak_similar);
  else if (lr_is_deadlock(r))
    cycle(b, r);
  else if (lr_is_misuse(r))
    misuse(b, r);
  else if (lr_is_signal(r))
    signal_bug(b, r);
  else
    accesses(b, r);
  lr_bputs(b, ",\"threads\":[");
  for (int i = 0; i < r->nthreads; i++) {
    const lr_thread *t = &r->threads[i];
    lr_bput(b, "%s{\"id\":%u,\"name\":", i ? "," : "", t->id);
    lr_bjson_str(b, t->name ? t->name : "");
    lr_bputs(b, ",\"parent\":");
    if (t->has_parent)
      lr_bput(b, "%u", t->parent);
    else
      lr_bputs(b, "null");
    lr_bputs(b, ",\"creation_frames\":");
    frames(b, &t->created);
    lr_bputs(b, "}");
  }
  lr_bputs(b, "],\"summary\":");
  lr_buf s = {0};
  lr_bputs(&s, lr_report_title(r));
  const lr_frame *top = lr_report_top(r);
  if (top && top->file) {
    lr_bput(&s, " %s", top->file);
    if (top->line) lr_bput(&s, ":%d", top->line);
    if (top->line && top->column) lr_bput(&s, ":%d", top->column);
  }
  if (top && top->function) lr_bput(&s, " in %s", top->function);
  lr_bjson_str(b, s.p);
  lr_buf_free(&s);
  lr_bputs(b, "}\n");
}
