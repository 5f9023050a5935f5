/* suppress.c: suppressions in ThreadSanitizer's syntax.
 *
 * One per line, "TYPE:PATTERN"; blank lines and lines starting with '#' are
 * ignored, spaces around are trimmed.  PATTERN matches a string as in TSan:
 * anywhere in it, '*' matches any run of characters, a leading '^' anchors at
 * the start and a trailing '$' at the end.  It is tried against the function
 * name, the source file and the module path of frames:
 *   race:P             any frame of the current or previous access (inlined
 *                      frames included), or the racy global's name / module
 *   race_top:P         the innermost frame of either access
 *   thread:P           any frame of a thread-creation stack in the report
 *   called_from_lib:P  any frame of either access in module P (the module's
 *                      path or file name)
 *   deadlock:P         any frame of a lock-order inversion's stacks (where
 *                      each thread asked for a lock, and took the one it held)
 *   mutex:P            any frame of a mutex misuse's stacks
 *   signal:P           any frame of a signal handler's bug (its call, or
 *                      the handler over where the signal arrived)
 * Only deadlock: and thread: apply to lock-order inversions, only mutex:
 * and thread: to mutex misuse, only signal: and thread: to a signal
 * handler's bugs.  The first suppression in file order that matches counts.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "launcher.h"

enum { S_RACE, S_RACE_TOP, S_THREAD, S_LIB, S_DEADLOCK, S_MUTEX, S_SIGNAL };
static const struct {
  const char *name;
  int type;
} types[] = {{"race", S_RACE},          {"race_top", S_RACE_TOP}, {"thread", S_THREAD},
             {"called_from_lib", S_LIB}, {"mutex", S_MUTEX},       {"signal", S_SIGNAL},
             {"deadlock", S_DEADLOCK}};

typedef struct supp {
  int type;
  char *text;    /* "race:foo" as written */
  char *pattern; /* after the colon */
  int line;
  unsigned long count;
} supp;

struct lr_supps {
  supp *v;
  size_t n, cap;
  unsigned long total;
};

void lr_supps_free(lr_supps *s) {
  if (!s) return;
  for (size_t i = 0; i < s->n; i++) free(s->v[i].text);
  free(s->v);
  free(s);
}

lr_supps *lr_supps_load(const char *path, char *err, size_t errlen) {
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "dacce-race: cannot read suppressions file %s: %s", path,
             strerror(errno));
    return NULL;
  }
  lr_supps *s = calloc(1, sizeof *s);
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;
  int lineno = 0;
  while (s && (len = getline(&line, &cap, f)) >= 0) {
    lineno++;
    if (memchr(line, 0, (size_t)len)) {
      snprintf(err, errlen, "dacce-race: %s:%d: not a text line", path, lineno);
      goto bad;
    }
    char *p = line, *e = line + len;
    while (p < e && (*p == ' ' || *p == '\t')) p++;
    while (e > p && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' ' || e[-1] == '\t')) e--;
    *e = 0;
    if (!*p || *p == '#') continue;
    char *colon = strchr(p, ':');
    int type = -1;
    if (colon)
      for (size_t k = 0; k < sizeof types / sizeof *types; k++)
        if ((size_t)(colon - p) == strlen(types[k].name) &&
            !strncmp(p, types[k].name, (size_t)(colon - p)))
          type = types[k].type;
    if (!colon) {
      snprintf(err, errlen, "dacce-race: %s:%d: '%.80s' is not TYPE:PATTERN", path, lineno, p);
      goto bad;
    }
    if (type < 0) {
      snprintf(err, errlen,
               "dacce-race: %s:%d: unknown suppression type '%.*s' (race, race_top, thread, "
               "called_from_lib)",
               path, lineno, (int)(colon - p > 40 ? 40 : colon - p), p);
      goto bad;
    }
    if (!colon[1]) {
      snprintf(err, errlen, "dacce-race: %s:%d: empty pattern in '%.80s'", path, lineno, p);
      goto bad;
    }
    if (s->n == s->cap) {
      s->cap = s->cap ? s->cap * 2 : 16;
      supp *v = realloc(s->v, s->cap * sizeof *v);
      if (!v) {
        snprintf(err, errlen, "dacce-race: out of memory");
        goto bad;
      }
      s->v = v;
    }
    supp *x = &s->v[s->n];
    x->type = type;
    x->text = strdup(p);
    if (!x->text) {
      snprintf(err, errlen, "dacce-race: out of memory");
      goto bad;
    }
    x->pattern = x->text + (colon - p) + 1;
    x->line = lineno;
    x->count = 0;
    s->n++;
  }
  if (ferror(f)) {
    snprintf(err, errlen, "dacce-race: cannot read suppressions file %s: %s", path,
             strerror(errno));
    goto bad;
  }
  free(line);
  fclose(f);
  if (!s) snprintf(err, errlen, "dacce-race: out of memory");
  return s;
bad:
  free(line);
  fclose(f);
  lr_supps_free(s);
  return NULL;
}

/* ------------------------------------------------------------ matching */
/* glob with '*' over the whole of str */
static int glob(const char *p, const char *pe, const char *s) {
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (p < pe && *p == '*') {
      star = ++p;
      resume = s;
    } else if (p < pe && *p == *s) {
      p++;
      s++;
    } else if (star) {
      p = star;
      s = ++resume;
    } else {
      return 0;
    }
  }
  while (p < pe && *p == '*') p++;
  return p == pe;
}

/* TSan's TemplateMatch semantics: unanchored unless ^ / $ */
static int template_match(const char *pat, const char *str) {
  if (!str || !*str) return 0;
  size_t n = strlen(pat);
  int start = n && pat[0] == '^';
  int end = n > (size_t)start && pat[n - 1] == '$';
  const char *p = pat + start, *pe = pat + n - end;
  if (start && end) return glob(p, pe, str);
  /* unanchored side: allow anything there */
  size_t len = (size_t)(pe - p);
  char *g = malloc(len + 3), *w = g;
  if (!g) return 0;
  if (!start) *w++ = '*';
  memcpy(w, p, len);
  w += len;
  if (!end) *w++ = '*';
  int r = glob(g, w, str);
  free(g);
  return r;
}

static int frame_match(const char *pat, const lr_frame *f) {
  return template_match(pat, f->function) || template_match(pat, f->file) ||
         template_match(pat, f->module) || template_match(pat, lr_basename(f->module));
}

static int stack_match(const char *pat, const lr_stack *s, int top_only) {
  int n = top_only && s->n ? 1 : s->n;
  for (int i = 0; i < n; i++)
    if (frame_match(pat, &s->f[i])) return 1;
  return 0;
}

static int lib_match(const char *pat, const lr_stack *s) {
  for (int i = 0; i < s->n; i++)
    if (template_match(pat, s->f[i].module) || template_match(pat, lr_basename(s->f[i].module)))
      return 1;
  return 0;
}

static int matches(const supp *x, const lr_report *r) {
  if (lr_is_deadlock(r)) { /* deadlock: and thread: only */
    if (x->type == S_DEADLOCK)
      for (int i = 0; i < r->nedges; i++)
        if (stack_match(x->pattern, &r->edges[i].wanted, 0) ||
            stack_match(x->pattern, &r->edges[i].held, 0))
          return 1;
    if (x->type != S_THREAD) return 0;
  }
  if (lr_is_misuse(r)) { /* mutex: and thread: only */
    if (x->type == S_MUTEX)
      return stack_match(x->pattern, &r->acc[0].st, 0) || stack_match(x->pattern, &r->acc[1].st, 0);
    if (x->type != S_THREAD) return 0;
  }
  if (lr_is_signal(r)) { /* signal: and thread: only */
    if (x->type == S_SIGNAL) return stack_match(x->pattern, &r->acc[0].st, 0);
    if (x->type != S_THREAD) return 0;
  }
  switch (x->type) {
    case S_RACE:
      if (stack_match(x->pattern, &r->acc[0].st, 0) || stack_match(x->pattern, &r->acc[1].st, 0))
        return 1;
      return !strcmp(r->loc.kind, "global") &&
             (template_match(x->pattern, r->loc.name) ||
              template_match(x->pattern, r->loc.data.module) ||
              template_match(x->pattern, r->loc.decl_file));
    case S_RACE_TOP:
      return stack_match(x->pattern, &r->acc[0].st, 1) || stack_match(x->pattern, &r->acc[1].st, 1);
    case S_THREAD:
      for (int i = 0; i < r->nthreads; i++)
        if (stack_match(x->pattern, &r->threads[i].created, 0)) return 1;
      return 0;
    case S_LIB:
      return lib_match(x->pattern, &r->acc[0].st) || lib_match(x->pattern, &r->acc[1].st);
    default:
      return 0;
  }
}

int lr_supps_match(lr_supps *s, const lr_report *r) {
  if (!s) return -1;
  for (size_t i = 0; i < s->n; i++)
    if (matches(&s->v[i], r)) {
      s->v[i].count++;
      s->total++;
      return (int)i;
    }
  return -1;
}

unsigned long lr_supps_total(const lr_supps *s) { return s ? s->total : 0; }

void lr_supps_summary(lr_supps *s, FILE *out) {
  if (!s || !s->total) return;
  fprintf(out, "dacce-race: suppressed %lu report%s (", s->total, s->total == 1 ? "" : "s");
  int first = 1;
  for (size_t i = 0; i < s->n; i++) {
    if (!s->v[i].count) continue;
    fprintf(out, "%s%s: %lu", first ? "" : ", ", s->v[i].text, s->v[i].count);
    first = 0;
  }
  fputs(")\n", out);
}
