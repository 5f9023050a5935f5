/* interp.c: pointer-heavy dispatch: a bytecode interpreter whose every
 * instruction is executed through a function pointer.
 *
 * A small register machine (one handler function per opcode, each returning
 * the next instruction) runs a program that, for every n in its range, counts
 * the steps of the Collatz sequence of n and adds a digit-sum of n.  Two
 * threads each run their own machine on half of [1, size]; main adds their
 * results and compares them with the same computation written directly in C.
 *
 * usage: interp [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 2
#define NREGS 8

struct insn;
typedef struct vm {
  int64_t r[NREGS];
  long steps;
} vm;
typedef const struct insn *(*handler)(vm *, const struct insn *);
typedef struct insn {
  handler fn;
  int a, b, c;
  int64_t imm;
  const struct insn *target;
} insn;

#define H(name) __attribute__((noinline)) static const insn *name(vm *m, const insn *i)
H(op_li) { m->r[i->a] = i->imm; return i + 1; }
H(op_mov) { m->r[i->a] = m->r[i->b]; return i + 1; }
H(op_add) { m->r[i->a] = m->r[i->b] + m->r[i->c]; return i + 1; }
H(op_addi) { m->r[i->a] = m->r[i->b] + i->imm; return i + 1; }
H(op_mul) { m->r[i->a] = m->r[i->b] * m->r[i->c]; return i + 1; }
H(op_divi) { m->r[i->a] = m->r[i->b] / i->imm; return i + 1; }
H(op_modi) { m->r[i->a] = m->r[i->b] % i->imm; return i + 1; }
H(op_shri) { m->r[i->a] = m->r[i->b] >> i->imm; return i + 1; }
H(op_andi) { m->r[i->a] = m->r[i->b] & i->imm; return i + 1; }
H(op_jz) { return m->r[i->a] == 0 ? i->target : i + 1; }
H(op_jnz) { return m->r[i->a] != 0 ? i->target : i + 1; }
H(op_jlt) { return m->r[i->a] < m->r[i->b] ? i->target : i + 1; }
H(op_jmp) { (void)m; return i->target; }
H(op_halt) { (void)m; (void)i; return NULL; }

__attribute__((noinline)) static void run(vm *m, const insn *pc) {
  while (pc) {
    m->steps++;
    pc = pc->fn(m, pc);
  }
}

/* registers */
enum { N, END, ACC, X, T, ONE, D };
/* labels (instruction indices) */
enum { L_LOOP = 1, L_BODY = 3, L_COLL = 4, L_ODD = 11, L_DIGITS = 16, L_DIG = 17 };
static insn prog[23];
static void assemble(void) {
  static const struct {
    handler fn;
    int a, b, c;
    int64_t imm;
    int target;
  } src[] = {
      {op_li, ONE, 0, 0, 1, -1},         /*  0 one = 1 */
      {op_jlt, N, END, 0, 0, L_BODY},    /*  1 loop: if n < end goto body */
      {op_halt, 0, 0, 0, 0, -1},         /*  2 */
      {op_mov, X, N, 0, 0, -1},          /*  3 body: x = n */
      {op_addi, T, X, 0, -1, -1},        /*  4 coll: t = x - 1 */
      {op_jz, T, 0, 0, 0, L_DIGITS},     /*  5 if x == 1 goto digits */
      {op_andi, T, X, 0, 1, -1},         /*  6 t = x & 1 */
      {op_jnz, T, 0, 0, 0, L_ODD},       /*  7 if odd goto odd */
      {op_shri, X, X, 0, 1, -1},         /*  8 x >>= 1 */
      {op_addi, ACC, ACC, 0, 1, -1},     /*  9 acc++ */
      {op_jmp, 0, 0, 0, 0, L_COLL},      /* 10 */
      {op_li, T, 0, 0, 3, -1},           /* 11 odd: t = 3 */
      {op_mul, X, X, T, 0, -1},          /* 12 x *= 3 */
      {op_addi, X, X, 0, 1, -1},         /* 13 x += 1 */
      {op_addi, ACC, ACC, 0, 1, -1},     /* 14 acc++ */
      {op_jmp, 0, 0, 0, 0, L_COLL},      /* 15 */
      {op_mov, X, N, 0, 0, -1},          /* 16 digits: x = n */
      {op_modi, D, X, 0, 10, -1},        /* 17 dig: d = x % 10 */
      {op_add, ACC, ACC, D, 0, -1},      /* 18 acc += d */
      {op_divi, X, X, 0, 10, -1},        /* 19 x /= 10 */
      {op_jnz, X, 0, 0, 0, L_DIG},       /* 20 */
      {op_add, N, N, ONE, 0, -1},        /* 21 n++ */
      {op_jmp, 0, 0, 0, 0, L_LOOP},      /* 22 */
  };
  for (unsigned k = 0; k < sizeof src / sizeof *src; k++)
    prog[k] = (insn){src[k].fn, src[k].a, src[k].b, src[k].c, src[k].imm,
                     src[k].target >= 0 ? &prog[src[k].target] : NULL};
}

static int64_t direct(int64_t lo, int64_t hi) {
  int64_t acc = 0;
  for (int64_t n = lo; n < hi; n++) {
    for (int64_t x = n; x != 1;) {
      x = (x & 1) ? 3 * x + 1 : x >> 1;
      acc++;
    }
    for (int64_t x = n; x; x /= 10) acc += x % 10;
  }
  return acc;
}

static long size;
static int64_t result[NTHREADS];
static long steps[NTHREADS];

static void *worker(void *arg) {
  long t = (long)arg;
  vm m = {{0}, 0};
  m.r[N] = 1 + size * t / NTHREADS;
  m.r[END] = 1 + size * (t + 1) / NTHREADS;
  run(&m, prog);
  result[t] = m.r[ACC];
  steps[t] = m.steps;
  return NULL;
}

int main(int argc, char **argv) {
  size = argc > 1 ? atol(argv[1]) : 600000;
  if (size < 1) return 2;
  assemble();
  pthread_t th[NTHREADS];
  for (long t = 0; t < NTHREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  int64_t total = 0;
  long nsteps = 0;
  for (int t = 0; t < NTHREADS; t++) {
    total += result[t];
    nsteps += steps[t];
  }
  int64_t want = direct(1, 1 + size);
  printf("interp size %ld result %lld instructions %ld\n", size, (long long)total, nsteps);
  if (total != want) {
    fprintf(stderr, "interp: result %lld, expected %lld\n", (long long)total, (long long)want);
    return 1;
  }
  return 0;
}
