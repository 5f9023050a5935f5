#!/usr/bin/env python3
"""Run one adversarial case (tests/conformance/adversarial/*.c, *.cc): build it
with dacce-cc/dacce-c++, run it under dacce-race --json and check the
expectations in its header comment.

The expectations are tests/racedet/run_case.py's (EXPECT:, EXPECT-CURRENT:,
EXPECT-PREVIOUS:, EXPECT-LOCATION:, EXPECT-CREATION:, EXPECT-THREADS:, and
whatever else its check_report() knows), checked by run_case.py's own
functions, imported.  Two additions:

  BUILD-SHARED: SRC LIBNAME  build SRC (relative to the case's directory) with
                             dacce-cc -shared -fPIC into LIBNAME next to the
                             program; the program runs in that directory, so
                             it can dlopen("./LIBNAME")
  EXPECT-ABSENT: f g ...     none of these functions may be on either stack of
                             the report that matches the other expectations
                             (frames a longjmp or an exception unwound must be
                             gone from the context)

A case listed in known_failures.txt ('adversarial/NAME [CC -OPT]: reason',
'*' matches anything) is expected to fail: exit 0 when it fails, 1 when it
passes (remove the entry), as for run_gcc_tsan.py.

Exit 0 when everything holds, 1 with the reason otherwise.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ next to the imported scripts
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "racedet"))
import run_case  # noqa: E402  (tests/racedet/run_case.py)
from run_gcc_tsan import lookup, read_name_list  # noqa: E402


def build_shared(src_file):
    libs = []
    with open(src_file) as f:
        for line in f:
            m = re.search(r"BUILD-SHARED:\s*(\S+)\s+(\S+)", line)
            if m:
                libs.append((os.path.join(os.path.dirname(src_file), m.group(1)), m.group(2)))
    return libs


def absent_violations(rep, names):
    why = []
    for side in ("current", "previous"):
        for fr in rep[side]["frames"]:
            fn = fr.get("function") or ""
            if any(run_case.name_matches(n, fn) for n in names):
                why.append("%s stack has %s, which must not be there" % (side, fn))
                break
    return why


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--cc", default="gcc", choices=["gcc", "clang"])
    ap.add_argument("--opt", default="O1")
    ap.add_argument("--known", default=os.path.join(HERE, "known_failures.txt"))
    a = ap.parse_args()
    exp = run_case.expectations(a.src)
    absent = exp.pop("ABSENT", [])
    cxx = a.src.endswith((".cc", ".cpp"))
    bindir = os.path.join(a.build, "bin")
    env = dict(os.environ)
    env["DACCE_CC"] = a.cc
    env["DACCE_CXX"] = "g++" if a.cc == "gcc" else "clang++"
    wrapper = os.path.join(bindir, "dacce-c++" if cxx else "dacce-cc")
    tag = "%s [%s -%s]" % (os.path.basename(a.src), a.cc, a.opt)
    known = lookup(read_name_list(a.known), "adversarial/" + tag)
    with tempfile.TemporaryDirectory() as tmp:
        for lib_src, lib_name in build_shared(a.src):
            b = subprocess.run([os.path.join(bindir, "dacce-cc"), "-" + a.opt, "-g", "-shared",
                                "-fPIC", lib_src, "-o", os.path.join(tmp, lib_name)],
                               env=env, capture_output=True, text=True)
            if b.returncode:
                print(b.stdout + b.stderr)
                sys.exit("%s: building %s failed" % (tag, lib_name))
        exe = os.path.join(tmp, "prog")
        b = subprocess.run([wrapper, "-" + a.opt, "-g", a.src, "-o", exe, "-ldl"], env=env,
                           capture_output=True, text=True)
        if b.returncode:
            print(b.stdout + b.stderr)
            sys.exit("%s: build failed" % tag)
        r, reports, fail = run_case.run_and_check(
            bindir, exe, exp, os.path.join(tmp, "reports.jsonl"), cwd=tmp,
            extra_why=lambda rep: absent_violations(rep, absent))
        print("%s: %d reports, exit %s" % (tag, len(reports), r.returncode))
        if known:
            reason = known[0]["text"]
            if fail:
                print("\n".join("known failure: " + x for x in fail))
                print("KNOWN FAILURE (known_failures.txt line %d): %s" % (known[0]["line"], reason))
                sys.exit(0)
            if not reason.startswith("FLAKY:"):
                print("FAIL: known failure now passes: remove or narrow known_failures.txt line %d"
                      % known[0]["line"])
                sys.exit(1)
        if fail:
            print("\n".join("FAIL: " + x for x in fail))
            print("--- dacce-race stderr (tail) ---")
            print(r.stderr[-6000:])
            sys.exit(1)
        print("PASS")


if __name__ == "__main__":
    main()
