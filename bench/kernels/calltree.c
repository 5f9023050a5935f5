/* calltree.c: call-heavy recursive work.
 *
 * A random expression tree (a few thousand nodes, ten operators) is evaluated
 * recursively for every x in [0, size): eval() dispatches on the operator to
 * one small function per operator, each of which calls eval() again on its
 * operands, so nearly all the work is calls and returns.  Two threads split
 * the x range; each writes its own slice of the result array.  The main
 * thread then checks every 7th result with an iterative evaluator (an
 * explicit stack, no recursion) and prints a checksum.
 *
 * usage: calltree [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))
#define NTHREADS 2

enum op { CONST, VAR, ADD, SUB, MUL, XOR, MIN, MAX, NEG, ROT, SEL, NOPS };

typedef struct node {
  int op;
  uint32_t val;
  struct node *a, *b, *c;
} node;

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (uint32_t)(rng >> 11);
}

static int n_nodes;
static node *build(int depth) {
  node *n = calloc(1, sizeof *n);
  if (!n) exit(2);
  n_nodes++;
  if (depth == 0 || (depth < 10 && rnd() % 6 == 0)) {
    n->op = rnd() % 2 ? CONST : VAR;
    n->val = rnd() % 1000;
    return n;
  }
  n->op = ADD + (int)(rnd() % (NOPS - ADD));
  n->a = build(depth - 1);
  if (n->op != NEG && n->op != ROT) n->b = build(depth - 1);
  if (n->op == SEL) n->c = build(depth - 1);
  if (n->op == ROT) n->val = rnd() % 31 + 1;
  return n;
}

static uint32_t eval(const node *n, uint32_t x);
NOINLINE static uint32_t ev_const(const node *n, uint32_t x) { (void)x; return n->val; }
NOINLINE static uint32_t ev_var(const node *n, uint32_t x) { return x + n->val; }
NOINLINE static uint32_t ev_add(const node *n, uint32_t x) { return eval(n->a, x) + eval(n->b, x); }
NOINLINE static uint32_t ev_sub(const node *n, uint32_t x) { return eval(n->a, x) - eval(n->b, x); }
NOINLINE static uint32_t ev_mul(const node *n, uint32_t x) { return eval(n->a, x) * (eval(n->b, x) | 1); }
NOINLINE static uint32_t ev_xor(const node *n, uint32_t x) { return eval(n->a, x) ^ eval(n->b, x); }
NOINLINE static uint32_t ev_min(const node *n, uint32_t x) {
  uint32_t l = eval(n->a, x), r = eval(n->b, x);
  return l < r ? l : r;
}
NOINLINE static uint32_t ev_max(const node *n, uint32_t x) {
  uint32_t l = eval(n->a, x), r = eval(n->b, x);
  return l > r ? l : r;
}
NOINLINE static uint32_t ev_neg(const node *n, uint32_t x) { return ~eval(n->a, x); }
NOINLINE static uint32_t ev_rot(const node *n, uint32_t x) {
  uint32_t v = eval(n->a, x);
  return (v << n->val) | (v >> (32 - n->val));
}
NOINLINE static uint32_t ev_sel(const node *n, uint32_t x) {
  return (eval(n->a, x) & 1) ? eval(n->b, x) : eval(n->c, x);
}

NOINLINE static uint32_t eval(const node *n, uint32_t x) {
  switch (n->op) {
  case CONST: return ev_const(n, x);
  case VAR: return ev_var(n, x);
  case ADD: return ev_add(n, x);
  case SUB: return ev_sub(n, x);
  case MUL: return ev_mul(n, x);
  case XOR: return ev_xor(n, x);
  case MIN: return ev_min(n, x);
  case MAX: return ev_max(n, x);
  case NEG: return ev_neg(n, x);
  case ROT: return ev_rot(n, x);
  default: return ev_sel(n, x);
  }
}

/* the same semantics without recursion: an explicit stack of (node, state) */
static uint32_t eval_iter(const node *root, uint32_t x) {
  enum { MAXD = 64 };
  const node *ns[MAXD];
  int st[MAXD];
  uint32_t vals[MAXD * 3], res = 0;
  int vsp = 0, sp = 0;
  ns[0] = root;
  st[0] = 0;
  sp = 1;
  while (sp) {
    const node *n = ns[sp - 1];
    int s = st[sp - 1];
    if (n->op == CONST || n->op == VAR) {
      res = n->op == CONST ? n->val : x + n->val;
      sp--;
    } else if (n->op == SEL) {
      if (s == 0) { st[sp - 1] = 1; ns[sp] = n->a; st[sp++] = 0; continue; }
      if (s == 1) { st[sp - 1] = 2; ns[sp] = (res & 1) ? n->b : n->c; st[sp++] = 0; continue; }
      sp--; /* res is the chosen branch's value */
    } else if (n->op == NEG || n->op == ROT) {
      if (s == 0) { st[sp - 1] = 1; ns[sp] = n->a; st[sp++] = 0; continue; }
      res = n->op == NEG ? ~res : (res << n->val) | (res >> (32 - n->val));
      sp--;
    } else {
      if (s == 0) { st[sp - 1] = 1; ns[sp] = n->a; st[sp++] = 0; continue; }
      if (s == 1) { vals[vsp++] = res; st[sp - 1] = 2; ns[sp] = n->b; st[sp++] = 0; continue; }
      uint32_t l = vals[--vsp], r = res;
      switch (n->op) {
      case ADD: res = l + r; break;
      case SUB: res = l - r; break;
      case MUL: res = l * (r | 1); break;
      case XOR: res = l ^ r; break;
      case MIN: res = l < r ? l : r; break;
      default: res = l > r ? l : r; break;
      }
      sp--;
    }
  }
  return res;
}

static const node *tree;
static uint32_t *out;
static long size;

static void *worker(void *arg) {
  long t = (long)arg;
  long lo = size * t / NTHREADS, hi = size * (t + 1) / NTHREADS;
  for (long x = lo; x < hi; x++) out[x] = eval(tree, (uint32_t)x);
  return NULL;
}

int main(int argc, char **argv) {
  size = argc > 1 ? atol(argv[1]) : 400000;
  if (size < 1) return 2;
  tree = build(13);
  out = malloc(sizeof *out * (size_t)size);
  if (!out) return 2;
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  uint64_t sum = 0;
  int bad = 0;
  for (long x = 0; x < size; x++) {
    sum = sum * 31 + out[x];
    if (x % 7 == 0 && out[x] != eval_iter(tree, (uint32_t)x)) bad++;
  }
  printf("calltree size %ld nodes %d checksum %016llx\n", size, n_nodes, (unsigned long long)sum);
  free(out);
  if (bad) {
    fprintf(stderr, "calltree: %d wrong results\n", bad);
    return 1;
  }
  return 0;
}
