// vcalls.cc: pointer-heavy dispatch in C++: a tree-walking interpreter whose
// every node is evaluated through a virtual call.
//
// The program (built as an AST of Expr/Stmt subclasses: constants, variables,
// arithmetic, comparisons, assignment, if, while, blocks) computes, for every
// n in its range, the number of Collatz steps of n plus its digit sum, the
// same function as interp.c.  Two pthreads each interpret their own copy of
// the environment over half of [1, size]; main adds the results and compares
// them with the computation written directly in C++.
//
// usage: vcalls [size]     exit 1 on a wrong result
#include <pthread.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

namespace {

struct Env {
  int64_t v[8] = {};
  long evals = 0;
};

struct Expr {
  virtual ~Expr() = default;
  virtual int64_t eval(Env &e) const = 0;
};
using ExprP = std::unique_ptr<Expr>;

struct Const final : Expr {
  int64_t k;
  explicit Const(int64_t k) : k(k) {}
  int64_t eval(Env &e) const override { e.evals++; return k; }
};
struct Var final : Expr {
  int slot;
  explicit Var(int s) : slot(s) {}
  int64_t eval(Env &e) const override { e.evals++; return e.v[slot]; }
};
struct Binary : Expr {
  ExprP l, r;
  Binary(ExprP a, ExprP b) : l(std::move(a)), r(std::move(b)) {}
};
#define BINOP(Name, expr)                                                  \
  struct Name final : Binary {                                             \
    using Binary::Binary;                                                  \
    int64_t eval(Env &e) const override {                                  \
      e.evals++;                                                           \
      int64_t a = l->eval(e), b = r->eval(e);                              \
      return expr;                                                         \
    }                                                                      \
  };
BINOP(Add, a + b)
BINOP(Sub, a - b)
BINOP(Mul, a * b)
BINOP(Div, a / b)
BINOP(Mod, a % b)
BINOP(Shr, a >> b)
BINOP(And, a & b)
BINOP(Lt, a < b)
BINOP(Ne, a != b)
#undef BINOP

struct Stmt {
  virtual ~Stmt() = default;
  virtual void exec(Env &e) const = 0;
};
using StmtP = std::unique_ptr<Stmt>;

struct Assign final : Stmt {
  int slot;
  ExprP x;
  Assign(int s, ExprP x) : slot(s), x(std::move(x)) {}
  void exec(Env &e) const override { e.v[slot] = x->eval(e); }
};
struct Block final : Stmt {
  std::vector<StmtP> body;
  void exec(Env &e) const override {
    for (const auto &s : body) s->exec(e);
  }
};
struct If final : Stmt {
  ExprP c;
  StmtP t, f;
  If(ExprP c, StmtP t, StmtP f) : c(std::move(c)), t(std::move(t)), f(std::move(f)) {}
  void exec(Env &e) const override {
    if (c->eval(e)) t->exec(e);
    else f->exec(e);
  }
};
struct While final : Stmt {
  ExprP c;
  StmtP body;
  While(ExprP c, StmtP b) : c(std::move(c)), body(std::move(b)) {}
  void exec(Env &e) const override {
    while (c->eval(e)) body->exec(e);
  }
};

enum { N, END, ACC, X };
ExprP k(int64_t v) { return std::make_unique<Const>(v); }
ExprP var(int s) { return std::make_unique<Var>(s); }
template <class T> ExprP bin(ExprP a, ExprP b) { return std::make_unique<T>(std::move(a), std::move(b)); }
StmtP set(int s, ExprP x) { return std::make_unique<Assign>(s, std::move(x)); }
StmtP block(std::vector<StmtP> v) {
  auto b = std::make_unique<Block>();
  b->body = std::move(v);
  return b;
}
template <class... S> StmtP seq(S... s) {
  std::vector<StmtP> v;
  (v.push_back(std::move(s)), ...);
  return block(std::move(v));
}

// while (n < end) {
//   x = n; while (x != 1) { if (x & 1) x = 3*x + 1; else x = x >> 1; acc = acc + 1; }
//   x = n; while (x != 0) { acc = acc + x % 10; x = x / 10; }
//   n = n + 1;
// }
StmtP program() {
  auto collatz = std::make_unique<While>(
      bin<Ne>(var(X), k(1)),
      seq(std::make_unique<If>(bin<And>(var(X), k(1)),
                               set(X, bin<Add>(bin<Mul>(k(3), var(X)), k(1))),
                               set(X, bin<Shr>(var(X), k(1)))),
          set(ACC, bin<Add>(var(ACC), k(1)))));
  auto digits = std::make_unique<While>(
      bin<Ne>(var(X), k(0)),
      seq(set(ACC, bin<Add>(var(ACC), bin<Mod>(var(X), k(10)))), set(X, bin<Div>(var(X), k(10)))));
  return std::make_unique<While>(
      bin<Lt>(var(N), var(END)),
      seq(set(X, var(N)), std::move(collatz), set(X, var(N)), std::move(digits),
          set(N, bin<Add>(var(N), k(1)))));
}

int64_t direct(int64_t lo, int64_t hi) {
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

constexpr int kThreads = 2;
const Stmt *prog;
long size;
int64_t result[kThreads];
long evals[kThreads];

void *worker(void *arg) {
  long t = reinterpret_cast<long>(arg);
  Env e;
  e.v[N] = 1 + size * t / kThreads;
  e.v[END] = 1 + size * (t + 1) / kThreads;
  prog->exec(e);
  result[t] = e.v[ACC];
  evals[t] = e.evals;
  return nullptr;
}

}  // namespace

int main(int argc, char **argv) {
  size = argc > 1 ? std::atol(argv[1]) : 500000;
  if (size < 1) return 2;
  StmtP p = program();
  prog = p.get();
  pthread_t th[kThreads];
  for (long t = 0; t < kThreads; t++) pthread_create(&th[t], nullptr, worker, reinterpret_cast<void *>(t));
  for (auto &t : th) pthread_join(t, nullptr);
  int64_t total = 0;
  long n = 0;
  for (int t = 0; t < kThreads; t++) {
    total += result[t];
    n += evals[t];
  }
  int64_t want = direct(1, 1 + size);
  std::printf("vcalls size %ld result %lld evaluations %ld\n", size, static_cast<long long>(total), n);
  if (total != want) {
    std::fprintf(stderr, "vcalls: result %lld, expected %lld\n", static_cast<long long>(total),
                 static_cast<long long>(want));
    return 1;
  }
  return 0;
}
