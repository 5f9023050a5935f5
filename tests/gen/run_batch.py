#!/usr/bin/env python3
"""run_batch.py: generate random programs, build them natively and with dacce-cc,
run both, and compare.

    run_batch.py --build-dir /work/main/build --seeds 0-19 --compilers gcc,clang \\
                 --opts O0,O2 --langs c,c++ [--workdir DIR] [--jobs 2] \\
                 [--verify-every N] [--timeout 60] [--dacce-options OPTS] [--keep]
                 [--repeat N] [--verbose]

For every (seed, lang, compiler, opt) case:
  (a) native: the plain compiler (gcc/clang, g++/clang++), no sanitizer;
  (b) dacce:  build/bin/dacce-cc (dacce-c++) with DACCE_CC (DACCE_CXX) set to
      that compiler; run with DACCE_OPTIONS=verify=N:stats=1[:OPTS].
A case passes when both exit 0 with identical stdout, and (b)'s stderr shows
"mismatches 0", a nonzero "verified contexts" count, no "VERIFY MISMATCH", no
"DEPTH CHECK FAILED" (the program's own check that the runtime's context depth
is right after longjmps, catches, signals and at thread ends; see
gen_program.py) and no race report (the programs are race-free).
Prints one line per case, the stderr tail and a reproduce command for each
failure, and finally "N passed, M failed"; exits 1 if any case failed.
Sources, binaries of failing cases and outputs stay in the work directory.
"""
import argparse
import concurrent.futures as cf
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_program  # noqa: E402

CXX_OF = {"gcc": "g++", "clang": "clang++"}


def parse_seeds(spec):
    seeds = []
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def run(cmd, cwd, env=None, timeout=60):
    """Run cmd (list); return (rc, stdout, stderr, seconds). rc None = timeout."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, out, err = None, e.stdout or b"", (e.stderr or b"") + b"\n[TIMEOUT]\n"
    return rc, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), time.time() - t0


def shell_line(cmd, env_add=None):
    pre = " ".join("%s=%s" % (k, shlex.quote(v)) for k, v in (env_add or {}).items())
    return (pre + " " if pre else "") + " ".join(shlex.quote(c) for c in cmd)


def tail(text, n=25):
    lines = text.rstrip("\n").split("\n")
    return "\n".join(lines[-n:])


class Case:
    def __init__(self, seed, lang, comp, opt):
        self.seed, self.lang, self.comp, self.opt = seed, lang, comp, opt

    @property
    def name(self):
        return "seed%d_%s_%s_%s" % (self.seed, "cxx" if self.lang == "c++" else "c",
                                    self.comp, self.opt)


def dacce_problems(rc1, out1, rc2, out2, err2):
    """What is wrong with one dacce run against the native run (empty: nothing)."""
    problems = []
    if rc1 != 0:
        problems.append("native exit %s" % ("TIMEOUT" if rc1 is None else rc1))
    if rc2 != 0:
        problems.append("dacce exit %s" % ("TIMEOUT" if rc2 is None else rc2))
    if out1 != out2:
        problems.append("stdout differs")
    if "checksum" not in out1:
        problems.append("no checksum line")
    m = re.search(r"verified contexts (\d+)\s+mismatches (\d+)", err2)
    if not m:
        problems.append("no verification statistics")
    else:
        if int(m.group(2)) != 0:
            problems.append("%s mismatches" % m.group(2))
        if int(m.group(1)) == 0:
            problems.append("no contexts verified")
    if "VERIFY MISMATCH" in err2:
        problems.append("VERIFY MISMATCH")
    if "DEPTH CHECK FAILED" in err2:
        problems.append("DEPTH CHECK FAILED")
    nraces = len(re.findall(r"WARNING: (?:dacce-race|ThreadSanitizer): data-race", err2))
    if nraces:
        # the generated programs are race-free: every report is a false positive
        problems.append("%d race report%s" % (nraces, "s" if nraces > 1 else ""))
    return problems


def run_case(case, a, srcdir):
    """Returns (ok, line, details, native stdout or None)."""
    d = os.path.join(a.workdir, case.name)
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    cxx = case.lang == "c++"
    ext = "cc" if cxx else "c"
    for fn in os.listdir(srcdir):
        shutil.copy(os.path.join(srcdir, fn), d)
    has_lib = os.path.exists(os.path.join(d, "lib." + ext))
    native_cc = CXX_OF[case.comp] if cxx else case.comp
    wrapper = os.path.join(a.build_dir, "bin", "dacce-c++" if cxx else "dacce-cc")
    wvar = "DACCE_CXX" if cxx else "DACCE_CC"
    flags = ["-" + case.opt, "-g"]
    benv = dict(os.environ)
    benv[wvar] = native_cc
    steps = []  # (label, cmd, env_add)
    nflags = ["-" + case.opt]  # no -g natively: only the dacce build gets debugged
    steps.append(("native build", [native_cc] + nflags + ["prog." + ext, "-o", "prog_native",
                                                          "-pthread", "-ldl"], None))
    if has_lib:
        steps.append(("native lib build", [native_cc] + nflags + ["-fPIC", "-shared", "lib." + ext,
                                                                  "-o", "lib_native.so"], None))
    steps.append(("dacce build", [wrapper] + flags + ["prog." + ext, "-o", "prog_dacce"],
                  {wvar: native_cc}))
    if has_lib:
        steps.append(("dacce lib build", [wrapper] + flags + ["-fPIC", "-shared", "lib." + ext,
                                                              "-o", "lib_dacce.so"], {wvar: native_cc}))
    build_lines = []
    for label, cmd, env_add in steps:
        env = dict(os.environ)
        env.update(env_add or {})
        rc, out, err, _ = run(cmd, d, env, timeout=max(a.timeout, 120))
        build_lines.append(shell_line(cmd, env_add))
        if rc != 0:
            return False, "FAIL %s (%s failed)" % (case.name, label), \
                "  %s\n%s\n  reproduce: cd %s && %s" % (label, tail(out + err), d, shell_line(cmd, env_add)), None

    nat_cmd = ["./prog_native"] + ([os.path.join(d, "lib_native.so")] if has_lib else [])
    dac_cmd = ["./prog_dacce"] + ([os.path.join(d, "lib_dacce.so")] if has_lib else [])
    dopts = "verify=%d:stats=1" % a.verify_every
    if a.dacce_options:
        dopts += ":" + a.dacce_options
    rc1, out1, err1, t1 = run(nat_cmd, d, dict(os.environ), a.timeout)
    denv = dict(os.environ)
    denv["DACCE_OPTIONS"] = dopts
    for attempt in range(max(1, a.repeat)):
        rc2, out2, err2, t2 = run(dac_cmd, d, denv, a.timeout)
        problems = dacce_problems(rc1, out1, rc2, out2, err2)
        if problems:
            break
    for fn, text in (("native.out", out1), ("native.err", err1), ("dacce.out", out2),
                     ("dacce.err", err2)):
        with open(os.path.join(d, fn), "w") as fp:
            fp.write(text)
    m = re.search(r"verified contexts (\d+)\s+mismatches (\d+)", err2)
    verified = int(m.group(1)) if m else -1
    if problems and a.repeat > 1:
        problems.append("on run %d of %d" % (attempt + 1, a.repeat))
    timing = "native %.2fs dacce %.2fs" % (t1, t2)
    if not problems:
        if not a.keep:
            for fn in ("prog_native", "prog_dacce", "lib_native.so", "lib_dacce.so"):
                p = os.path.join(d, fn)
                if os.path.exists(p):
                    os.remove(p)
        return True, "PASS %s verified %d (%s)" % (case.name, verified, timing), "", out1
    det = []
    if out1 != out2:
        det.append("  native stdout:\n" + "\n".join("    " + l for l in out1.splitlines()[-8:]))
        det.append("  dacce stdout:\n" + "\n".join("    " + l for l in out2.splitlines()[-8:]))
    if rc1 != 0:
        det.append("  native stderr tail:\n" + tail(err1))
    det.append("  dacce stderr tail:\n" + tail(err2, 40))
    det.append("  reproduce: cd %s && %s && %s" % (
        d, " && ".join(build_lines[len(build_lines) // 2:]) if has_lib else build_lines[-1],
        shell_line(dac_cmd, {"DACCE_OPTIONS": dopts})))
    det.append("  native:    cd %s && %s && %s" % (
        d, " && ".join(build_lines[:len(build_lines) // 2]) if has_lib else build_lines[0],
        shell_line(nat_cmd)))
    return False, "FAIL %s verified %d: %s (%s)" % (case.name, verified, ", ".join(problems),
                                                    timing), "\n".join(det), (out1 if rc1 == 0 else None)


def main():
    ap = argparse.ArgumentParser(description="Randomized differential tests for dacce-cc.")
    ap.add_argument("--build-dir", default=os.path.normpath(os.path.join(HERE, "..", "..", "build")))
    ap.add_argument("--seeds", default="0-19")
    ap.add_argument("--compilers", default="gcc,clang")
    ap.add_argument("--opts", default="O0,O2")
    ap.add_argument("--langs", default="c,c++")
    ap.add_argument("--workdir", default=None,
                    help="where sources, binaries and outputs go (default: a fresh dir in /tmp)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--verify-every", type=int, default=1, help="DACCE_OPTIONS verify=N")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per run")
    ap.add_argument("--dacce-options", default="",
                    help="more DACCE_OPTIONS, appended (e.g. reencode_min_pushes=50)")
    ap.add_argument("--keep", action="store_true", help="keep the binaries of passing cases")
    ap.add_argument("--verbose", action="store_true",
                    help="print every program's features and every passing case (by default: "
                         "failures in full, one line per seed otherwise, so a CI log window "
                         "that shows part of the output still holds every failure)")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run each dacce binary up to N times, stopping at the first failing run "
                         "(to hunt failures that depend on thread timing)")
    a = ap.parse_args()
    a.build_dir = os.path.abspath(a.build_dir)
    if a.workdir is None:
        import tempfile
        a.workdir = tempfile.mkdtemp(prefix="dacce-gen-")
    a.workdir = os.path.abspath(a.workdir)
    os.makedirs(a.workdir, exist_ok=True)
    for w in ("dacce-cc", "dacce-c++"):
        if not os.access(os.path.join(a.build_dir, "bin", w), os.X_OK):
            sys.exit("run_batch: %s/bin/%s not found (build first)" % (a.build_dir, w))

    seeds = parse_seeds(a.seeds)
    langs = [x for x in a.langs.split(",") if x]
    comps = [x for x in a.compilers.split(",") if x]
    opts = [x.lstrip("-") for x in a.opts.split(",") if x]
    for l in langs:
        if l not in ("c", "c++"):
            sys.exit("run_batch: unknown language %r" % l)
    for c in comps:
        if c not in CXX_OF:
            sys.exit("run_batch: unknown compiler %r (gcc or clang)" % c)

    t0 = time.time()
    srcdirs = {}
    described = {}
    for s in seeds:
        for l in langs:
            sd = os.path.join(a.workdir, "src", "seed%d_%s" % (s, "cxx" if l == "c++" else "c"))
            if os.path.isdir(sd):
                shutil.rmtree(sd)
            g, files = gen_program.write(s, l, sd)
            srcdirs[(s, l)] = sd
            described[(s, l)] = "gen  seed %d %-3s: %s" % (s, l, g.describe())
            if a.verbose:
                print(described[(s, l)], flush=True)
    cases = [Case(s, l, c, o) for s in seeds for l in langs for c in comps for o in opts]
    print("workdir %s: %d cases, %d jobs" % (a.workdir, len(cases), a.jobs), flush=True)

    lock = threading.Lock()
    npass = nfail = 0
    native_outs = {}
    failed = []
    ndone = {}
    per_seed = len(langs) * len(comps) * len(opts)

    def one(case):
        try:
            return case, run_case(case, a, srcdirs[(case.seed, case.lang)])
        except Exception as e:  # a harness problem counts as a failure
            return case, (False, "FAIL %s (harness error: %r)" % (case.name, e), "", None)

    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        for case, (ok, line, det, nat) in ex.map(one, cases):
            with lock:
                if nat is not None:
                    native_outs.setdefault((case.seed, case.lang), {})[case.name] = nat
                if ok:
                    npass += 1
                    if a.verbose:
                        print(line, flush=True)
                else:
                    nfail += 1
                    failed.append(case.name)
                    print(line, flush=True)
                    print(described[(case.seed, case.lang)], flush=True)
                    if det:
                        print(det, flush=True)
                ndone[case.seed] = ndone.get(case.seed, 0) + 1
                if ndone[case.seed] == per_seed and not a.verbose:
                    print("seed %d: %d cases done (%d passed, %d failed so far, %.0fs)"
                          % (case.seed, per_seed, npass, nfail, time.time() - t0), flush=True)
    # the same program must print the same with every compiler and -O level;
    # otherwise the generator produced unspecified or undefined behaviour
    for (seed, lang), outs in sorted(native_outs.items()):
        if len(set(outs.values())) > 1:
            nfail += 1
            failed.append("seed%d_%s_native_consistency" % (seed, "cxx" if lang == "c++" else "c"))
            print("FAIL seed %d %s: native outputs differ between compilers/opt levels "
                  "(a generator bug):" % (seed, lang))
            for name, out in sorted(outs.items()):
                print("  %-28s %s" % (name, " ".join(out.split())))
    el = time.time() - t0
    if failed:
        print("failed: " + " ".join(failed))
    print("elapsed %.1fs" % el)
    print("%d passed, %d failed" % (npass, nfail))
    sys.exit(1 if nfail else 0)


if __name__ == "__main__":
    main()
