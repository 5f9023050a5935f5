/* test_encoding.c: unit tests of the encoding and decoding logic.
 *
 * The tests drive the hooks' C paths (dc_func_entry / dc_func_exit, which
 * do what the assembly fast paths of __tsan_func_entry/exit do, and more)
 * with synthetic function pcs,
 * call sites and stack pointers, so no instrumented code is needed and every
 * context is known exactly. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

void dc_func_entry(uintptr_t cs, uintptr_t callee, uintptr_t sp);
void dc_func_exit(uintptr_t ra, uintptr_t sp);

#include "check.h"

/* ------------------------------------------------------------ a fake program */
/* Functions are letters; pc(f) is a fixed address per function, and every
 * (caller, callee) pair gets its own call-site address. */
static uintptr_t fpc(char f) { return 0x100000 + (uintptr_t)(unsigned char)f * 0x1000; }
static uintptr_t cspc(char from, char to) { return fpc(from) + 0x10 + (uintptr_t)(unsigned char)to; }

typedef struct sim {
  char stack[4096]; /* function letters, outermost first */
  int depth;
  uintptr_t sp0;
} sim;

static void sim_init(sim *s) {
  char here;
  s->depth = 0;
  s->sp0 = ((uintptr_t)&here - 65536) & ~(uintptr_t)15;
}
static uintptr_t sim_sp(const sim *s, int depth) { return s->sp0 - (uintptr_t)depth * 64; }

static void call(sim *s, char f) {
  char from = s->depth ? s->stack[s->depth - 1] : '^';
  dc_func_entry(cspc(from, f), fpc(f), sim_sp(s, s->depth));
  s->stack[s->depth++] = f;
}
static void ret(sim *s) {
  s->depth--;
  dc_func_exit(fpc(s->stack[s->depth]) + 0x800, sim_sp(s, s->depth));
}
/* enter a whole path, e.g. "ABDEI" */
static void path(sim *s, const char *p) {
  for (; *p; p++) call(s, *p);
}
/* Calls are encoded when a context is captured (encoder.c,
 * dc_materialize), and only then is a new edge discovered: a path that is
 * unwound is captured first, as a program's would be by its accesses. */
static void unwind_all(sim *s) {
  dacce_ctx c;
  dacce_capture(&c);
  while (s->depth) ret(s);
}

static uint32_t node_of(char f) {
  for (uint32_t i = 1; i < atomic_load(&dc_nodes.n); i++)
    if (dc_node_at(i)->pc == fpc(f)) return i;
  return UINT32_MAX;
}
static uint32_t edge_of(char from, char to) {
  uint32_t caller = from == '^' ? DC_ROOT : node_of(from);
  for (uint32_t i = 1; i < atomic_load(&dc_edges.n); i++) {
    dc_edge *e = dc_edge_at(i);
    if (e->caller == caller && e->cs == cspc(from, to)) return i;
  }
  return 0;
}

/* Decode the current context and render it as letters, outermost first. */
static int decode_current(char *out, size_t max) {
  dacce_ctx c;
  dacce_capture(&c);
  dacce_frame fr[4096];
  int n = dc_decode_thread(&c, fr, 4096);
  if (n < 0) {
    snprintf(out, max, "<error %d>", n);
    return n;
  }
  size_t k = 0;
  for (int i = n - 1; i >= 0 && k + 1 < max; i--) out[k++] = (char)((fr[i].function - 0x100000) / 0x1000);
  out[k] = 0;
  return n;
}
static void truth(const sim *s, char *out) {
  memcpy(out, s->stack, (size_t)s->depth);
  out[s->depth] = 0;
}
#define CHECK_DECODES(s)                                                        \
  do {                                                                          \
    char got_[4200], want_[4200];                                               \
    decode_current(got_, sizeof got_);                                          \
    truth(s, want_);                                                            \
    CHECK(!strcmp(got_, want_), "decoded %s, expected %s", got_, want_);        \
  } while (0)

/* A dictionary by hand: codes per (from,to) and numCC per function. */
typedef struct hand_code { char from, to; uint64_t code; } hand_code;
typedef struct hand_numcc { char f; uint64_t numcc; } hand_numcc;
static const dc_dict *hand_dict(const hand_code *codes, int nc, const hand_numcc *ns, int nn) {
  dc_dict *d = dc_dict_new(atomic_load(&dc_edges.n), atomic_load(&dc_nodes.n));
  d->numcc[DC_ROOT] = 1;
  for (uint32_t i = 1; i < d->n_nodes; i++) d->numcc[i] = 1;
  for (int i = 0; i < nc; i++) {
    uint32_t e = edge_of(codes[i].from, codes[i].to);
    if (!e) {
      printf("hand_dict: no edge %c->%c\n", codes[i].from, codes[i].to);
      exit(2);
    }
    d->code[e] = codes[i].code;
  }
  for (int i = 0; i < nn; i++) d->numcc[node_of(ns[i].f)] = ns[i].numcc;
  dc_dict_finish(d);
  dc_dict_publish(d);
  return d;
}

/* ccStack entries of the current context, bottom first, as "<id,X,Y>" */
static void cc_string(char *out, size_t max) {
  dacce_ctx c;
  dacce_capture(&c);
  uint32_t chain[256];
  int n = 0;
  for (uint32_t cc = c.cc; cc && n < 256; cc = dc_cc_at(cc)->parent) chain[n++] = cc;
  size_t k = 0;
  out[0] = 0;
  for (int i = n - 1; i >= 0; i--) {
    const dc_ccnode *en = dc_cc_at(chain[i]);
    const dc_edge *e = dc_edge_at(en->edge);
    char from = e->caller == DC_ROOT ? '^' : (char)((dc_node_at(e->caller)->pc - 0x100000) / 0x1000);
    char to = (char)((dc_node_at(e->callee)->pc - 0x100000) / 0x1000);
    k += (size_t)snprintf(out + k, max - k, "<%llu,%c,%c>", (unsigned long long)en->id, from, to);
    if (en->count > 1) k += (size_t)snprintf(out + k, max - k, "x%u", en->count);
  }
}

/* ------------------------------------------------------------ tests */

/* The worked example of DESIGN.md (the DACCE slides): graph A->B, A->C,
 * B->D, C->D, D->E, E->F, E->I, with C->E and I->C unencoded and maxID = 4.
 * The slide's codes leave gaps (D's range [1,2) and I's [0,2) are unused),
 * which our decoder handles: it only needs the incoming ranges
 * [code, code + numCC(caller)) of each node to be disjoint. */
static void test_worked_example(void) {
  sim s;
  sim_init(&s);
  /* discover the graph once */
  path(&s, "ABDEF");
  unwind_all(&s);
  path(&s, "ABDEI");
  unwind_all(&s);
  path(&s, "ACDEICEI");
  unwind_all(&s);
  static const hand_code codes[] = {{'^', 'A', 0}, {'A', 'B', 0}, {'A', 'C', 0}, {'B', 'D', 0},
                                    {'C', 'D', 2}, {'D', 'E', 0}, {'E', 'F', 0}, {'E', 'I', 2}};
  static const hand_numcc ns[] = {{'A', 1}, {'B', 1}, {'C', 1}, {'D', 3},
                                  {'E', 3}, {'F', 3}, {'I', 5}};
  const dc_dict *d = hand_dict(codes, 8, ns, 7);
  CHECK(d->max_id == 4, "maxID %llu", (unsigned long long)d->max_id);

  path(&s, "ABDEI");
  dacce_ctx c;
  dacce_capture(&c);
  CHECK(c.id == 2 && c.cc == 0, "ABDEI: id %llu cc %u", (unsigned long long)c.id, c.cc);
  path(&s, "CEI");
  dacce_capture(&c);
  char ccs[512];
  cc_string(ccs, sizeof ccs);
  CHECK(c.id == 7, "ABDEICEI: id %llu, expected 7", (unsigned long long)c.id);
  CHECK(!strcmp(ccs, "<2,I,C><5,C,E>"), "ccStack %s", ccs);
  CHECK_DECODES(&s);
  unwind_all(&s);

  /* the paper's ACEI and AD contexts under the same dictionary */
  path(&s, "ACEI");
  dacce_capture(&c);
  cc_string(ccs, sizeof ccs);
  CHECK(c.id == 7 && !strcmp(ccs, "<0,C,E>"), "ACEI: id %llu cc %s", (unsigned long long)c.id, ccs);
  CHECK_DECODES(&s);
  unwind_all(&s);
  path(&s, "AD"); /* A->D is a new edge: unencoded */
  dacce_capture(&c);
  cc_string(ccs, sizeof ccs);
  CHECK(c.id == 5 && !strcmp(ccs, "<0,A,D>"), "AD: id %llu cc %s", (unsigned long long)c.id, ccs);
  CHECK_DECODES(&s);
  /* ...continued to the paper's ADACDAD: D->A is new too; A->C (0) and C->D
   * (2) are encoded, so the two D->A pushes carry different ids (5 and 7)
   * and none merge */
  path(&s, "ACDAD");
  dacce_capture(&c);
  cc_string(ccs, sizeof ccs);
  CHECK(c.id == 5 && !strcmp(ccs, "<0,A,D><5,D,A><7,D,A><5,A,D>"), "ADACDAD: id %llu cc %s",
        (unsigned long long)c.id, ccs);
  CHECK_DECODES(&s);
  unwind_all(&s);
}

/* The paper's compression test compares only id and call site.  Here A has
 * one indirect call site s that calls B, and later (after B returned into A
 * through an encoded code-0 edge) C: both pushes carry id maxID+1 and call
 * site s, so the paper merges them and the second callee (C) is lost.  Our
 * entries keep the whole edge, so B and C stay apart. */
static void call_via(sim *s, char f, uintptr_t cs) {
  dc_func_entry(cs, fpc(f), sim_sp(s, s->depth));
  s->stack[s->depth++] = f;
}
static void run_paper_case(int mode, char *got, size_t max) {
  int saved = dc_opt.cc_compress;
  dc_opt.cc_compress = mode;
  sim s;
  sim_init(&s);
  uintptr_t site = fpc('A') + 0x400; /* one indirect call site in A */
  path(&s, "XA");
  call_via(&s, 'B', site);
  call(&s, 'A');
  call_via(&s, 'C', site);
  decode_current(got, max);
  unwind_all(&s);
  dc_opt.cc_compress = saved;
}

static void test_paper_compression(void) {
  sim s;
  sim_init(&s);
  path(&s, "XAB");
  call(&s, 'A');
  unwind_all(&s);
  /* encode ^->X and B->A with code 0; X->A and both calls from site s are
   * new (unencoded) edges */
  static const hand_code codes[] = {{'^', 'X', 0}, {'B', 'A', 0}};
  static const hand_numcc ns[] = {{'X', 1}, {'A', 1}, {'B', 1}};
  hand_dict(codes, 2, ns, 3);
  char got[256];
  run_paper_case(1, got, sizeof got);
  CHECK(!strcmp(got, "XABAC"), "exact compression decodes %s", got);
  run_paper_case(2, got, sizeof got);
  CHECK(strcmp(got, "XABAC") != 0, "the paper's compression should lose C, got %s", got);
  run_paper_case(0, got, sizeof got);
  CHECK(!strcmp(got, "XABAC"), "no compression decodes %s", got);
}

/* Deep direct recursion is compressed into one entry with a count, and the
 * count goes back down on return. */
static void test_recursion_compression(void) {
  dacce_reencode();
  sim s;
  sim_init(&s);
  path(&s, "MR");
  for (int i = 0; i < 1000; i++) call(&s, 'R');
  dacce_reencode(); /* R->R is now a back edge */
  CHECK_DECODES(&s);
  /* the first R->R push ends the ROOT segment (id 0), the other 999 end
   * identical segments that start at R (id maxID+1): two entries */
  char ccs[512], want[128];
  unsigned long long base = atomic_load(&dc_cur_dict)->max_id + 1;
  cc_string(ccs, sizeof ccs);
  snprintf(want, sizeof want, "<0,R,R><%llu,R,R>x999", base);
  CHECK(!strcmp(ccs, want), "ccStack %s, expected %s", ccs, want);
  for (int i = 0; i < 400; i++) ret(&s);
  cc_string(ccs, sizeof ccs);
  snprintf(want, sizeof want, "<0,R,R><%llu,R,R>x599", base);
  CHECK(!strcmp(ccs, want), "after 400 returns: ccStack %s, expected %s", ccs, want);
  CHECK_DECODES(&s);
  unwind_all(&s);
}

/* Calls over unencoded edges push lazily (DC_CC_LAZY): the pushes are made
 * when a context is captured.  A captured context is never lazy and stays
 * valid after its frames are popped and reused by other calls; the
 * statistics count every call and push, made or not, across the samples
 * that fold the thread's tick into them. */
static void test_lazy_push(void) {
  sim s;
  sim_init(&s);
  dc_thread *t = dc_cur();
  path(&s, "KLLN"); /* discover K->L, L->L, L->N */
  unwind_all(&s);
  dacce_reencode(); /* L->L is a back edge: unencoded */
  dacce_stats st0, st1;
  dacce_get_stats(&st0);
  path(&s, "KL");
  for (int i = 0; i < 20; i++) call(&s, 'L');
  CHECK(dc_frame_raw(t->top - 1) && t->cc == 0, "the calls are not encoded yet: cc %#x", t->cc);
  dc_materialize(t);
  CHECK(!dc_frame_raw(t->top - 1) && dc_depth(t) == 22, "the calls were encoded (depth %u)",
        dc_depth(t));
  CHECK(t->cc & DC_CC_LAZY, "after 20 recursive calls the ccStack is still lazy: %#x", t->cc);
  char want1[64];
  truth(&s, want1);
  dacce_ctx c1;
  dacce_capture(&c1);
  CHECK(!(c1.cc & DC_CC_LAZY), "a captured context is not lazy: %#x", c1.cc);
  CHECK(t->cc == c1.cc, "the capture resolved the thread's ccStack: %#x vs %#x", t->cc, c1.cc);
  CHECK_DECODES(&s);
  /* pop 10 frames and reuse their slots with other calls, some unencoded */
  for (int i = 0; i < 10; i++) ret(&s);
  path(&s, "LLN");
  CHECK_DECODES(&s);
  dacce_frame fr[64];
  int n = dc_decode_thread(&c1, fr, 64), ok = n == (int)strlen(want1);
  for (int i = 0; ok && i < n; i++) ok = fr[i].function == fpc(want1[n - 1 - i]);
  CHECK(ok, "the first capture still decodes after its frames were reused (%d frames)", n);
  unwind_all(&s);
  /* enough calls to pass several samples (every 256th call) */
  int calls = 2 + 20 + 3, pushes = 20 + 2;
  for (int i = 0; i < 1000; i++) {
    path(&s, "KLL");
    unwind_all(&s);
  }
  calls += 3000;
  pushes += 1000;
  dacce_get_stats(&st1);
  CHECK(st1.calls - st0.calls == (uint64_t)calls, "calls counted %llu, made %d",
        (unsigned long long)(st1.calls - st0.calls), calls);
  CHECK(st1.cc_pushes - st0.cc_pushes == (uint64_t)pushes, "pushes counted %llu, made %d",
        (unsigned long long)(st1.cc_pushes - st0.cc_pushes), pushes);
  /* the sampled ccStack depth counts the lazy pushes too (it does not make
   * them): from just after a sample, K, L, then L->L calls; the 256th call
   * encoded samples, after the 254th push */
  do {
    call(&s, 'K');
    dc_materialize(t);
    ret(&s);
  } while (t->tick & (DC_TICK_PUSH - 1));
  uint64_t sum0 = t->cc_depth_sum, n0 = t->cc_depth_samples;
  uint32_t nodes0 = atomic_load(&dc_ccnodes.n);
  path(&s, "KL");
  for (int i = 0; i < 300; i++) call(&s, 'L');
  CHECK(t->cc_depth_samples == n0, "a sample before the calls were encoded");
  dc_materialize(t);
  CHECK(t->cc_depth_samples - n0 == 1 && t->cc_depth_sum - sum0 == 254,
        "sampled ccStack depth: %llu in %llu samples, expected 254 in 1",
        (unsigned long long)(t->cc_depth_sum - sum0), (unsigned long long)(t->cc_depth_samples - n0));
  CHECK(atomic_load(&dc_ccnodes.n) == nodes0, "sampling made %u ccStack nodes",
        atomic_load(&dc_ccnodes.n) - nodes0);
  CHECK_DECODES(&s);
  unwind_all(&s);
}

/* Snapshots taken under an older dictionary decode with that dictionary. */
static void test_timestamps(void) {
  sim s;
  sim_init(&s);
  path(&s, "PQRST");
  dacce_ctx old;
  dacce_capture(&old);
  dacce_reencode();
  dacce_ctx now;
  dacce_capture(&now);
  CHECK(old.ts != now.ts, "timestamps %u %u", old.ts, now.ts);
  call(&s, 'U');
  dacce_reencode();
  dacce_frame f1[16], f2[16];
  int n1 = dc_decode_thread(&old, f1, 16), n2 = dc_decode_thread(&now, f2, 16);
  CHECK(n1 == 5 && n2 == 5, "old decodes to %d frames, new to %d", n1, n2);
  int same = n1 == n2;
  for (int i = 0; same && i < n1; i++) same = f1[i].function == f2[i].function && f1[i].callsite == f2[i].callsite;
  CHECK(same, "old and new snapshots of the same context differ");
  CHECK(f1[0].function == fpc('T') && f1[4].function == fpc('P'), "frames %lx..%lx",
        (unsigned long)f1[0].function, (unsigned long)f1[4].function);
  CHECK_DECODES(&s);
  unwind_all(&s);
}

/* A migrate flag that arrives after the thread already moved to the newest
 * dictionary (dc_capture migrates too, and the re-encoder flags threads
 * after publishing) is cleared by the next slow event.  It used to stay,
 * sending every later call and return of the thread to the slow path. */
static void test_late_migrate_flag(void) {
  sim s;
  sim_init(&s);
  dc_thread *t = dc_cur();
  path(&s, "VW");
  dacce_reencode();
  dacce_ctx c;
  dacce_capture(&c); /* migrates: the thread is on the newest dictionary */
  CHECK(t->dict == atomic_load(&dc_cur_dict), "captured on the newest dictionary");
  atomic_fetch_or(&t->pending, DC_PENDING_MIGRATE); /* the flag, late */
  call(&s, 'X');
  ret(&s);
  CHECK(!(atomic_load(&t->pending) & DC_PENDING_MIGRATE), "late migrate flag cleared: %#x",
        (unsigned)atomic_load(&t->pending));
  CHECK_DECODES(&s);
  unwind_all(&s);
}

/* A chain of diamonds doubles the number of contexts per level.  With a
 * small limit, the edges that would pass it stay unencoded (never wrap), and
 * every context still decodes. */
static void diamonds(sim *s, int levels, unsigned bits) {
  /* level i: X_i -> {L_i, R_i} -> X_{i+1}; letters from a private range */
  for (int i = 0; i < levels; i++) {
    char x = (char)(0x80 + 3 * i), l = (char)(x + 1), r = (char)(x + 2);
    call(s, x);
    call(s, (bits >> i) & 1 ? r : l);
  }
  call(s, (char)(0x80 + 3 * levels));
}
static void test_overflow(int max_bits, int levels) {
  int saved = dc_opt.max_id_bits;
  dc_opt.max_id_bits = max_bits;
  sim s;
  sim_init(&s);
  call(&s, 'Z');
  /* discover all edges: every left and every right branch (captured, so
   * that the calls are encoded) */
  diamonds(&s, levels, 0);
  dc_materialize(dc_cur());
  while (s.depth > 1) ret(&s);
  diamonds(&s, levels, ~0u);
  dc_materialize(dc_cur());
  while (s.depth > 1) ret(&s);
  dacce_reencode();
  const dc_dict *d = atomic_load(&dc_cur_dict);
  CHECK(d->max_id < ((uint64_t)1 << max_bits), "maxID %llu exceeds 2^%d",
        (unsigned long long)d->max_id, max_bits);
  CHECK(d->n_overflow > 0, "expected overflow edges with %d levels and %d bits", levels, max_bits);
  int ok = 1;
  for (unsigned pattern = 0; pattern < 64; pattern++) {
    diamonds(&s, levels, pattern * 2654435761u);
    char got[4200], want[4200];
    decode_current(got, sizeof got);
    truth(&s, want);
    if (strcmp(got, want)) ok = 0;
    while (s.depth > 1) ret(&s);
  }
  CHECK(ok, "a diamond context did not decode under overflow");
  unwind_all(&s);
  dc_opt.max_id_bits = saved;
}

/* Random contexts from a random graph, with re-encodings in between. */
static void test_random_walks(void) {
  sim s;
  sim_init(&s);
  unsigned seed = 12345;
  int ok = 1, checks = 0;
  for (int round = 0; round < 6; round++) {
    for (int step = 0; step < 20000; step++) {
      seed = seed * 1103515245u + 12345u;
      unsigned r = (seed >> 8) % 100;
      if (s.depth > 0 && (r < 45 || s.depth > 300)) {
        ret(&s);
      } else {
        /* 26 functions: the graph gets cycles of every length */
        char f = (char)('a' + (char)(((seed >> 16) % 26)));
        call(&s, f);
      }
      if (step % 7 == 0) {
        char got[4200], want[4200];
        decode_current(got, sizeof got);
        truth(&s, want);
        checks++;
        if (strcmp(got, want)) {
          if (ok) printf("random walk: decoded %s expected %s\n", got, want);
          ok = 0;
        }
      }
    }
    dacce_reencode();
  }
  CHECK(ok, "random walks: a context did not decode (%d checks)", checks);
  unwind_all(&s);
}

/* Inconsistent input never loops or crashes: it decodes or is an error. */
static void test_garbage(void) {
  unsigned seed = 99;
  int bad = 0;
  dacce_frame fr[64];
  for (int i = 0; i < 200000; i++) {
    seed = seed * 1103515245u + 12345u;
    dacce_ctx c = {.id = ((uint64_t)seed << 20) % 97, .node = seed % (atomic_load(&dc_nodes.n) + 3),
                   .cc = (seed >> 7) % (atomic_load(&dc_ccnodes.n) + 3),
                   .ts = (seed >> 3) % (atomic_load(&dc_n_dicts) + 2), .thread = 0};
    int n = dacce_decode(&c, fr, 64, 1);
    if (n < -2 || n > 64) bad++;
  }
  CHECK(bad == 0, "%d garbage contexts gave out-of-range results", bad);
}

/* ccStack nodes are found from their parent (its first kids) or through
 * the index (the rest): threads pushing the same 64 entries onto one node
 * at once, each in its own order, must all get one node per entry, made
 * once, with the entry's fields, whichever way it was found; a node of
 * those kids has its own (a second level). */
#define KIDS_N 64
#define KIDS_THREADS 4
static uint32_t kids_parent, kids_got[KIDS_THREADS][2][KIDS_N];
static void *kids_pusher(void *arg) {
  const int k = (int)(intptr_t)arg;
  for (int round = 0; round < 3; round++)
    for (int j = 0; j < KIDS_N; j++) {
      const int e = (j * (2 * k + 1) + round * 7) % KIDS_N; /* an order of its own */
      const uint32_t c = dc_cc_push(kids_parent, 900000 + (uint32_t)e, 77 + (uint64_t)e);
      const uint32_t g = dc_cc_push(c, 950000, 5); /* the kid's own first kid */
      if (round && (kids_got[k][0][e] != c || kids_got[k][1][e] != g)) kids_got[k][0][e] = 0;
      else if (!round) kids_got[k][0][e] = c, kids_got[k][1][e] = g;
    }
  return 0;
}
static void test_cc_kids(void) {
  kids_parent = dc_cc_push(0, 899999, 3);
  const uint32_t n0 = atomic_load(&dc_ccnodes.n);
  pthread_t th[KIDS_THREADS];
  for (int k = 0; k < KIDS_THREADS; k++)
    pthread_create(&th[k], 0, kids_pusher, (void *)(intptr_t)k);
  for (int k = 0; k < KIDS_THREADS; k++) pthread_join(th[k], 0);
  CHECK(atomic_load(&dc_ccnodes.n) - n0 == 2 * KIDS_N, "%u nodes made for %d entries",
        atomic_load(&dc_ccnodes.n) - n0, 2 * KIDS_N);
  int agree = 1, fields = 1, distinct = 1;
  for (int e = 0; e < KIDS_N; e++) {
    const uint32_t c = kids_got[0][0][e], g = kids_got[0][1][e];
    for (int k = 1; k < KIDS_THREADS; k++)
      agree &= kids_got[k][0][e] == c && kids_got[k][1][e] == g;
    const dc_ccnode *n = dc_cc_at(c), *m = dc_cc_at(g);
    fields &= c >= n0 && n->parent == kids_parent && n->edge == 900000u + (uint32_t)e &&
              n->id == 77u + (uint64_t)e && n->count == 1 && m->parent == c &&
              m->edge == 950000 && m->id == 5 && m->count == 1 &&
              n->depth == dc_cc_at(kids_parent)->depth + 1 && m->depth == n->depth + 1;
    for (int f = 0; f < e; f++) distinct &= kids_got[0][0][f] != c;
    /* found again, one thread: the same node */
    agree &= dc_cc_push(kids_parent, 900000 + (uint32_t)e, 77 + (uint64_t)e) == c;
  }
  CHECK(agree, "the threads (or their rounds) got different nodes for one entry");
  CHECK(fields, "a node found has another entry's fields");
  CHECK(distinct, "two entries got one node");
}

int main(void) {
  test_worked_example();
  test_paper_compression();
  test_recursion_compression();
  test_lazy_push();
  test_timestamps();
  test_late_migrate_flag();
  test_overflow(4, 6);   /* 2^6 paths, limit 2^4 */
  test_overflow(63, 70); /* 2^70 paths, the real 2^63 limit */
  test_random_walks();
  test_garbage();
  test_cc_kids();
  printf("%d passed, %d failed\n", passed, failed);
  return failed != 0;
}
