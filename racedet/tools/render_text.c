/* render_text.c: a report as ThreadSanitizer prints one.
 *
 *   ==================
 *   WARNING: dacce-race: data race (pid=123)
 *     Write of size 4 at 0x7f.. by thread T2 (mutexes: write M1, read M2):
 *       #0 bump /path/race.c:7:45 (race+0x1234)
 *       #1 worker /path/race.c:10 (race+0x1260)
 *
 *     Previous read of size 4 at 0x7f.. by thread T1:
 *       ...
 *
 *     Location is global 'counter' of size 4 at 0x.. (race+0x4010)
 *
 *     Mutex M1 (0x..) created at:
 *       #0 make_lock /path/race.c:3 (race+0x1200)
 *
 *     Thread T2 created by main thread at:
 *       #0 main /path/race.c:14 (race+0x..)
 *
 *   SUMMARY: dacce-race: data race /path/race.c:7:45 in bump
 *   ==================
 *
 * A lock-order inversion has the cycle "M1 (0x..) => M2 (0x..) => M1", then
 * per edge "Mutex M2 acquired here while holding mutex M1 in thread T1:"
 * with its stack and "Mutex M1 previously acquired by the same thread
 * here:" with that one, then the mutexes and threads as a race's.
 *
 * A mutex misuse says what the thread did ("Unlock of mutex M1 (0x..) by
 * thread T1, which does not hold it:", with " (thread T2 does)" when
 * another thread holds it, "Lock of ... which holds it
 * already:", "Destroy of ... which holds it:") with its stack, and where it
 * had taken the mutex when it holds it.
 *
 * A signal handler's bug says what it did ("Call of malloc in the handler
 * of signal 10 (SIGUSR1) by main thread:" with the call's stack; "The
 * handler of signal 10 (SIGUSR1) in main thread changed errno from 0 to 9
 * (EBADF); ..." with the handler's frame over where the signal arrived).
 *
 * A thread leak has no accesses: the leaked thread "(finished) created by"
 * its creator, its ancestry, "And N more similar thread leaks." when other
 * threads created at the same place leaked too, and a SUMMARY at its
 * creation.
 *
 * With tsan_header the tool name is "ThreadSanitizer", which is what log
 * parsers (ctest's memcheck) look for.  Inlined frames are separate lines
 * with the same module offset, as TSan prints them.
 */
#define _GNU_SOURCE
#include <string.h>

#include "../report_words.h"
#include "../signal_words.h"
#include "launcher.h"

static void put_frame(lr_buf *b, int i, const lr_frame *f) {
  lr_bput(b, "    #%d %s", i, f->function ? f->function : "<null>");
  if (f->file) {
    lr_bput(b, " %s", f->file);
    if (f->line) lr_bput(b, ":%d", f->line);
    if (f->line && f->column) lr_bput(b, ":%d", f->column);
  } else if (f->function || f->module) {
    lr_bputs(b, " <null>");
  }
  if (f->module)
    lr_bput(b, " (%s+%#lx)", lr_basename(f->module), (unsigned long)f->offset);
  else if (f->pc)
    lr_bput(b, " (%#lx)", (unsigned long)f->pc);
  lr_bputs(b, "\n");
}

/* Frames that are the same call site of the same function (recursion).
 * The frames a call's inlined functions add share its pc: they differ in
 * function or line (before, a call with three or more inlined levels had
 * them folded as "more recursive calls"). */
static int same_frame(const lr_frame *a, const lr_frame *b) {
  return a->pc == b->pc && a->inlined == b->inlined && a->line == b->line &&
         a->column == b->column &&
         (a->function == b->function ||
          (a->function && b->function && !strcmp(a->function, b->function)));
}

/* Every frame, except that a run of more than three identical frames (deep
 * recursion: the runtime expands it completely) is folded after its first
 * two into one line that keeps the numbering; --json keeps every frame. */
static void put_stack(lr_buf *b, const lr_stack *s) {
  for (int i = 0; i < s->n; i++) {
    int run = 1;
    while (i + run < s->n && same_frame(&s->f[i], &s->f[i + run])) run++;
    if (run <= 3) {
      put_frame(b, i, &s->f[i]);
      continue;
    }
    put_frame(b, i, &s->f[i]);
    put_frame(b, i + 1, &s->f[i + 1]);
    lr_bput(b, "    #%d-#%d the same as #%d (%d more recursive calls)\n", i + 2, i + run - 1, i + 1,
            run - 2);
    i += run - 1;
  }
  if (s->decode_error) lr_bput(b, "    <context could not be decoded: error %d>\n", s->decode_error);
  if (s->truncated) lr_bputs(b, "    ... (the runtime cut this stack at its frame limit)\n");
  if (s->pc_merged) lr_bputs(b, "    " RD_MERGED_NOTE "\n");
  if (!s->n && !s->decode_error) lr_bputs(b, "    <empty stack>\n");
}

static void put_access(lr_buf *b, const lr_report *r, int k) {
  const lr_access *a = &r->acc[k];
  char t[LR_TNAME];
  const char *what = a->is_free ? "free" : a->is_write ? "write" : "read";
  char head[64];
  snprintf(head, sizeof head, "%s%s%s", k ? "Previous " : "", a->is_atomic ? "atomic " : "", what);
  if (!k) head[0] = (char)(head[0] - 'a' + 'A'); /* "Write", "Atomic write" */
  lr_bput(b, "  %s of size %u at %#llx by %s", head, a->size, (unsigned long long)a->address,
          lr_thread_name(r, a->thread, t));
  for (int i = 0; i < a->nheld; i++)
    lr_bput(b, "%s%s M%d", i ? ", " : " (mutexes: ", a->held_read[i] ? "read" : "write",
            a->held[i] + 1);
  if (a->nheld) lr_bputs(b, ")");
  lr_bputs(b, ":\n");
  put_stack(b, &a->st);
  lr_bputs(b, "\n");
}

/* Each thread named, with its creator and creation stack; a leaked thread
 * is "(finished)", as TSan says. */
static void put_threads(lr_buf *b, const lr_report *r) {
  char t[LR_TNAME], t2[LR_TNAME];
  for (int i = 0; i < r->nthreads; i++) {
    const lr_thread *th = &r->threads[i];
    if (!th->has_parent) continue;
    char who[LR_TNAME];
    snprintf(who, sizeof who, "%s", lr_thread_name(r, th->id, t));
    who[0] = 'T';
    lr_bput(b, "  %s%s created by %s at:\n", who,
            lr_is_leak(r) && th->id == r->leak_thread ? " (finished)" : "",
            lr_thread_name(r, th->parent, t2));
    put_stack(b, &th->created);
    lr_bputs(b, "\n");
  }
}

/* Each mutex named, with where it was created when known. */
static void put_mutexes(lr_buf *b, const lr_report *r) {
  for (int i = 0; i < r->nmutexes; i++) {
    const int known = r->mutex_created_known[i];
    lr_bput(b, "  Mutex M%d (%#llx)%s\n", i + 1, (unsigned long long)r->mutexes[i],
            known ? " created at:" : "");
    if (known) {
      put_stack(b, &r->mutex_created[i]);
      lr_bputs(b, "\n");
    }
  }
  if (r->nmutexes && !r->mutex_created_known[r->nmutexes - 1]) lr_bputs(b, "\n");
}

/* A lock-order cycle as ThreadSanitizer prints one, with every edge's
 * second stack (where the held lock was taken) always shown. */
static void put_cycle(lr_buf *b, const lr_report *r) {
  char t[LR_TNAME];
  lr_bputs(b, "  Cycle in lock order graph: ");
  for (int i = 0; i < r->nedges; i++)
    lr_bput(b, "M%d (%#llx) => ", r->edges[i].from + 1,
            (unsigned long long)r->mutexes[r->edges[i].from]);
  lr_bput(b, "M%d\n\n", r->edges[0].from + 1);
  for (int i = 0; i < r->nedges; i++) {
    const lr_edge *e = &r->edges[i];
    lr_bput(b, "  Mutex M%d %sacquired here while holding mutex M%d%s in %s:\n", e->to + 1,
            e->to_read ? "read-" : "", e->from + 1, e->from_read ? " (read)" : "",
            lr_thread_name(r, e->thread, t));
    put_stack(b, &e->wanted);
    lr_bput(b, "\n  Mutex M%d previously acquired by the same thread here:\n", e->from + 1);
    put_stack(b, &e->held);
    lr_bputs(b, "\n");
  }
}

/* A mutex misuse: what the thread did, where it had taken the mutex. */
static void put_misuse(lr_buf *b, const lr_report *r) {
  static const char *const doings[] = RD_MISUSE_DOINGS;
  char t[LR_TNAME];
  lr_bputs(b, "  ");
  lr_bput(b, doings[lr_misuse_index(r)], 1, (unsigned long long)r->mutexes[0],
          lr_thread_name(r, r->acc[0].thread, t));
  if (r->has_holder) lr_bput(b, RD_MISUSE_HOLDER, lr_thread_name(r, r->holder, t));
  lr_bputs(b, ":\n");
  put_stack(b, &r->acc[0].st);
  if (r->acc[1].st.n) {
    lr_bput(b, "\n  Mutex M1 previously %sacquired by the same thread here:\n",
            r->held_read ? "read-" : "");
    put_stack(b, &r->acc[1].st);
  }
  lr_bputs(b, "\n");
}

/* A signal handler's bug: what it did, the stack. */
static void put_signal(lr_buf *b, const lr_report *r) {
  char t[LR_TNAME], sn[24], e0[40], e1[40];
  lr_bputs(b, "  ");
  if (!strcmp(r->kind, "signal-unsafe-call"))
    lr_bput(b, RD_SIGNAL_UNSAFE_DOING, r->unsafe_fn, r->signal, rd_signal_name(r->signal, sn),
            lr_thread_name(r, r->acc[0].thread, t));
  else
    lr_bput(b, RD_SIGNAL_ERRNO_DOING, r->signal, rd_signal_name(r->signal, sn),
            lr_thread_name(r, r->acc[0].thread, t), rd_errno_words(r->errno_before, e0),
            rd_errno_words(r->errno_after, e1));
  lr_bputs(b, ":\n");
  put_stack(b, &r->acc[0].st);
  lr_bputs(b, "\n");
}

static void put_summary(lr_buf *b, const lr_report *r, const char *tool) {
  lr_bput(b, "SUMMARY: %s: %s", tool, lr_report_title(r));
  const lr_frame *top = lr_report_top(r);
  if (top) {
    if (top->file) {
      lr_bput(b, " %s", top->file);
      if (top->line) lr_bput(b, ":%d", top->line);
      if (top->line && top->column) lr_bput(b, ":%d", top->column);
    } else if (top->module) {
      lr_bput(b, " (%s+%#lx)", lr_basename(top->module), (unsigned long)top->offset);
    }
    if (top->function) lr_bput(b, " in %s", top->function);
  }
  lr_bputs(b, "\n==================\n");
}

void lr_render_text(const lr_report *r, const lr_text_opts *o, lr_buf *b) {
  const char *tool = o->tsan_header ? "ThreadSanitizer" : "dacce-race";
  char t[LR_TNAME];
  lr_bput(b, "==================\nWARNING: %s: %s (pid=%ld)\n", tool, lr_report_title(r), r->pid);
  if (r->capture) /* the same note as the runtime's own text */
    lr_bput(b, "  [capture=%s: an ablation for benchmarking; contexts are %s]\n", r->capture,
            !strcmp(r->capture, "cct") ? "calling context tree paths"
            : !strcmp(r->capture, "stackwalk") ? "frame-pointer walks, no thread ancestry"
                                               : "not DACCE's");
  if (lr_is_leak(r)) {
    put_threads(b, r);
    if (r->leak_similar)
      lr_bput(b, "  And %u more similar thread leak%s.\n\n", r->leak_similar,
              r->leak_similar > 1 ? "s" : "");
    put_summary(b, r, tool);
    return;
  }
  if (lr_is_deadlock(r) || lr_is_misuse(r) || lr_is_signal(r)) {
    if (lr_is_deadlock(r))
      put_cycle(b, r);
    else if (lr_is_signal(r))
      put_signal(b, r);
    else
      put_misuse(b, r);
    put_mutexes(b, r);
    put_threads(b, r);
    put_summary(b, r, tool);
    return;
  }
  put_access(b, r, 0);
  put_access(b, r, 1);

  const lr_location *l = &r->loc;
  if (!strcmp(l->kind, "global")) {
    if (l->name && *l->name)
      lr_bput(b, "  Location is global '%s' of size %llu at %#llx", l->name,
              (unsigned long long)l->size, (unsigned long long)l->address);
    else
      lr_bput(b, "  Location is global at %#llx", (unsigned long long)l->access_address);
    if (l->data.module)
      lr_bput(b, " (%s+%#lx)", lr_basename(l->data.module), (unsigned long)l->data.offset);
    if (l->decl_file) lr_bput(b, " declared at %s:%d", l->decl_file, l->decl_line);
    lr_bputs(b, "\n\n");
  } else if (!strcmp(l->kind, "heap")) {
    lr_bput(b, "  Location is heap block of size %llu at %#llx allocated by %s:\n",
            (unsigned long long)l->size, (unsigned long long)l->address,
            l->has_thread ? lr_thread_name(r, l->thread, t) : "an unknown thread");
    if (l->has_alloc) put_stack(b, &l->alloc);
    lr_bputs(b, "\n");
  } else if (!strcmp(l->kind, "fd")) {
    lr_bput(b, "  Location is file descriptor %d", l->fd);
    if (l->has_alloc && l->has_thread) {
      lr_bput(b, " created by %s at:\n", lr_thread_name(r, l->thread, t));
      put_stack(b, &l->alloc);
      lr_bputs(b, "\n");
    } else {
      lr_bputs(b, ".\n\n");
    }
  } else if (!strcmp(l->kind, "stack") || !strcmp(l->kind, "tls")) {
    const char *what = !strcmp(l->kind, "tls") ? "TLS" : "stack";
    if (l->has_thread)
      lr_bput(b, "  Location is %s of %s.\n\n", what, lr_thread_name(r, l->thread, t));
    else
      lr_bput(b, "  Location is %s of an unknown thread.\n\n", what);
  }
  if (l->object_type)
    lr_bput(b, "  Object of type '%s' (its library's external-race tag)\n\n", l->object_type);

  put_mutexes(b, r);
  put_threads(b, r);
  put_summary(b, r, tool);
}
