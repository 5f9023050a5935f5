#!/usr/bin/env python3
"""gen_program.py: randomized, deterministic test programs for the DACCE runtime.

    gen_program.py --seed N --lang c|c++ --out DIR [--describe]

writes DIR/prog.c (or prog.cc) and, when the seed selects dlopen, DIR/lib.c
(lib.cc), a shared library the program dlopen()s at run time from argv[1] (or
$DACCE_GEN_LIB).  Same seed and lang => the same bytes.

The program is deterministic (no data races, no pointer values or timing in
its output, thread results combined commutatively), runs in well under a
second natively, prints a few phase lines and a final "checksum XXXXXXXX"
line, and exits 0.  It exercises:

  * a random call graph of 20-80 functions: a DAG plus back edges (guarded by
    a depth argument d < DMAX), several call sites to one callee, loops,
    genuine tail calls `return f(x, d, c);`, small inlinable static functions;
  * direct and mutual recursion, some of it a few thousand levels deep;
  * function-pointer tables with 10-40 targets called in loops;
  * qsort/bsearch with comparators that call program functions;
  * setjmp/longjmp, _setjmp/_longjmp, sigsetjmp/siglongjmp out of several
    frames, nested setjmp (jumping past an inner one), longjmp out of a
    synchronous signal handler and out of deep recursion;
  * C++: exceptions several frames deep with rethrow, translation, catch(...),
    destructors that call functions during unwinding, catch in a function that
    then calls more functions; virtual calls (also through a secondary base,
    i.e. a this-adjusting thunk); lambdas and std::function; std::sort /
    std::stable_sort with comparators;
  * threads (pthread_create, or std::thread in C++) from main and from threads,
    2-3 levels, joined; a mutex-protected commutative sum;
  * dlopen of a library that calls back into the program through a function
    pointer (and, in C++, a callback that throws through the library's frames;
    in C, a callback that longjmps out through them).

Work is bounded by "fuel" in a per-thread context passed to every function:
a function entered with no fuel returns at once without calling anything.

When linked with the dacce runtime (weak references to dacce_capture and
dacce_decode), the program also checks itself: after a longjmp landed, in a
catch handler, after a signal handler returned, at the end of a thread and
after each step of main, the decoded context must have as many frames as at
the same place before (else "DEPTH CHECK FAILED" and abort).  verify=1 only
checks that the encoding agrees with the runtime's frame stack; this checks
that the frame stack agrees with the real one.
"""
import argparse
import os
import random
import sys

FEATURE_NAMES = ["tables", "tailcalls", "recursion", "deep", "qsort", "setjmp", "sigsetjmp",
                 "signal", "sigret", "altstack", "nested_setjmp", "deep_longjmp", "threads",
                 "nested_threads", "pthread_exit",
                 "dlopen", "exceptions", "deep_exception", "virtual", "thunk", "lambda",
                 "std_sort", "std_thread", "lib_throw", "lib_longjmp", "dlclose"]


class Gen:
    def __init__(self, seed, lang):
        self.seed = seed
        self.cxx = lang == "c++"
        self.rng = random.Random(seed * 1000003 + (7 if self.cxx else 3))
        self.choose_features()

    # ------------------------------------------------------------ helpers
    def K(self):
        return "%#010xu" % self.rng.getrandbits(32)

    def ri(self, a, b):
        return self.rng.randint(a, b)

    def p(self, prob):
        return self.rng.random() < prob

    def pick(self, seq):
        return self.rng.choice(seq)

    def mt(self):
        """Sometimes force a genuine tail call (clang's musttail)."""
        return "MUSTTAIL " if self.p(0.5) else ""

    def chk(self, indent="  "):
        """A depth check: the runtime's context depth here must equal d0."""
        self.nchk += 1
        return indent + "depth_check(d0, %d);" % self.nchk

    # ------------------------------------------------------------ features
    def choose_features(self):
        r = self.rng
        f = {}
        f["nfuncs"] = r.randint(20, 80)
        f["dmax"] = r.randint(2, 5)
        f["ntables"] = r.randint(1, 4)
        f["tailcalls"] = True
        f["nrec"] = r.randint(1, 3)
        f["nmut"] = r.randint(1, 2)
        f["deep"] = r.random() < 0.65
        f["nqsort"] = r.choice([0, 1, 1, 2])
        f["nsetjmp"] = r.choice([0, 1, 2, 2, 3])
        f["signal"] = f["nsetjmp"] > 0 and r.random() < 0.6
        f["deep_longjmp"] = f["nsetjmp"] > 0 and r.random() < 0.5
        f["threads"] = r.random() < 0.7
        f["thread_levels"] = r.randint(1, 3) if f["threads"] else 0
        f["pthread_exit"] = f["threads"] and r.random() < 0.5
        f["sigret"] = r.random() < 0.5
        f["altstack"] = (f["sigret"] or f["signal"]) and r.random() < 0.5
        f["dlopen"] = r.random() < 0.55
        f["dlclose"] = f["dlopen"] and r.random() < 0.5
        if self.cxx:
            f["nexc"] = r.choice([0, 1, 2, 2, 3])
            f["deep_exception"] = f["nexc"] > 0 and r.random() < 0.6
            f["nvirt"] = r.choice([0, 1, 1, 2])
            f["thunk"] = f["nvirt"] > 0 and r.random() < 0.6
            f["nlambda"] = r.choice([0, 1, 1, 2])
            f["nsort"] = r.choice([0, 1, 1, 2])
            f["std_thread"] = f["threads"] and r.random() < 0.5
            f["lib_throw"] = f["dlopen"] and f["nexc"] > 0
            f["lib_longjmp"] = False
        else:
            f["nexc"] = f["nvirt"] = f["nlambda"] = f["nsort"] = 0
            f["deep_exception"] = f["thunk"] = f["std_thread"] = f["lib_throw"] = False
            f["lib_longjmp"] = f["dlopen"] and f["nsetjmp"] > 0
        self.f = f

    def describe(self):
        f = self.f
        on = {
            "tables": f["ntables"] > 0, "tailcalls": True, "recursion": True,
            "deep": f["deep"], "qsort": f["nqsort"] > 0, "setjmp": f["nsetjmp"] > 0,
            "sigsetjmp": any(k == 1 for k in getattr(self, "sj_kinds", [])),
            "signal": f["signal"], "sigret": f["sigret"], "altstack": f["altstack"],
            "pthread_exit": f["pthread_exit"], "nested_setjmp": any(getattr(self, "sj_nested", [])),
            "deep_longjmp": f["deep_longjmp"], "threads": f["threads"],
            "nested_threads": f["thread_levels"] >= 2, "dlopen": f["dlopen"],
            "exceptions": f["nexc"] > 0, "deep_exception": f["deep_exception"],
            "virtual": f["nvirt"] > 0, "thunk": f["thunk"], "lambda": f["nlambda"] > 0,
            "std_sort": f["nsort"] > 0, "std_thread": f["std_thread"],
            "lib_throw": f["lib_throw"], "lib_longjmp": f["lib_longjmp"],
            "dlclose": f["dlclose"],
        }
        return "nfuncs=%d dmax=%d " % (f["nfuncs"], f["dmax"]) + " ".join(
            k for k in FEATURE_NAMES if on[k])

    # ------------------------------------------------------------ program
    def generate(self):
        f = self.f
        rng = self.rng
        self.n = f["nfuncs"]
        self.dmax = f["dmax"]
        self.fnames = ["f%d" % i for i in range(self.n)]
        self.inl = [i > 0 and self.p(0.15) for i in range(self.n)]
        self.referenced = set()
        self.mrt_used = set()
        self.nchk = 0
        self.recs = ["rec%d" % k for k in range(f["nrec"])]
        self.mut = []
        for g in range(f["nmut"]):
            self.mut.append(["mr%d_%d" % (g, m) for m in range(self.ri(2, 4))])
        # tables
        pool = self.fnames + self.recs + [m[0] for m in self.mut]
        self.tables = []
        for t in range(f["ntables"]):
            size = self.ri(10, 40)
            ents = [self.pick(pool) for _ in range(size)]
            self.tables.append(ents)
        self.tcalls = ["tcall%d" % t for t in range(f["ntables"])]
        # feature runners (uniform signature, callable from DAG with the feat budget)
        self.runners = []
        self.qs = ["qs%d" % q for q in range(f["nqsort"])]
        self.runners += self.qs
        self.sj_kinds = [self.pick([0, 0, 1, 1, 2]) for _ in range(f["nsetjmp"])]
        if f["signal"] and 1 not in self.sj_kinds:
            self.sj_kinds[0] = 1
        self.sj_nested = [self.p(0.6) for _ in range(f["nsetjmp"])]
        self.sj_signal = [f["signal"] and k == 1 and self.p(0.8) for k in self.sj_kinds]
        if f["signal"] and not any(self.sj_signal):
            self.sj_signal[self.sj_kinds.index(1)] = True
        self.sjs = ["sjrun%d" % s for s in range(f["nsetjmp"])]
        self.runners += self.sjs
        self.excs = ["exrun%d" % e for e in range(f["nexc"])]
        self.runners += self.excs
        self.virts = ["virt%d" % v for v in range(f["nvirt"])]
        self.runners += self.virts
        self.lams = ["lam%d" % k for k in range(f["nlambda"])]
        self.runners += self.lams
        self.sorts = ["ss%d" % k for k in range(f["nsort"])]
        self.runners += self.sorts
        self.sigrets = ["sigr0"] if f["sigret"] else []
        self.runners += self.sigrets
        self.libcalls = ["libcall0"] if f["dlopen"] else []
        self.runners += self.libcalls
        if f["lib_throw"]:
            self.runners.append("exlib")
        if f["lib_longjmp"]:
            self.runners.append("sjlib")
        self.deep_runners = []
        if f["deep_longjmp"]:
            self.deep_runners.append("sjdeep")
        if f["deep_exception"]:
            self.deep_runners.append("exdeep")

        out = []
        out += self.prelude()
        body = []
        body += self.gen_tables()
        if self.cxx:
            body += self.gen_cxx_types()
        body += self.gen_dag()
        body += self.gen_recursion()
        body += self.gen_tcalls()
        body += self.gen_qsort()
        body += self.gen_setjmp()
        body += self.gen_sigret()
        if self.cxx:
            body += self.gen_exceptions()
            body += self.gen_virtual()
            body += self.gen_lambda()
            body += self.gen_sort()
        body += self.gen_lib_runners()
        body += self.gen_threads()
        body += self.gen_main()
        out += self.prototypes()
        out += body
        return "\n".join(out) + "\n"

    def prelude(self):
        L = []
        L.append("/* Generated by tests/gen/gen_program.py --seed %d --lang %s" %
                 (self.seed, "c++" if self.cxx else "c"))
        L.append(" * features: %s */" % self.describe())
        inc = ["stdint.h", "stdio.h", "stdlib.h", "string.h", "pthread.h", "setjmp.h",
               "signal.h", "dlfcn.h"]
        for h in inc:
            L.append("#include <%s>" % h)
        if self.cxx:
            for h in ["functional", "vector", "algorithm", "thread"]:
                L.append("#include <%s>" % h)
        L.append("")
        L.append("#define NOINLINE __attribute__((noinline))")
        L.append("#define DMAX %du" % self.dmax)
        L += MUSTTAIL_DEF
        L += ctx_decls()
        L += self.depth_check_decls()
        if self.f["dlopen"]:
            L.append("typedef uint32_t (*lib_fn_t)(uint32_t, uint32_t, Ctx *, fn_t);")
            L.append("static lib_fn_t lib_entry_p;")
        if self.f["threads"]:
            L.append("static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;")
            L.append("static uint32_t g_sum;")
        if self.f["nsetjmp"]:
            L.append("typedef struct SJ { int kind; jmp_buf jb; sigjmp_buf sb; } SJ;")
            L.append("static __thread SJ *cur_sj;")
            L.append("static __thread volatile uint32_t jump_val;")
            L.append("")
            L.append("NOINLINE __attribute__((noreturn)) static void do_jump(SJ *j, uint32_t v) {")
            L.append("  jump_val = v;")
            L.append("  if (j->kind == 1) siglongjmp(j->sb, (int)(v % 1000u) + 1);")
            L.append("  if (j->kind == 2) _longjmp(j->jb, (int)(v % 1000u) + 1);")
            L.append("  longjmp(j->jb, (int)(v % 1000u) + 1);")
            L.append("}")
        L.append("")
        return L

    def depth_check_decls(self):
        """ctx_depth(): how many frames the runtime's context has (-1 natively).
        At points where the program knows the depth must equal an earlier one
        (after a longjmp landed, in a catch handler, at the end of a thread or a
        phase of main) depth_check() compares.  Verification (verify=1) only
        checks that the encoding agrees with the runtime's own frame stack; this
        checks that the frame stack agrees with the real one."""
        ec = 'extern "C" ' if self.cxx else ""
        return [
            "typedef struct gen_dctx { uint64_t id; uint32_t node, cc, ts, thread; } gen_dctx;",
            "typedef struct gen_dframe { uintptr_t function, callsite; uint32_t thread, flags; } gen_dframe;",
            "%svoid dacce_capture(gen_dctx *) __attribute__((weak));" % ec,
            "%sint dacce_decode(const gen_dctx *, gen_dframe *, int, int) __attribute__((weak));" % ec,
            "#define DEPTH_MAX 65536",
            "NOINLINE static int ctx_depth(void) {",
            "  static __thread gen_dframe *buf;",
            "  if (!dacce_capture || !dacce_decode) return -1;",
            "  if (!buf) buf = (gen_dframe *)malloc(DEPTH_MAX * sizeof *buf);",
            "  gen_dctx cx;",
            "  dacce_capture(&cx);",
            "  return dacce_decode(&cx, buf, DEPTH_MAX, 0);",
            "}",
            "/* ctx_depth() is called from the checking function itself, like for d0 */",
            "#define depth_check(d0, where) depth_check_((d0), ctx_depth(), (where))",
            "NOINLINE static void depth_check_(int d0, int d, int where) {",
            "  if (d0 < 0) return;",
            "  if (d != d0) {",
            '    fprintf(stderr, "DEPTH CHECK FAILED at check %d: the runtime context has %d frames, "',
            '            "expected %d\\n", where, d, d0);',
            "    fflush(stderr);",
            "    abort();",
            "  }",
            "}",
        ]

    def uniform_protos(self):
        names = []
        for i, fn in enumerate(self.fnames):
            names.append((fn, self.inl[i]))
        for r in self.recs:
            names.append((r, False))
        for m in self.mut:
            for x in m:
                names.append((x, False))
        for t in self.tcalls + self.runners + self.deep_runners:
            names.append((t, False))
        return names

    def prototypes(self):
        L = []
        for name, inl in self.uniform_protos():
            L.append("static %suint32_t %s(uint32_t, uint32_t, Ctx *);" %
                     ("inline " if inl else "", name))
        L.append("")
        tl = []
        for line in self.table_lines:
            if line.startswith("@MRT"):
                g = int(line[4:-1])
                if g in self.mrt_used:
                    m = self.mut[g]
                    tl.append("static const fn_t mrt%d[%d] = {%s};" % (g, len(m), ", ".join(m)))
            else:
                tl.append(line)
        return L + tl

    def gen_tables(self):
        # emitted right after the prototypes (see prototypes())
        L = []
        for t, ents in enumerate(self.tables):
            for e in ents:
                self.referenced.add(e)
            L.append("static const fn_t tbl%d[%d] = {%s};" % (t, len(ents), ", ".join(ents)))
        for g, m in enumerate(self.mut):
            L.append("@MRT%d@" % g)
        L.append("")
        self.table_lines = L
        return []

    # ------------------------------------------------------------ call graph
    def fwd(self, i):
        if i >= self.n - 1:
            return None
        if self.p(0.6):
            return self.ri(i + 1, min(self.n - 1, i + 4))
        return self.ri(i + 1, self.n - 1)

    def call(self, j, arg, d="d"):
        self.referenced.add(self.fnames[j])
        return "%s(%s, %s, c)" % (self.fnames[j], arg, d)

    def dag_stmt(self, i):
        kinds = ["fwd", "fwd", "fwd", "back", "loop", "branch", "table", "rec", "mut",
                 "arith", "fptr"]
        if self.tcalls:
            kinds.append("tcall")
        if self.runners:
            kinds += ["runner", "runner"]
        if self.libcalls:
            kinds.append("lib")
        k = self.pick(kinds)
        K = self.K
        j = self.fwd(i)
        if k in ("fwd", "loop", "branch", "fptr") and j is None:
            k = "back"
        if k == "fwd":
            return ["r = mix(r, %s);" % self.call(j, "r + " + K())]
        if k == "back":
            b = self.ri(0, i)
            return ["if (d < DMAX) r ^= %s;" % self.call(b, "r * %s" % K(), "d + 1u")]
        if k == "loop":
            return ["for (uint32_t k = 0; k < %du; k++) r = mix(r, %s);" %
                    (self.ri(2, 3), self.call(j, "r + k"))]
        if k == "branch":
            j2 = self.fwd(i)
            return ["if (r & %s) r = mix(r, %s);" % (K(), self.call(j, "r ^ " + K())),
                    "else r += %s;" % self.call(j2, "r >> 3")]
        if k == "fptr":
            j2 = self.fwd(i)
            self.referenced.update([self.fnames[j], self.fnames[j2]])
            return ["{ fn_t fp = (r & 4u) ? %s : %s; r = mix(r, fp(r, d, c)); }" %
                    (self.fnames[j], self.fnames[j2])]
        if k == "table":
            t = self.ri(0, len(self.tables) - 1)
            return ["if (d < DMAX) r = mix(r, tbl%d[(r >> %d) %% %du](r, d + 1u, c));" %
                    (t, self.ri(0, 9), len(self.tables[t]))]
        if k == "tcall":
            t = self.pick(self.tcalls)
            self.referenced.add(t)
            return ["if (d < DMAX) r += %s(r, d + 1u, c);" % t]
        if k == "rec":
            rname = self.pick(self.recs)
            self.referenced.add(rname)
            # recursion functions call back into the DAG with d = DMAX: the
            # guard keeps rec -> f -> rec chains from nesting without bound
            return ["if (d < DMAX) r = mix(r, %s(r, (r & 7u) + 1u, c));" % rname]
        if k == "mut":
            m = self.pick(self.mut)
            self.referenced.add(m[0])
            return ["if (d < DMAX) r = mix(r, %s(r, (r & 15u) + 2u, c));" % m[0]]
        if k == "arith":
            return ["r = r * %s + (r >> %d);" % (K(), self.ri(5, 20))]
        if k == "runner":
            rn = self.pick(self.runners)
            self.referenced.add(rn)
            return ["if (c->feat) { c->feat--; r = mix(r, %s(r, d, c)); }" % rn]
        if k == "lib":
            cb = self.ri(0, self.n - 1)
            self.referenced.add(self.fnames[cb])
            return ["if (d < DMAX) r = mix(r, lib_entry_p(r, d + 1u, c, %s));" % self.fnames[cb]]
        raise AssertionError(k)

    def gen_dag(self):
        L = []
        K = self.K
        n = self.n
        for i in range(n):
            stmts = []
            small = self.inl[i]
            for _ in range(1 if small else self.ri(1, 4)):
                stmts += self.dag_stmt(i)
            if not small and self.p(0.3) and i < n - 1:
                # a second (and third) call site to the same callee
                j = self.fwd(i)
                stmts.append("r = mix(r, %s);" % self.call(j, "r ^ " + K()))
                if self.p(0.5):
                    stmts.append("if (r & 1u) r += %s;" % self.call(j, "r + 1u"))
            # the tail
            t = self.rng.random()
            if i < n - 1 and t < 0.45:
                j = self.fwd(i)
                tail = ["%sreturn %s;" % (self.mt(), self.call(j, "r ^ " + K()))]
            elif t < 0.6 and self.tables:
                tb = self.ri(0, len(self.tables) - 1)
                tail = ["if (d < DMAX) { %sreturn tbl%d[r %% %du](r, d + 1u, c); }" %
                        (self.mt(), tb, len(self.tables[tb])), "return r;"]
            else:
                tail = ["return r;"]
            head = "static inline" if small else "NOINLINE static"
            L.append("%s uint32_t f%d(uint32_t x, uint32_t d, Ctx *c) {" % (head, i))
            L.append("  if (c->fuel == 0u) return x * %s + %du;" % (K(), i))
            L.append("  c->fuel--;")
            L.append("  uint32_t r = x ^ %s;" % K())
            for s in stmts + tail:
                L.append("  " + s)
            L.append("}")
            L.append("")
        return L

    # ------------------------------------------------------------ recursion
    def gen_recursion(self):
        L = []
        K = self.K
        n = self.n
        for rname in self.recs:
            leaf_j = self.ri(0, n - 1)
            per = self.ri(16, 64)
            mid_j = self.ri(0, n - 1)
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t n, Ctx *c) {" % rname)
            if self.p(0.5):
                L.append("  if (n == 0u) return %s;" % self.call(leaf_j, "x", "DMAX"))
            else:
                L.append("  if (n == 0u) return x ^ %s;" % K())
            if self.p(0.7):
                L.append("  if ((n & 3u) == 1u) { %sreturn %s(x * 3u + %s, n - 1u, c); }" % (self.mt(), rname, K()))
            L.append("  uint32_t r;")
            L.append("  if (x & 1u) r = %s(x * %s + n, n - 1u, c);" % (rname, K()))
            L.append("  else r = %s((x >> 1) ^ %s, n - 1u, c) + 7u;" % (rname, K()))
            L.append("  if (n %% %du == 0u) r = mix(r, %s);" % (per, self.call(mid_j, "r", "DMAX")))
            L.append("  return mix(r, x);")
            L.append("}")
            L.append("")
        for g, m in enumerate(self.mut):
            sz = len(m)
            for idx, name in enumerate(m):
                nxt = m[(idx + 1) % sz]
                alt = m[(idx + self.ri(0, sz - 1)) % sz]
                L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t n, Ctx *c) {" % name)
                L.append("  if (n == 0u) return x + %s;" % K())
                if self.p(0.6):
                    L.append("  if (n & 1u) { %sreturn %s(x ^ %s, n - 1u, c); }" % (self.mt(), nxt, K()))
                L.append("  uint32_t r;")
                v = self.rng.random()
                if v < 0.35:
                    self.mrt_used.add(g)
                    L.append("  r = mrt%d[(x >> 3) %% %du](x * %s, n - 1u, c);" % (g, sz, K()))
                elif v < 0.7:
                    L.append("  if (x & 2u) r = %s(x * %s, n - 1u, c);" % (nxt, K()))
                    L.append("  else r = %s(x + %s, n - 1u, c);" % (alt, K()))
                else:
                    L.append("  r = %s(x * %s, n - 1u, c);" % (nxt, K()))
                if self.p(0.3):
                    L.append("  if ((n & 31u) == 0u) r += %s;" %
                             self.call(self.ri(0, n - 1), "r", "DMAX"))
                L.append("  return mix(r, x);")
                L.append("}")
                L.append("")
        return L

    # ------------------------------------------------------------ tables
    def gen_tcalls(self):
        L = []
        for t, tn in enumerate(self.tcalls):
            size = len(self.tables[t])
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % tn)
            L.append("  uint32_t r = x;")
            L.append("  for (uint32_t k = 0; k < %du; k++)" % self.ri(3, 8))
            L.append("    r = mix(r, tbl%d[(r + k * %du) %% %du](r ^ k, d, c));" %
                     (t, self.ri(1, 13), size))
            L.append("  return r;")
            L.append("}")
            L.append("")
        return L

    # ------------------------------------------------------------ qsort
    def gen_qsort(self):
        L = []
        K = self.K
        for q, name in enumerate(self.qs):
            kj = self.ri(0, self.n - 1)
            kf = self.ri(2, 4)
            L.append("NOINLINE static uint32_t key%d(uint32_t v) {" % q)
            L.append("  Ctx k = {%du, 0u, 0u, 0u};" % kf)
            L.append("  return %s ^ (v >> 3);" % self.call(kj, "v", "DMAX").replace(", c)", ", &k)"))
            L.append("}")
            L.append("static int cmp%d(const void *pa, const void *pb) {" % q)
            L.append("  uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;")
            L.append("  uint32_t ka = key%d(a), kb = key%d(b);" % (q, q))
            L.append("  if (ka != kb) return ka < kb ? -1 : 1;")
            L.append("  return (a > b) - (a < b);")
            L.append("}")
            m = self.ri(12, 32)
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % name)
            L.append("  uint32_t a[%d];" % m)
            L.append("  uint32_t s = x;")
            L.append("  for (uint32_t i = 0; i < %du; i++) { s = s * 1664525u + 1013904223u; "
                     "a[i] = s >> (i & 7u); }" % m)
            L.append("  qsort(a, %d, sizeof a[0], cmp%d);" % (m, q))
            L.append("  uint32_t r = %s;" % self.call(self.ri(0, self.n - 1), "x ^ " + K()))
            L.append("  for (uint32_t i = 0; i < %du; i++) r = mix(r, a[i] + i);" % m)
            if self.p(0.5):
                L.append("  const uint32_t *hit = (const uint32_t *)bsearch(&a[%d], a, %d, "
                         "sizeof a[0], cmp%d);" % (self.ri(0, m - 1), m, q))
                L.append("  r += hit ? (uint32_t)(hit - a) : 999u;")
            L.append("  return r;")
            L.append("}")
            L.append("")
        return L

    # ------------------------------------------------------------ setjmp
    def sj_set(self, kind, var):
        if kind == 1:
            return "sigsetjmp(%s.sb, 1)" % var
        if kind == 2:
            return "_setjmp(%s.jb)" % var
        return "setjmp(%s.jb)" % var

    def gen_setjmp(self):
        L = []
        K = self.K
        n = self.n
        if self.f["signal"]:
            hj = self.ri(0, n - 1)
            L.append("static void on_sig(int s) {")
            L.append("  Ctx lc = {%du, 0u, 0u, 0u};" % self.ri(3, 12))
            L.append("  uint32_t r = %s;" % self.call(hj, "jump_val ^ (uint32_t)s", "DMAX").replace(", c)", ", &lc)"))
            L.append("  do_jump(cur_sj, r | 1u);")
            L.append("}")
            L.append("")
        for s, name in enumerate(self.sjs):
            kind = self.sj_kinds[s]
            nested = self.sj_nested[s]
            sig = self.sj_signal[s]
            la = self.ri(1, 4)
            inner_at = self.ri(0, la - 1) if nested else -1
            lb = self.ri(1, 3)
            # chain B (below the inner setjmp): jumps to inner or outer
            if nested:
                for l in range(lb - 1, -1, -1):
                    fn = "sjb%d_%d" % (s, l)
                    L.append("NOINLINE static uint32_t %s(uint32_t x, SJ *j, Ctx *c) {" % fn)
                    L.append("  uint32_t r = mix(x, %s);" % self.call(self.ri(0, n - 1), "x", "DMAX"))
                    if l == lb - 1:
                        L.append("  if ((r & 3u) != 0u) do_jump(j, r);")
                        L.append("  return r;")
                    elif self.p(0.5):
                        L.append("  return sjb%d_%d(r, j, c);" % (s, l + 1))
                    else:
                        L.append("  r = mix(sjb%d_%d(r, j, c), x);" % (s, l + 1))
                        L.append("  return r;")
                    L.append("}")
                L.append("NOINLINE static uint32_t sji%d(uint32_t x, SJ *outer, Ctx *c) {" % s)
                L.append("  SJ j2;")
                L.append("  j2.kind = %d;" % kind)
                L.append("  volatile uint32_t acc = x;")
                L.append("  const int d0 = ctx_depth();")
                L.append("  if (%s == 0) {" % self.sj_set(kind, "j2"))
                L.append("    acc = mix(acc, sjb%d_0(acc, (x & 4u) ? outer : &j2, c));" % s)
                L.append("  } else {")
                L.append("    acc ^= jump_val;")
                L.append("    acc = mix(acc, %s);" % self.call(self.ri(0, n - 1), "acc", "DMAX"))
                L.append("  }")
                L.append(self.chk())
                L.append("  return acc;")
                L.append("}")
            # chain A (below the outer setjmp), bottom-up
            for l in range(la - 1, -1, -1):
                fn = "sja%d_%d" % (s, l)
                L.append("NOINLINE static uint32_t %s(uint32_t x, SJ *j, Ctx *c) {" % fn)
                L.append("  uint32_t r = mix(x, %s);" % self.call(self.ri(0, n - 1), "x ^ " + K(), "DMAX"))
                if l == la - 1 and sig:
                    L.append("  if ((r & 7u) >= 4u) { SJ *prev = cur_sj; cur_sj = j; "
                             "jump_val = r; raise(SIGUSR1); cur_sj = prev; }")
                if l == inner_at:
                    L.append("  r = mix(r, sji%d(r, j, c));" % s)
                if l == la - 1:
                    L.append("  if ((r & 3u) != 0u) do_jump(j, r);")
                    L.append("  return r;")
                elif self.p(0.5):
                    L.append("  return sja%d_%d(r, j, c);" % (s, l + 1))
                else:
                    L.append("  r = sja%d_%d(r ^ %s, j, c);" % (s, l + 1, K()))
                    L.append("  return mix(r, x);")
                L.append("}")
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % name)
            L.append("  SJ j;")
            L.append("  j.kind = %d;" % kind)
            L.append("  SJ *saved = cur_sj;")
            L.append("  volatile uint32_t acc = x ^ %s;" % K())
            L.append("  const int d0 = ctx_depth();")
            L.append("  if (%s == 0) {" % self.sj_set(kind, "j"))
            L.append("    cur_sj = &j;")
            L.append("    acc = mix(acc, %s);" % self.call(self.ri(0, n - 1), "x"))
            L.append("    acc = mix(acc, sja%d_0(acc, &j, c));" % s)
            L.append("    acc += 1u;")
            L.append("  } else {")
            L.append("    acc ^= jump_val;")
            L.append("    acc = mix(acc, %s);" % self.call(self.ri(0, n - 1), "acc"))
            L.append("    acc += %s;" % self.call(self.ri(0, n - 1), "acc >> 2"))
            L.append("  }")
            L.append(self.chk())
            L.append("  cur_sj = saved;")
            L.append("  return acc;")
            L.append("}")
            L.append("")
        if self.f["deep_longjmp"]:
            kind = self.sj_kinds[0]
            L.append("NOINLINE static uint32_t rec_jump(uint32_t x, uint32_t n, SJ *j, Ctx *c) {")
            L.append("  if (n == 0u) { if ((x & 15u) != 0u) do_jump(j, x); return x; }")
            L.append("  if (n %% %du == 0u) x = mix(x, %s);" %
                     (self.ri(50, 200), self.call(self.ri(0, self.n - 1), "x", "DMAX")))
            L.append("  uint32_t r = rec_jump(x * 3u + n, n - 1u, j, c);")
            L.append("  return mix(r, x);")
            L.append("}")
            L.append("NOINLINE static uint32_t sjdeep(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  SJ j;")
            L.append("  j.kind = %d;" % kind)
            L.append("  volatile uint32_t acc = x;")
            L.append("  const int d0 = ctx_depth();")
            L.append("  if (%s == 0) {" % self.sj_set(kind, "j"))
            L.append("    acc = mix(acc, rec_jump(x, %du, &j, c));" % self.ri(500, 3000))
            L.append("  } else {")
            L.append("    acc ^= jump_val;")
            L.append("    acc = mix(acc, %s);" % self.call(self.ri(0, self.n - 1), "acc"))
            L.append("  }")
            L.append(self.chk())
            L.append("  return acc;")
            L.append("}")
            L.append("")
        return L

    def gen_sigret(self):
        """A handler that calls program functions and returns normally
        (on the alternate signal stack when the seed says so)."""
        if not self.f["sigret"]:
            return []
        L = []
        n = self.n
        K = self.K
        L.append("static __thread volatile uint32_t sig_acc;")
        L.append("static void on_sig2(int s) {")
        L.append("  Ctx lc = {%du, 0u, 0u, 0u};" % self.ri(3, 15))
        L.append("  sig_acc = mix(sig_acc, %s);" %
                 self.call(self.ri(0, n - 1), "sig_acc ^ (uint32_t)s", "DMAX").replace(", c)", ", &lc)"))
        L.append("  sig_acc += %s;" % self.call(self.ri(0, n - 1), "sig_acc", "DMAX").replace(", c)", ", &lc)"))
        L.append("}")
        depth = self.ri(1, 3)
        for l in range(depth - 1, -1, -1):
            L.append("NOINLINE static uint32_t sigc%d(uint32_t x, Ctx *c) {" % l)
            L.append("  uint32_t r = mix(x, %s);" % self.call(self.ri(0, n - 1), "x", "DMAX"))
            if l == depth - 1:
                L.append("  sig_acc = r;")
                L.append("  raise(SIGUSR2);")
                L.append("  return mix(r, sig_acc);")
            else:
                L.append("  r = sigc%d(r ^ %s, c);" % (l + 1, K()))
                L.append("  return mix(r, x);")
            L.append("}")
        L.append("NOINLINE static uint32_t sigr0(uint32_t x, uint32_t d, Ctx *c) {")
        L.append("  const int d0 = ctx_depth();")
        L.append("  uint32_t r = sigc0(x, c);")
        L.append(self.chk())
        L.append("  r = mix(r, %s);" % self.call(self.ri(0, n - 1), "r"))
        L.append("  return r;")
        L.append("}")
        L.append("")
        return L

    # ------------------------------------------------------------ C++
    def gen_cxx_types(self):
        L = []
        L.append("struct GenErr { uint32_t v; };")
        L.append("struct GenErr2 : GenErr {")
        L.append("  uint32_t w;")
        L.append("  GenErr2(uint32_t v_, uint32_t w_) : GenErr{v_}, w(w_) {}")
        L.append("};")
        L.append("struct Guard {")
        L.append("  Ctx *c; uint32_t k; fn_t f;")
        L.append("  ~Guard() { uint32_t v = f(k, DMAX, c); c->acc += v; }")
        L.append("};")
        L.append("")
        return L

    def gen_exceptions(self):
        L = []
        K = self.K
        n = self.n
        for e, name in enumerate(self.excs):
            depth = self.ri(2, 6)
            for l in range(depth - 1, -1, -1):
                fn = "ex%d_%d" % (e, l)
                L.append("NOINLINE static uint32_t %s(uint32_t x, Ctx *c) {" % fn)
                if l == depth - 1:
                    L.append("  uint32_t r = %s;" % self.call(self.ri(0, n - 1), "x", "DMAX"))
                    if self.p(0.5):
                        L.append("  if (r %% %du != 0u) throw GenErr{r};" % self.ri(2, 5))
                    else:
                        L.append("  if (r %% %du != 0u) throw GenErr2(r, %s);" % (self.ri(2, 5), K()))
                    L.append("  return r;")
                else:
                    nxt = "ex%d_%d" % (e, l + 1)
                    v = self.pick(["plain", "guard", "rethrow", "catchall", "translate", "plain",
                                   "stdfn"])
                    gj = self.ri(0, n - 1)
                    if v == "plain":
                        L.append("  uint32_t r = mix(x, %s);" % self.call(gj, "x", "DMAX"))
                        L.append("  r = %s(r, c);" % nxt)
                        L.append("  return r ^ %s;" % K())
                    elif v == "guard":
                        self.referenced.add(self.fnames[gj])
                        L.append("  Guard g = {c, x, %s};" % self.fnames[gj])
                        L.append("  return mix(x, %s(x ^ %s, c));" % (nxt, K()))
                    elif v == "stdfn":
                        L.append("  std::function<uint32_t(uint32_t)> fn = [c](uint32_t v) { return %s(v, c); };" % nxt)
                        L.append("  return mix(fn(x ^ %s), x);" % K())
                    elif v == "rethrow":
                        L.append("  try {")
                        L.append("    return %s(x, c) + 1u;" % nxt)
                        L.append("  } catch (GenErr &g) {")
                        L.append("    g.v += %s;" % self.call(gj, "g.v", "DMAX"))
                        L.append("    throw;")
                        L.append("  }")
                    elif v == "catchall":
                        L.append("  try {")
                        L.append("    return %s(x * %s, c);" % (nxt, K()))
                        L.append("  } catch (...) {")
                        L.append("    { uint32_t v = %s; c->acc ^= v; }" % self.call(gj, "x", "DMAX"))
                        L.append("    throw;")
                        L.append("  }")
                    else:
                        L.append("  try {")
                        L.append("    return %s(x, c) ^ 5u;" % nxt)
                        L.append("  } catch (GenErr &g) {")
                        L.append("    throw GenErr2(g.v * 3u, %s);" % self.call(gj, "g.v", "DMAX"))
                        L.append("  }")
                L.append("}")
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % name)
            L.append("  uint32_t r = x;")
            L.append("  const int d0 = ctx_depth();")
            L.append("  try {")
            L.append("    r = ex%d_0(x, c);" % e)
            L.append("    r += 1u;")
            L.append("  } catch (GenErr2 &g) {")
            L.append(self.chk("    "))
            L.append("    r = g.v ^ g.w;")
            L.append("    r = mix(r, %s);" % self.call(self.ri(0, n - 1), "r"))
            L.append("  } catch (GenErr &g) {")
            L.append(self.chk("    "))
            L.append("    r = g.v;")
            L.append("    r = mix(r, %s);" % self.call(self.ri(0, n - 1), "r"))
            L.append("    r += %s;" % self.call(self.ri(0, n - 1), "r ^ " + K()))
            L.append("  }")
            L.append(self.chk())
            L.append("  return r;")
            L.append("}")
            L.append("")
        if self.f["deep_exception"]:
            gj = self.ri(0, n - 1)
            self.referenced.add(self.fnames[gj])
            L.append("NOINLINE static uint32_t exrec(uint32_t x, uint32_t n, Ctx *c) {")
            L.append("  if (n == 0u) throw GenErr{x};")
            L.append("  if (n %% %du == 0u) {" % self.ri(5, 40))
            L.append("    Guard g = {c, x, %s};" % self.fnames[gj])
            L.append("    return mix(exrec(x + n, n - 1u, c), x);")
            L.append("  }")
            L.append("  uint32_t r = exrec(x * 3u + n, n - 1u, c);")
            L.append("  return mix(r, x);")
            L.append("}")
            L.append("NOINLINE static uint32_t exdeep(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  uint32_t r = x;")
            L.append("  const int d0 = ctx_depth();")
            L.append("  try {")
            L.append("    r = exrec(x, %du, c);" % self.ri(500, 3000))
            L.append("  } catch (GenErr &g) {")
            L.append(self.chk("    "))
            L.append("    r = mix(g.v, %s);" % self.call(self.ri(0, n - 1), "g.v"))
            L.append("  }")
            L.append(self.chk())
            L.append("  return r;")
            L.append("}")
            L.append("")
        return L

    def gen_virtual(self):
        if not self.virts:
            return []
        L = []
        K = self.K
        n = self.n
        L.append("struct Base {")
        L.append("  virtual uint32_t run(uint32_t x, uint32_t d, Ctx *c) { return step(x, c) + %s; }" %
                 self.call(self.ri(0, n - 1), "x"))
        L.append("  virtual uint32_t step(uint32_t x, Ctx *c) { return x ^ %s; }" % K())
        L.append("  virtual ~Base() {}")
        L.append("};")
        L.append("struct Aux {")
        L.append("  uint32_t salt = %s;" % K())
        L.append("  virtual uint32_t aux(uint32_t x, Ctx *c) { return x + salt; }")
        L.append("  virtual ~Aux() {}")
        L.append("};")
        ncls = self.ri(3, 6)
        self.vclasses = []
        for k in range(ncls):
            cname = "V%d" % k
            parent = "Base" if k == 0 or self.p(0.6) else self.pick(self.vclasses)
            self.vclasses.append(cname)
            L.append("struct %s : %s {" % (cname, parent))
            if self.p(0.8):
                noinl = "__attribute__((noinline)) " if self.p(0.6) else ""
                L.append("  %suint32_t run(uint32_t x, uint32_t d, Ctx *c) override {" % noinl)
                L.append("    uint32_t r = mix(x, %s);" % self.call(self.ri(0, n - 1), "x"))
                if self.p(0.6):
                    L.append("    r = mix(r, step(r, c));")
                if self.p(0.4):
                    L.append("    if (d < DMAX) r += %s;" % self.call(self.ri(0, n - 1), "r", "d + 1u"))
                L.append("    return r;")
                L.append("  }")
            if self.p(0.7):
                L.append("  uint32_t step(uint32_t x, Ctx *c) override { return %s; }" %
                         self.call(self.ri(0, n - 1), "x ^ %s" % K(), "DMAX"))
            L.append("};")
        if self.f["thunk"]:
            L.append("struct VM : V0, Aux {")
            L.append("  __attribute__((noinline)) uint32_t aux(uint32_t x, Ctx *c) override { return %s + salt; }" %
                     self.call(self.ri(0, n - 1), "x", "DMAX"))
            L.append("};")
        L.append("")
        for v, name in enumerate(self.virts):
            objs = ["o%d" % k for k in range(len(self.vclasses))]
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % name)
            for k, cn in enumerate(self.vclasses):
                L.append("  %s o%d;" % (cn, k))
            arr = [self.pick(objs) for _ in range(self.ri(4, 10))]
            L.append("  Base *objs[%d] = {%s};" % (len(arr), ", ".join("&" + a for a in arr)))
            L.append("  uint32_t r = x;")
            L.append("  for (uint32_t i = 0; i < %du; i++) r = mix(r, objs[(r + i) %% %du]->run(r, d, c));" %
                     (self.ri(2, 6), len(arr)))
            L.append("  Base *h = (r & 1u) ? (Base *)new %s() : (Base *)new %s();" %
                     (self.pick(self.vclasses), self.pick(self.vclasses)))
            L.append("  r += h->step(r, c);")
            L.append("  delete h;")
            if self.f["thunk"]:
                L.append("  VM m;")
                L.append("  Aux *ap = &m;")
                L.append("  r = mix(r, ap->aux(r, c));")
                L.append("  Base *bp = &m;")
                L.append("  r = mix(r, bp->run(r, d, c));")
            L.append("  return r;")
            L.append("}")
            L.append("")
        return L

    def gen_lambda(self):
        L = []
        K = self.K
        n = self.n
        for k, name in enumerate(self.lams):
            nf = self.ri(3, 8)
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % name)
            L.append("  std::function<uint32_t(uint32_t)> fs[%d] = {" % nf)
            for i in range(nf):
                v = self.rng.random()
                j = self.ri(0, n - 1)
                if v < 0.4:
                    L.append("    [=](uint32_t v) { return %s; }," % self.call(j, "v"))
                elif v < 0.7:
                    L.append("    [c, d](uint32_t v) -> uint32_t { return mix(v, %s); }," %
                             self.call(j, "v ^ " + K()))
                else:
                    self.referenced.add(self.fnames[j])
                    L.append("    std::bind(%s, std::placeholders::_1, DMAX, c)," % self.fnames[j])
            L.append("  };")
            L.append("  uint32_t r = x;")
            L.append("  for (uint32_t i = 0; i < %du; i++) r = mix(r, fs[(r + i) %% %du](r));" %
                     (self.ri(2, 6), nf))
            L.append("  auto g = [&](uint32_t v) -> uint32_t { return %s + r; };" %
                     self.call(self.ri(0, n - 1), "v"))
            L.append("  r ^= g(r);")
            if self.p(0.6):
                L.append("  std::function<uint32_t(uint32_t, uint32_t)> rl = "
                         "[&](uint32_t v, uint32_t m) -> uint32_t {")
                L.append("    return m == 0u ? %s : mix(rl(v * 3u + m, m - 1u), v);" %
                         self.call(self.ri(0, n - 1), "v", "DMAX"))
                L.append("  };")
                L.append("  r += rl(r, %du);" % self.ri(3, 30))
            L.append("  return r;")
            L.append("}")
            L.append("")
        return L

    def gen_sort(self):
        L = []
        n = self.n
        for k, name in enumerate(self.sorts):
            kj = self.ri(0, n - 1)
            L.append("NOINLINE static uint32_t skey%d(uint32_t v) {" % k)
            L.append("  Ctx kc = {%du, 0u, 0u, 0u};" % self.ri(2, 4))
            L.append("  return %s;" % self.call(kj, "v", "DMAX").replace(", c)", ", &kc)"))
            L.append("}")
            L.append("struct SCmp%d {" % k)
            L.append("  __attribute__((noinline)) bool operator()(uint32_t a, uint32_t b) const {")
            L.append("    uint32_t ka = skey%d(a), kb = skey%d(b);" % (k, k))
            L.append("    return ka != kb ? ka < kb : a < b;")
            L.append("  }")
            L.append("};")
            m = self.ri(12, 40)
            L.append("NOINLINE static uint32_t %s(uint32_t x, uint32_t d, Ctx *c) {" % name)
            L.append("  std::vector<uint32_t> v(%d);" % m)
            L.append("  uint32_t s = x;")
            L.append("  for (auto &e : v) { s = s * 22695477u + 1u; e = s >> 5; }")
            w = self.rng.random()
            if w < 0.4:
                L.append("  std::sort(v.begin(), v.end(), [](uint32_t a, uint32_t b) {")
                L.append("    uint32_t ka = skey%d(a), kb = skey%d(b);" % (k, k))
                L.append("    return ka != kb ? ka < kb : a < b;")
                L.append("  });")
            elif w < 0.7:
                L.append("  std::sort(v.begin(), v.end(), SCmp%d());" % k)
            else:
                L.append("  std::stable_sort(v.begin(), v.end(), SCmp%d());" % k)
            L.append("  uint32_t r = %s;" % self.call(self.ri(0, n - 1), "x"))
            L.append("  for (uint32_t i = 0; i < v.size(); i++) r = mix(r, v[i] + i);")
            L.append("  return r;")
            L.append("}")
            L.append("")
        return L

    # ------------------------------------------------------------ dlopen
    def gen_lib_runners(self):
        L = []
        K = self.K
        n = self.n
        if self.libcalls:
            cb = self.ri(0, n - 1)
            self.referenced.add(self.fnames[cb])
            L.append("NOINLINE static uint32_t libcall0(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  uint32_t r = lib_entry_p(x, d, c, %s);" % self.fnames[cb])
            L.append("  return mix(r, %s);" % self.call(self.ri(0, n - 1), "r"))
            L.append("}")
            L.append("")
        if self.f["lib_throw"]:
            L.append("static uint32_t throw_cb(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  uint32_t r = %s;" % self.call(self.ri(0, n - 1), "x", "DMAX"))
            L.append("  if (r %% %du != 0u) throw GenErr{r};" % self.ri(2, 4))
            L.append("  return r;")
            L.append("}")
            L.append("NOINLINE static uint32_t exlib(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  uint32_t r = x;")
            L.append("  const int d0 = ctx_depth();")
            L.append("  try {")
            L.append("    r = lib_entry_p(x, 0u, c, throw_cb);")
            L.append("  } catch (GenErr &g) {")
            L.append(self.chk("    "))
            L.append("    r = mix(g.v, %s);" % self.call(self.ri(0, n - 1), "g.v"))
            L.append("  }")
            L.append(self.chk())
            L.append("  return r;")
            L.append("}")
            L.append("")
        if self.f["lib_longjmp"]:
            kind = self.sj_kinds[0]
            L.append("static uint32_t jump_cb(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  uint32_t r = %s;" % self.call(self.ri(0, n - 1), "x", "DMAX"))
            L.append("  if (r %% %du != 0u) do_jump(cur_sj, r);" % self.ri(2, 4))
            L.append("  return r;")
            L.append("}")
            L.append("NOINLINE static uint32_t sjlib(uint32_t x, uint32_t d, Ctx *c) {")
            L.append("  SJ j;")
            L.append("  j.kind = %d;" % kind)
            L.append("  SJ *saved = cur_sj;")
            L.append("  volatile uint32_t acc = x;")
            L.append("  const int d0 = ctx_depth();")
            L.append("  if (%s == 0) {" % self.sj_set(kind, "j"))
            L.append("    cur_sj = &j;")
            L.append("    acc = mix(acc, lib_entry_p(x, 0u, c, jump_cb));")
            L.append("  } else {")
            L.append("    acc ^= jump_val;")
            L.append("    acc = mix(acc, %s);" % self.call(self.ri(0, n - 1), "acc"))
            L.append("  }")
            L.append(self.chk())
            L.append("  cur_sj = saved;")
            L.append("  return acc;")
            L.append("}")
            L.append("")
        return L

    # ------------------------------------------------------------ threads
    def thread_work(self, cvar):
        """Statements for a thread body: r is the running value."""
        L = []
        for _ in range(self.ri(2, 4)):
            v = self.rng.random()
            if v < 0.5:
                L.append("  r = mix(r, %s);" % self.call(self.ri(0, min(5, self.n - 1)), "r", "0u").replace(", c)", ", &%s)" % cvar))
            elif v < 0.65:
                rn = self.pick(self.recs)
                if self.p(0.3):
                    L.append("  { Ctx dc = {%du, 0u, 0u, 0u}; r = mix(r, %s(r, %du, &dc)); }" %
                             (self.ri(5, 40), rn, self.ri(300, 1200)))
                else:
                    L.append("  r = mix(r, %s(r, %du, &%s));" % (rn, self.ri(5, 200), cvar))
            elif v < 0.75:
                m = self.pick(self.mut)
                L.append("  r = mix(r, %s(r, %du, &%s));" % (m[0], self.ri(5, 200), cvar))
            elif self.runners:
                rn = self.pick(self.runners)
                self.referenced.add(rn)
                L.append("  r = mix(r, %s(r, 0u, &%s));" % (rn, cvar))
            else:
                t = self.pick(self.tcalls)
                L.append("  r = mix(r, %s(r, 0u, &%s));" % (t, cvar))
        return L

    def gen_threads(self):
        if not self.f["threads"]:
            return []
        L = []
        levels = self.f["thread_levels"]
        std = self.f["std_thread"]
        L.append("typedef struct TArg { uint32_t seed; uint32_t level; uint32_t out; uint32_t viapt; } TArg;")
        if self.f["pthread_exit"]:
            # the thread ends by pthread_exit() a few frames down
            depth = self.ri(1, 4)
            for l in range(depth - 1, -1, -1):
                L.append("NOINLINE %sstatic void texit%d(uint32_t r, TArg *a, Ctx *c) {" %
                         ("__attribute__((noreturn)) " if l == depth - 1 else "", l))
                L.append("  r = mix(r, %s);" % self.call(self.ri(0, self.n - 1), "r", "DMAX"))
                if l == depth - 1:
                    L.append("  pthread_mutex_lock(&g_mu);")
                    L.append("  g_sum += r;")
                    L.append("  pthread_mutex_unlock(&g_mu);")
                    L.append("  a->out = r ^ c->acc;")
                    L.append("  pthread_exit(NULL);")
                else:
                    L.append("  texit%d(r ^ %s, a, c);" % (l + 1, self.K()))
                L.append("}")
        # thread functions per level, generated deepest first
        self.thr_funcs = {}
        for lev in range(levels, 0, -1):
            nvar = self.ri(1, 2)
            names = ["thr%d_%d" % (lev, v) for v in range(nvar)]
            self.thr_funcs[lev] = names
            for nm in names:
                L.append("static void *%s(void *);" % nm)
            L.append("static void *(*const thr_tab%d[%d])(void *) = {%s};" % (lev, nvar, ", ".join(names)))
            for name in names:
                L.append("NOINLINE static void *%s(void *p) {" % name)
                L.append("  TArg *a = (TArg *)p;")
                L.append("  Ctx tc = {%du, %du, 0u, 0u};" % (self.ri(150, 500), self.ri(1, 3)))
                L.append("  uint32_t r = a->seed;")
                L.append("  const int d0 = ctx_depth();")
                L += self.thread_work("tc")
                if lev < levels:
                    L += self.spawn(self.ri(1, 2), lev + 1, std, "r", "tc")
                L.append(self.chk())
                if self.f["pthread_exit"]:
                    L.append("  if (a->viapt && (r & 3u) != 0u) texit0(r, a, &tc);")
                L.append("  pthread_mutex_lock(&g_mu);")
                L.append("  g_sum += r;")
                L.append("  pthread_mutex_unlock(&g_mu);")
                L.append("  a->out = r ^ tc.acc;")
                L.append("  return NULL;")
                L.append("}")
                L.append("")
        return L

    def spawn(self, nk, lev, std, rv, cvar):
        L = []
        nv = len(self.thr_funcs[lev])
        fn = "thr_tab%d[(i + %du) %% %du]" % (lev, self.ri(0, nv - 1), nv)
        L.append("  {")
        L.append("    TArg kids[%d];" % nk)
        if std and self.p(0.7):
            L.append("    std::thread th[%d];" % nk)
            L.append("    for (uint32_t i = 0; i < %du; i++) {" % nk)
            L.append("      kids[i].seed = %s + i * %s; kids[i].level = %du; kids[i].out = 0u; kids[i].viapt = 0u;" %
                     (rv, self.K(), lev))
            L.append("      th[i] = std::thread(%s, &kids[i]);" % fn)
            L.append("    }")
            L.append("    %s = mix(%s, %s);" % (rv, rv, self.call(self.ri(0, self.n - 1), rv, "0u").replace(", c)", ", &%s)" % cvar)))
            L.append("    for (uint32_t i = 0; i < %du; i++) { th[i].join(); %s = mix(%s, kids[i].out); }" % (nk, rv, rv))
        else:
            L.append("    pthread_t th[%d];" % nk)
            L.append("    for (uint32_t i = 0; i < %du; i++) {" % nk)
            L.append("      kids[i].seed = %s + i * %s; kids[i].level = %du; kids[i].out = 0u; kids[i].viapt = 1u;" %
                     (rv, self.K(), lev))
            L.append("      if (pthread_create(&th[i], NULL, %s, &kids[i]) != 0) abort();" % fn)
            L.append("    }")
            L.append("    %s = mix(%s, %s);" % (rv, rv, self.call(self.ri(0, self.n - 1), rv, "0u").replace(", c)", ", &%s)" % cvar)))
            L.append("    for (uint32_t i = 0; i < %du; i++) { pthread_join(th[i], NULL); %s = mix(%s, kids[i].out); }" % (nk, rv, rv))
        L.append("  }")
        return L

    # ------------------------------------------------------------ main
    def gen_main(self):
        L = []
        K = self.K
        f = self.f
        main_body = []
        M = main_body.append
        # roots: f0 and every function nobody calls yet (computed at the end)
        M("  uint32_t total = %s;" % K())
        M("  Ctx c = {%du, %du, 0u, 0u};" % (self.ri(800, 2000), self.ri(3, 6)))
        M("  const int d0 = ctx_depth();")
        M("@ROOTS@")
        M(self.chk())
        M('  printf("roots %08x\\n", total);')
        # features: each runner once with its own context
        feats = self.tcalls + self.runners + self.deep_runners
        for rn in feats:
            for _ in range(1 if rn in self.deep_runners or rn in self.tcalls else 2):
                fuel = self.ri(20, 60) if rn in self.deep_runners else self.ri(100, 300)
                M("  { Ctx fc = {%du, 1u, 0u, 0u}; total = mix(total, %s(total ^ %s, 0u, &fc)); total += fc.acc; }" %
                  (fuel, rn, K()))
                M(self.chk())
        M(self.chk())
        M('  printf("features %08x\\n", total);')
        for rn in self.recs:
            M("  total = mix(total, %s(total, %du, &c));" % (rn, self.ri(10, 300)))
            M(self.chk())
        for m in self.mut:
            M("  total = mix(total, %s(total, %du, &c));" % (m[0], self.ri(10, 300)))
            M(self.chk())
        if f["deep"]:
            # deep recursion gets its own small fuel: under verify=1 every event
            # deep down costs O(depth)
            rn = self.pick(self.recs)
            M("  { Ctx dc = {%du, 0u, 0u, 0u}; total = mix(total, %s(total, %du, &dc)); total += dc.acc; }" %
              (self.ri(10, 60), rn, self.ri(1500, 4000)))
            M(self.chk())
            m = self.pick(self.mut)
            M("  { Ctx dc = {%du, 0u, 0u, 0u}; total = mix(total, %s(total, %du, &dc)); total += dc.acc; }" %
              (self.ri(10, 60), m[0], self.ri(1000, 3000)))
        M(self.chk())
        M('  printf("recursion %08x\\n", total);')
        if f["threads"]:
            main_body.extend(self.spawn(self.ri(2, 4), 1, f["std_thread"], "total", "c"))
            M("  total += g_sum;")
            M(self.chk())
        M('  printf("threads %08x\\n", total);')
        if f["dlopen"]:
            cb = self.ri(0, self.n - 1)
            self.referenced.add(self.fnames[cb])
            M("  total = mix(total, lib_entry_p(total, 0u, &c, %s));" % self.fnames[cb])
            M(self.chk())
        M('  printf("lib %08x\\n", total);')
        M(self.chk())
        M('  printf("checksum %08x\\n", total ^ c.acc);')
        if f["dlclose"]:
            M("  dlclose(lib_handle);")
        M("  return 0;")

        roots = ["f0"] + [fn for fn in self.fnames[1:] if fn not in self.referenced]
        roots += [x for x in self.recs + [m[0] for m in self.mut] if x not in self.referenced]
        rl = []
        for rn in roots:
            if rn in self.fnames:
                rl.append("  { Ctx rc = {%du, %du, 0u, 0u}; total = mix(total, %s(total, 0u, &rc)); total += rc.acc; }" %
                          (self.ri(100, 400), self.ri(0, 2), rn))
                rl.append(self.chk())
            else:
                rl.append("  total = mix(total, %s(total, 3u, &c));" % rn)
        body = "\n".join(main_body).replace("@ROOTS@", "\n".join(rl)).split("\n")

        if f["dlopen"]:
            L.append("static void *lib_handle;")
        L.append("int main(int argc, char **argv) {")
        if f["dlopen"]:
            L.append('  const char *path = argc > 1 ? argv[1] : getenv("DACCE_GEN_LIB");')
            L.append("  if (!path) { fprintf(stderr, \"usage: %s LIB.so (or set DACCE_GEN_LIB)\\n\", argv[0]); return 2; }")
            L.append("  lib_handle = dlopen(path, RTLD_NOW);")
            L.append('  if (!lib_handle) { fprintf(stderr, "dlopen: %s\\n", dlerror()); return 2; }')
            L.append('  lib_entry_p = (lib_fn_t)dlsym(lib_handle, "lib_entry");')
            L.append('  if (!lib_entry_p) { fprintf(stderr, "dlsym: %s\\n", dlerror()); return 2; }')
        else:
            L.append("  (void)argc; (void)argv;")
        if f["altstack"]:
            L.append("  static char altstack[1 << 16];")
            L.append("  stack_t ss;")
            L.append("  memset(&ss, 0, sizeof ss);")
            L.append("  ss.ss_sp = altstack;")
            L.append("  ss.ss_size = sizeof altstack;")
            L.append("  if (sigaltstack(&ss, NULL) != 0) abort();")
        for sig, h, on in (("SIGUSR1", "on_sig", f["signal"]), ("SIGUSR2", "on_sig2", f["sigret"])):
            if not on:
                continue
            L.append("  {")
            L.append("    struct sigaction sa;")
            L.append("    memset(&sa, 0, sizeof sa);")
            L.append("    sa.sa_handler = %s;" % h)
            L.append("    sa.sa_flags = %s;" % ("SA_ONSTACK" if f["altstack"] else "0"))
            L.append("    sigemptyset(&sa.sa_mask);")
            L.append("    if (sigaction(%s, &sa, NULL) != 0) abort();" % sig)
            L.append("  }")
        L += body
        L.append("}")
        return L

    # ------------------------------------------------------------ library
    def generate_lib(self):
        K = self.K
        dmax = self.dmax
        m = self.ri(6, 14)
        names = ["g%d" % i for i in range(m)]
        L = []
        L.append("/* Generated by tests/gen/gen_program.py --seed %d --lang %s: the dlopen'd library */" %
                 (self.seed, "c++" if self.cxx else "c"))
        L.append("#include <stdint.h>")
        L.append("#define NOINLINE __attribute__((noinline))")
        L.append("#define DMAX %du" % dmax)
        L += MUSTTAIL_DEF
        L += ctx_decls()
        L.append("typedef uint32_t (*lfn_t)(uint32_t, uint32_t, Ctx *, fn_t);")
        if self.cxx:
            L.append("struct LGuard {")
            L.append("  Ctx *c; uint32_t k; fn_t cb;")
            L.append("  ~LGuard();")
            L.append("};")
        for nm in names:
            L.append("static uint32_t %s(uint32_t, uint32_t, Ctx *, fn_t);" % nm)
        L.append("static uint32_t grec(uint32_t, uint32_t, Ctx *, fn_t);")
        tsz = self.ri(10, 20)
        ents = names + [self.pick(names) for _ in range(tsz - len(names))]
        self.rng.shuffle(ents)
        tsz = len(ents)
        L.append("static const lfn_t ltbl[%d] = {%s};" % (tsz, ", ".join(ents)))
        if self.cxx:
            L.append("LGuard::~LGuard() { uint32_t v = %s(k, DMAX, c, cb); c->acc += v; }" % self.pick(names))
        for i in range(m):
            L.append("NOINLINE static uint32_t g%d(uint32_t x, uint32_t d, Ctx *c, fn_t cb) {" % i)
            L.append("  if (c->fuel == 0u) return x ^ %s;" % K())
            L.append("  c->fuel--;")
            L.append("  uint32_t r = x * %s;" % K())
            stmts = []
            if i == 0:
                stmts.append("if (d < DMAX) r = mix(r, cb(r ^ %s, d + 1u, c));" % K())
                stmts.append("if (d < DMAX) r += ltbl[(r >> 4) %% %du](r, d + 1u, c, cb);" % tsz)
                stmts.append("if (d < DMAX) r = mix(r, grec(r, (r & 15u) + 1u, c, cb));")
            for _ in range(self.ri(1, 3)):
                k = self.pick(["fwd", "fwd", "back", "cb", "cb", "tbl", "rec", "guard", "try"])
                if k in ("guard", "try") and not self.cxx:
                    k = "cb"
                if k == "fwd" and i == m - 1:
                    k = "back"
                if k == "fwd":
                    stmts.append("r = mix(r, g%d(r + %s, d, c, cb));" % (self.ri(i + 1, m - 1), K()))
                elif k == "back":
                    stmts.append("if (d < DMAX) r ^= g%d(r, d + 1u, c, cb);" % self.ri(0, i))
                elif k == "cb":
                    stmts.append("if (d < DMAX) r = mix(r, cb(r + %s, d + 1u, c));" % K())
                elif k == "tbl":
                    stmts.append("if (d < DMAX) r += ltbl[(r >> 4) %% %du](r, d + 1u, c, cb);" % tsz)
                elif k == "rec":
                    stmts.append("if (d < DMAX) r = mix(r, grec(r, (r & 15u) + 1u, c, cb));")
                elif k == "guard":
                    stmts.append("LGuard lg%d = {c, r, cb};" % len(stmts))
                    stmts.append("if (d < DMAX) r = mix(r, cb(r ^ %s, d + 1u, c));" % K())
                else:
                    stmts.append("try { if (d < DMAX) r = mix(r, cb(r, d + 1u, c)); } "
                                 "catch (...) { c->acc += 1u; throw; }")
            for s in stmts:
                L.append("  " + s)
            if i < m - 1 and self.p(0.4):
                guarded = any("LGuard" in st for st in stmts)
                L.append("  %sreturn g%d(r, d, c, cb);" % ("" if guarded else self.mt(), self.ri(i + 1, m - 1)))
            else:
                L.append("  return r;")
            L.append("}")
        L.append("NOINLINE static uint32_t grec(uint32_t x, uint32_t n, Ctx *c, fn_t cb) {")
        L.append("  if (n == 0u) return g%d(x, DMAX, c, cb);" % self.ri(0, m - 1))
        L.append("  uint32_t r = grec(x * 5u + n, n - 1u, c, cb);")
        L.append("  return mix(r, x);")
        L.append("}")
        ext = 'extern "C" ' if self.cxx else ""
        L.append("%s__attribute__((visibility(\"default\"))) uint32_t lib_entry(uint32_t x, uint32_t d, Ctx *c, fn_t cb) {" % ext)
        L.append("  return g0(x, d, c, cb) ^ %s;" % K())
        L.append("}")
        return "\n".join(L) + "\n"

MUSTTAIL_DEF = [
    "/* clang: force genuine tail calls even under -fsanitize=thread and -O0 */",
    "#if defined(__clang__)",
    "#define MUSTTAIL __attribute__((musttail))",
    "#else",
    "#define MUSTTAIL",
    "#endif",
]


def ctx_decls():
    return [
        "typedef struct Ctx { uint32_t fuel; uint32_t feat; uint32_t acc; uint32_t spare; } Ctx;",
        "typedef uint32_t (*fn_t)(uint32_t, uint32_t, Ctx *);",
        "static inline uint32_t mix(uint32_t a, uint32_t b) {",
        "  a ^= b + 0x9e3779b9u + (a << 6) + (a >> 2);",
        "  return a * 0x85ebca6bu ^ (a >> 13);",
        "}",
    ]


def write(seed, lang, out):
    g = Gen(seed, lang)
    prog = g.generate()
    os.makedirs(out, exist_ok=True)
    ext = "cc" if lang == "c++" else "c"
    files = {"prog." + ext: prog}
    if g.f["dlopen"]:
        files["lib." + ext] = g.generate_lib()
    for name, text in files.items():
        with open(os.path.join(out, name), "w") as fp:
            fp.write(text)
    return g, sorted(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--lang", choices=["c", "c++"], default="c")
    ap.add_argument("--out", required=True)
    ap.add_argument("--describe", action="store_true", help="print the selected features")
    a = ap.parse_args()
    g, files = write(a.seed, a.lang, a.out)
    if a.describe:
        print("seed %d %s: %s  [%s]" % (a.seed, a.lang, g.describe(), " ".join(files)))


if __name__ == "__main__":
    main()
