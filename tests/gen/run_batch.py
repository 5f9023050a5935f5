#!/usr/bin/env python3
"""run_batch.py: generate random programs, build them natively and with dacce-cc,
run both, and compare.

    run_batch.py --build-dir /work/main/build --seeds 0-19 --compilers gcc,clang \\
                 --opts O0,O2 --langs c,c++ [--workdir DIR] [--jobs 2] \\
                 [--verify-every N] [--timeout 60] [--dacce-options OPTS] [--keep]
                 [--repeat N] [--verbose]

For every (seed, lang):
  (a) native: one build with a plain compiler (gcc/clang, g++/clang++), no
      sanitizer; the pairs of a compiler and an -O level asked for are taken
      in turn by seed (with gcc,clang and O0,O2: seed 0 gcc -O0, seed 1
      clang -O0, seed 2 gcc -O2, seed 3 clang -O2, seed 4 gcc -O0, ...);
and for every (seed, lang, compiler, opt) case:
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


class Native:
    """the native build and run of one (seed, lang)"""

    def __init__(self, seed, lang, comps, opts):
        self.seed, self.lang = seed, lang
        self.comp = comps[seed % len(comps)]
        self.opt = opts[seed // len(comps) % len(opts)]
        self.rc, self.out, self.err, self.secs = None, "", "", 0.0
        self.failure = None  # (label, details) when it could not be built
        self.build_lines, self.cmd, self.dir = [], [], ""

    @property
    def name(self):
        return "seed%d_%s_native_%s_%s" % (self.seed, "cxx" if self.lang == "c++" else "c",
                                           self.comp, self.opt)


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


def remove_files(d, names):
    for fn in names:
        p = os.path.join(d, fn)
        if os.path.exists(p):
            os.remove(p)


def copy_sources(srcdir, d):
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    for fn in os.listdir(srcdir):
        shutil.copy(os.path.join(srcdir, fn), d)
    return os.path.exists(os.path.join(d, "lib.cc")) or os.path.exists(os.path.join(d, "lib.c"))


def build(steps, d, a):
    """runs (label, cmd, env_add) steps in d; returns (shell lines, None) or
    (lines, (label, details)) at the first that fails"""
    lines = []
    for label, cmd, env_add in steps:
        env = dict(os.environ)
        env.update(env_add or {})
        rc, out, err, _ = run(cmd, d, env, timeout=max(a.timeout, 120))
        lines.append(shell_line(cmd, env_add))
        if rc != 0:
            return lines, (label, "  %s\n%s\n  reproduce: cd %s && %s" % (
                label, tail(out + err), d, lines[-1]))
    return lines, None


def run_native(nat, a, srcdir):
    """builds and runs the reference for one (seed, lang); fills nat"""
    d = os.path.join(a.workdir, nat.name)
    has_lib = copy_sources(srcdir, d)
    ext = "cc" if nat.lang == "c++" else "c"
    cc = CXX_OF[nat.comp] if nat.lang == "c++" else nat.comp
    flags = ["-" + nat.opt]  # no -g natively: only the dacce build gets debugged
    steps = [("native build", [cc] + flags + ["prog." + ext, "-o", "prog_native", "-pthread",
                                              "-ldl"], None)]
    if has_lib:
        steps.append(("native lib build", [cc] + flags + ["-fPIC", "-shared", "lib." + ext,
                                                          "-o", "lib_native.so"], None))
    nat.build_lines, nat.failure = build(steps, d, a)
    if nat.failure:
        return nat
    nat.cmd = ["./prog_native"] + ([os.path.join(d, "lib_native.so")] if has_lib else [])
    nat.rc, nat.out, nat.err, nat.secs = run(nat.cmd, d, dict(os.environ), a.timeout)
    nat.dir = d
    return nat


def run_case(case, a, srcdir, nat):
    """Returns (ok, line, details)."""
    if nat.failure:
        return False, "FAIL %s (%s, %s failed)" % (case.name, nat.name, nat.failure[0]), \
            nat.failure[1]
    d = os.path.join(a.workdir, case.name)
    has_lib = copy_sources(srcdir, d)
    cxx = case.lang == "c++"
    ext = "cc" if cxx else "c"
    native_cc = CXX_OF[case.comp] if cxx else case.comp
    wrapper = os.path.join(a.build_dir, "bin", "dacce-c++" if cxx else "dacce-cc")
    wvar = "DACCE_CXX" if cxx else "DACCE_CC"
    flags = ["-" + case.opt, "-g"]
    steps = [("dacce build", [wrapper] + flags + ["prog." + ext, "-o", "prog_dacce"],
              {wvar: native_cc})]
    if has_lib:
        steps.append(("dacce lib build", [wrapper] + flags + ["-fPIC", "-shared", "lib." + ext,
                                                              "-o", "lib_dacce.so"], {wvar: native_cc}))
    build_lines, failure = build(steps, d, a)
    if failure:
        return False, "FAIL %s (%s failed)" % (case.name, failure[0]), failure[1]

    rc1, out1, err1, t1 = nat.rc, nat.out, nat.err, nat.secs
    dac_cmd = ["./prog_dacce"] + ([os.path.join(d, "lib_dacce.so")] if has_lib else [])
    dopts = "verify=%d:stats=1" % a.verify_every
    if a.dacce_options:
        dopts += ":" + a.dacce_options
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
            remove_files(d, ("prog_dacce", "lib_dacce.so"))
        return True, "PASS %s verified %d (%s)" % (case.name, verified, timing), ""
    det = []
    if out1 != out2:
        det.append("  native stdout (%s):\n" % nat.name +
                   "\n".join("    " + l for l in out1.splitlines()[-8:]))
        det.append("  dacce stdout:\n" + "\n".join("    " + l for l in out2.splitlines()[-8:]))
    if rc1 != 0:
        det.append("  native stderr tail:\n" + tail(err1))
    det.append("  dacce stderr tail:\n" + tail(err2, 40))
    det.append("  reproduce: cd %s && %s && %s" % (
        d, " && ".join(build_lines), shell_line(dac_cmd, {"DACCE_OPTIONS": dopts})))
    det.append("  native:    cd %s && %s && %s" % (
        nat.dir, " && ".join(nat.build_lines), shell_line(nat.cmd)))
    return False, "FAIL %s verified %d: %s (%s)" % (case.name, verified, ", ".join(problems),
                                                    timing), "\n".join(det)


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
    failed = []
    failed_programs = set()  # (seed, lang) of the failed cases
    ndone = {}
    per_seed = len(langs) * len(comps) * len(opts)

    def native(key):
        nat = Native(key[0], key[1], comps, opts)
        try:
            return run_native(nat, a, srcdirs[key])
        except Exception as e:  # a harness problem counts as a failure
            nat.failure = ("harness error: %r" % e, "")
            return nat

    def one(case):
        try:
            return case, run_case(case, a, srcdirs[(case.seed, case.lang)],
                                  natives[(case.seed, case.lang)])
        except Exception as e:  # a harness problem counts as a failure
            return case, (False, "FAIL %s (harness error: %r)" % (case.name, e), "")

    with cf.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        natives = {(n.seed, n.lang): n for n in ex.map(native, sorted(srcdirs))}
        for case, (ok, line, det) in ex.map(one, cases):
            with lock:
                if ok:
                    npass += 1
                    if a.verbose:
                        print(line, flush=True)
                else:
                    nfail += 1
                    failed.append(case.name)
                    failed_programs.add((case.seed, case.lang))
                    print(line, flush=True)
                    print(described[(case.seed, case.lang)], flush=True)
                    if det:
                        print(det, flush=True)
                ndone[case.seed] = ndone.get(case.seed, 0) + 1
                if ndone[case.seed] == per_seed and not a.verbose:
                    print("seed %d: %d cases done (%d passed, %d failed so far, %.0fs)"
                          % (case.seed, per_seed, npass, nfail, time.time() - t0), flush=True)
    for key, nat in natives.items():  # a failing case's native binaries stay
        if not a.keep and key not in failed_programs:
            remove_files(os.path.join(a.workdir, nat.name), ("prog_native", "lib_native.so"))
    el = time.time() - t0
    if failed:
        print("failed: " + " ".join(failed))
    print("elapsed %.1fs" % el)
    print("%d passed, %d failed" % (npass, nfail))
    sys.exit(1 if nfail else 0)


if __name__ == "__main__":
    main()
