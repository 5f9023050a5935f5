"""lrtest.py: helpers shared by the dacce-race launcher tests (tests/launcher).

Each test script is run as `python3 SCRIPT BUILD_DIR [gcc|clang]`: it builds
its programs with BUILD_DIR/bin/dacce-cc into a temporary directory, runs
them under BUILD_DIR/bin/dacce-race and records failures; finish() prints
them and exits 1, or 0 when all passed.  A missing compiler exits 77 (ctest
SKIP_RETURN_CODE).  Source lines are found by their /* @name */ markers.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
RACE_PROG = os.path.join(HERE, "race_prog.c")
SKIP = 77


def mark(name, src=RACE_PROG):
    """line number of the /* @name */ marker in src"""
    hits = []
    with open(src) as f:
        for n, line in enumerate(f, 1):
            if f"/* @{name} */" in line:
                hits.append(n)
    if len(hits) != 1:
        sys.exit(f"test bug: marker @{name} found {len(hits)} times in {src}")
    return hits[0]


class Test:
    def __init__(self, name, need_cc=True):
        if len(sys.argv) < 2:
            sys.exit(f"usage: {sys.argv[0]} BUILD_DIR [gcc|clang]")
        self.name = name
        self.build_dir = os.path.abspath(sys.argv[1])
        self.cc = sys.argv[2] if len(sys.argv) > 2 else "gcc"
        self.bin = os.path.join(self.build_dir, "bin")
        self.dacce_cc = os.path.join(self.bin, "dacce-cc")
        self.launcher = os.path.join(self.bin, "dacce-race")
        for f in (self.dacce_cc, self.launcher):
            if not os.access(f, os.X_OK):
                sys.exit(f"FAIL: {f} not built")
        if need_cc and not shutil.which(self.cc):
            print(f"SKIP: compiler {self.cc} not installed")
            sys.exit(SKIP)
        self.tmp = tempfile.mkdtemp(prefix=f"dacce-race-{name}-")
        self.failures = []
        self.checks = 0

    # ------------------------------------------------------------ building
    def build(self, src, out, extra=(), env=None, cc=None):
        """dacce-cc -g -O1 src -o tmp/out; returns the path"""
        exe = os.path.join(self.tmp, out)
        e = dict(os.environ)
        e["DACCE_CC"] = cc or self.cc
        if env:
            e.update(env)
        cmd = [self.dacce_cc, "-g", "-O1", *extra, src, "-o", exe]
        if src is None:
            cmd = [self.dacce_cc, "-g", "-O1", *extra, "-o", exe]
        r = subprocess.run(cmd, env=e, capture_output=True, text=True)
        if r.returncode:
            print(r.stdout + r.stderr)
            sys.exit(f"FAIL: building {out} failed: {' '.join(cmd)}")
        return exe

    def race_prog(self):
        return self.build(RACE_PROG, f"race_prog_{self.cc}")

    # ------------------------------------------------------------ running
    def run(self, args, env=None, cwd=None, timeout=120, unset=()):
        """dacce-race ARGS...; returns the CompletedProcess (text)"""
        e = dict(os.environ)
        for k in ("DACCE_OPTIONS", "DACCE_RACE_OPTIONS", *unset):
            e.pop(k, None)
        if env:
            e.update(env)
        return subprocess.run([self.launcher, *args], env=e, cwd=cwd or self.tmp,
                              capture_output=True, text=True, timeout=timeout,
                              errors="replace")

    # ------------------------------------------------------------ checking
    def check(self, cond, what, detail=None):
        self.checks += 1
        if not cond:
            self.failures.append(what)
            print(f"FAIL: {what}")
            if detail is not None:
                text = detail if isinstance(detail, str) else repr(detail)
                print("  | " + "\n  | ".join(text[-3000:].splitlines()))
        return cond

    def check_status(self, r, want, what):
        return self.check(r.returncode == want,
                          f"{what}: exit status {r.returncode}, expected {want}",
                          r.stderr)

    def check_in(self, needle, hay, what):
        if isinstance(needle, re.Pattern):
            ok = needle.search(hay) is not None
        else:
            ok = needle in hay
        return self.check(ok, f"{what}: {needle if isinstance(needle, str) else needle.pattern!r} "
                              f"not found", hay)

    def finish(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        if self.failures:
            print(f"{self.name}: {len(self.failures)} of {self.checks} checks failed")
            sys.exit(1)
        print(f"{self.name}: all {self.checks} checks passed")
        sys.exit(0)


SARIF_VALIDATOR = os.path.join(ROOT, "tests", "sarif", "validate_sarif.py")


def python_with_jsonschema():
    """a python3 that can import jsonschema (tests/sarif/validate_sarif.py), or None"""
    for py in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if py and os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import jsonschema"], capture_output=True).returncode == 0:
            return py
    return None


def validate_sarif(py, path):
    """run the SARIF 2.1.0 schema validator on path with py; the CompletedProcess"""
    return subprocess.run([py, SARIF_VALIDATOR, path], capture_output=True, text=True)


def check_option_off(t, src, prog, option, absent):
    """runtime option (report_mutex_bugs, ...) set to 0 three ways, each
    alone: the launcher's --option=0, TSAN_OPTIONS, and the program's own
    __tsan_default_options (src built with -DDEFAULT_OFF): each run exits 0
    without absent in its stderr"""
    flag = "--" + option.replace("_", "-") + "=0"
    off = t.build(src, f"{os.path.splitext(os.path.basename(src))[0]}_off_{t.cc}",
                  extra=("-DDEFAULT_OFF",))
    for what, args, env, exe in ((flag, [flag], None, prog),
                                 ("TSAN_OPTIONS", [], {"TSAN_OPTIONS": option + "=0"}, prog),
                                 ("__tsan_default_options", [], None, off)):
        r = t.run(args + [exe], env=env)
        t.check_status(r, 0, what)
        t.check(absent not in r.stderr, f"{what}: no report", r.stderr)


def run_with_outputs(t, prog, status, ran, n):
    """prog under dacce-race with --json and --sarif: its exit status is
    status, its stdout has ran, n text reports; returns (the run, the text
    reports by header line without the pid, the JSON reports, the SARIF log's
    run); the SARIF log is checked against the schema when
    python3-jsonschema is there (test_sarif skips without it)"""
    js, sarif = os.path.join(t.tmp, "r.jsonl"), os.path.join(t.tmp, "r.sarif")
    r = t.run(["--json", js, "--sarif", sarif, prog])
    t.check_status(r, status, os.path.basename(prog))
    t.check_in(ran, r.stdout, "the program ran to its end")
    reps = text_reports(r.stderr)
    t.check(len(reps) == n, f"{len(reps)} text reports, expected {n}", r.stderr)
    by_title = {re.sub(r" \(pid=\d+\)$", "", rep[0]): rep for rep in reps}
    with open(js) as f:
        jreps = [json.loads(line) for line in f if line.strip()]
    py = python_with_jsonschema()
    if py:
        v = validate_sarif(py, sarif)
        t.check(v.returncode == 0, "valid SARIF 2.1.0", v.stdout + v.stderr)
    with open(sarif) as f:
        run = json.load(f)["runs"][0]
    return r, by_title, jreps, run


def text_reports(stderr):
    """the text reports in stderr, each a list of lines"""
    reps, cur = [], None
    lines = stderr.splitlines()
    for i, line in enumerate(lines):
        if line == "==================" and cur is None and i + 1 < len(lines) and \
                lines[i + 1].startswith("WARNING: "):
            cur = []
        elif line == "==================" and cur is not None:
            reps.append(cur)
            cur = None
        elif cur is not None:
            cur.append(line)
    return reps


def section(report_lines, header_re):
    """the frame lines ("#N func file:line:col (mod+off)") under the first
    line matching header_re, as (function, file, line) tuples"""
    out, on = [], False
    for line in report_lines:
        if re.search(header_re, line):
            on = True
            continue
        if on:
            m = re.match(r"\s+#\d+ (\S+) (\S+)", line)
            if not m:
                break
            fn, loc = m.group(1), m.group(2)
            parts = loc.split(":")
            ln = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
            out.append((fn, parts[0], ln))
    return out
