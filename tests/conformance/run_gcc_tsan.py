#!/usr/bin/env python3
"""Run gcc 12's ThreadSanitizer testsuite against dacce-race, and (for the
differential table) against gcc's libtsan and clang's TSan runtime.

The tests come from the Debian package gcc-12-source
(/usr/src/gcc-12/gcc-12.2.0-dfsg.tar.xz); only
gcc/testsuite/{c-c++-common,g++.dg,gcc.dg}/tsan/* is extracted, once, into
BUILD/conformance/gcc-tsan.  Every test is judged by its own DejaGnu
directives, the way gcc's tsan.exp + dg.exp + gcc-dg.exp judge it:

  directives found with dg.exp's own regexps and split into Tcl words with
             Tcl's quoting and backslash rules (so the four dg-output lines
             of sleep_sync.c, which lack a blank before the closing brace,
             are ignored, as DejaGnu ignores them).
  variants   c-c++-common/tsan/*.c as C (gcc, clang) and as C++ (g++,
             clang++); g++.dg/tsan/*.C as C++; gcc.dg/tsan/*.c as C; each at
             the torture options -O0 and -O2 (tsan.exp), always with
             -fsanitize=thread -g (tsan-dg.exp).  dg-skip-if and target
             selectors are evaluated for x86_64-pc-linux-gnu.
  dg-do      run (the default: tsan-dg.exp sets it when TSan works), link,
             compile (built with -S: the test passes when it compiles; with a
             dg-error that applies to gcc it passes when gcc fails with that
             message).  dg-final/dg-warning/dg-bogus check gcc's own dumps
             and diagnostics: not checked (they test the compiler).
  options    dg-options replaces, dg-additional-options appends,
             dg-additional-sources adds files.  gcc-only options are mapped
             for clang in CLANG_OPTION_MAP (one place).
  run        exit status 0 = "pass", anything else "fail"; dg-shouldfail
             inverts it.  Stricter than DejaGnu (the brief): a dg-shouldfail
             test must print a report (a crash does not count), and a test
             without it must print no report.  When the status passes, the
             dg-output elements, concatenated, must match the whole output
             (stdout and stderr together) as ONE Tcl regexp, unanchored,
             where '.' also matches newlines.  dg-prune-output only prunes
             compiler output in gcc-dg.exp, so it does not affect runs.
  env        dg-set-target-env-var TSAN_OPTIONS: passed as is to TSan; for
             dacce-race halt_on_error=1 becomes --halt-on-error, other keys
             are ignored (noted in the result).

Differences between TSan's report format and ours are translated in ONE
place, translate_output_patterns(), applied to the patterns for all three
runtimes alike (documented there and in docs/conformance.md).

Usage:
  run_gcc_tsan.py --build BUILD                      # ours only, check known failures
  run_gcc_tsan.py --build BUILD --table docs/conformance.md
                   # + gcc's and clang's TSan, and the adversarial cases
                   # (tests/conformance/adversarial) under ours and both TSans
  options: --jobs N (2), --filter REGEX (on the variant name), --keep,
           --known FILE, --notes FILE, -v
Exit status: 1 when a variant of ours fails that is not in known_failures.txt,
or a known failure passes (the list must shrink), else 0.
"""
import argparse
import concurrent.futures
import datetime
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import gcc_source

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = "gcc-12.2.0/gcc/testsuite"
SUITES = [  # directory, file glob, languages it is compiled as (tsan.exp)
    ("c-c++-common/tsan", "*.c", ("c", "c++")),
    ("g++.dg/tsan", "*.C", ("c++",)),
    ("gcc.dg/tsan", "*.c", ("c",)),
]
TORTURE = ["-O0", "-O2"]
COMPILERS = {  # label: (language, family, driver)
    "gcc": ("c", "gcc", "gcc"),
    "g++": ("c++", "gcc", "g++"),
    "clang": ("c", "clang", "clang"),
    "clang++": ("c++", "clang", "clang++"),
}
TARGET_TRIPLET = "x86_64-pc-linux-gnu"
EFFECTIVE_TARGETS = {"pthread": True, "lp64": True, "native": True, "fsanitize_thread": True}
RUN_TIMEOUT = 60
BUILD_TIMEOUT = 120

# gcc-only options the tests use, as clang spells them (None: dropped; they
# only steer gcc's optimiser or its dumps)
CLANG_OPTION_MAP = {
    "-fno-ipa-modref": None,
    "-fno-ipa-pure-const": None,
    "-fno-inline-functions-called-once": None,
    "-fdump-tree-gimple": None,
    "-fdump-tree-optimized": None,
    "--param=tsan-distinguish-volatile=1": ["-mllvm", "-tsan-distinguish-volatile=1"],
    "--param=tsan-instrument-func-entry-exit=0": ["-mllvm", "-tsan-instrument-func-entry-exit=0"],
}


# --------------------------------------------------------------------------
# Tcl: just enough of it to read DejaGnu directives the way Tcl does


class TclError(Exception):
    pass


_BS = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _backslash(s, i):
    """Tcl backslash substitution of s[i:] (s[i] == '\\'): (text, next i)"""
    c = s[i + 1] if i + 1 < len(s) else ""
    if c in _BS:
        return _BS[c], i + 2
    if c == "\n":
        j = i + 2
        while j < len(s) and s[j] in " \t":
            j += 1
        return " ", j
    if c and c in "01234567":
        m = re.match(r"[0-7]{1,3}", s[i + 1:])
        return chr(int(m.group(0), 8) & 0xFF), i + 1 + len(m.group(0))
    if c == "x":
        m = re.match(r"[0-9a-fA-F]+", s[i + 2:])
        if m:
            return chr(int(m.group(0)[-2:], 16)), i + 2 + len(m.group(0))
    if c == "u":
        m = re.match(r"[0-9a-fA-F]{1,4}", s[i + 2:])
        if m:
            return chr(int(m.group(0), 16)), i + 2 + len(m.group(0))
    if c == "":
        return "\\", i + 1
    return c, i + 2


def tcl_words(s, substitute=True):
    """Split a Tcl command into its words, as Tcl parses a command: braced
    words are literal, quoted and bare words get backslash substitution.
    With substitute=True, '$' or an unescaped '[' (variable and command
    substitution, which no directive here needs) is an error.  With
    substitute=False it splits a Tcl list (also with backslash substitution,
    where '$' and '[' are plain characters)."""
    words, i, n = [], 0, len(s)
    while True:
        while i < n and s[i] in " \t\n\r":
            i += 1
        if i >= n:
            return words
        if s[i] == "{":
            depth, j = 1, i + 1
            while j < n and depth:
                if s[j] == "\\":
                    j += 2
                    continue
                depth += {"{": 1, "}": -1}.get(s[j], 0)
                j += 1
            if depth:
                raise TclError("unbalanced braces in %r" % s)
            words.append(s[i + 1:j - 1])
            i = j
        elif s[i] == '"':
            out, j = [], i + 1
            while j < n and s[j] != '"':
                if s[j] == "\\":
                    t, j = _backslash(s, j)
                    out.append(t)
                    continue
                if substitute and s[j] in "$[":
                    raise TclError("Tcl substitution (%r) in %r" % (s[j], s))
                out.append(s[j])
                j += 1
            if j >= n:
                raise TclError("unterminated quote in %r" % s)
            words.append("".join(out))
            i = j + 1
        else:
            out, j = [], i
            while j < n and s[j] not in " \t\n\r":
                if s[j] == "\\":
                    t, j = _backslash(s, j)
                    out.append(t)
                    continue
                if substitute and s[j] in "$[":
                    raise TclError("Tcl substitution (%r) in %r" % (s[j], s))
                out.append(s[j])
                j += 1
            words.append("".join(out))
            i = j


def tcl_list(s):
    return tcl_words(s, substitute=False)


def tcl_regex_to_python(pat):
    """A Tcl ARE (as 'regexp -- PAT' uses it) as a compiled Python regex:
    Tcl's '.' and negated brackets match newlines, and ^/$ anchor only at the
    ends of the string: re.DOTALL without re.MULTILINE.  The ARE escapes
    Python lacks are translated; the rest of the syntax used here (groups,
    alternation, brackets, bounds, \\? \\( \\. escapes) is common to both."""
    ares = {r"\m": r"\b(?=\w)", r"\M": r"\b(?<=\w)", r"\y": r"\b", r"\Y": r"\B", r"\Z": r"\Z",
            r"\A": r"\A"}
    out, i = [], 0
    while i < len(pat):
        if pat[i] == "\\" and i + 1 < len(pat):
            two = pat[i:i + 2]
            out.append(ares.get(two, two))
            i += 2
        else:
            out.append(pat[i])
            i += 1
    return re.compile("".join(out), re.DOTALL)


# --------------------------------------------------------------------------
# Report format: TSan's versus ours.  THE place where patterns are translated.

# functions that TSan intercepts and prints as frame #0 of an access or a
# thread creation made inside them (its stacks are unwound from inside the
# interceptor); ours show them only in access stacks, for direct calls
INTERCEPTED = (r"(?:(?:__GI_)?__)?(?:pthread_\w+|free|malloc|calloc|realloc|close|write|read|pipe|"
               r"sleep|usleep|nanosleep|mem\w+|str\w+|sem_\w+|operator delete|operator new)")
_FRAME_ELEM = re.compile(r"^(\(?)    #(\d|\(\d(?:\|\d)*\)|\[\d+\])( .*)$", re.DOTALL)
_INTERCEPTED_ELEM = re.compile(r"^\(?    #(?:\d|\(\d(?:\|\d)*\)|\[\d+\]) \(?"
                               r"(?:\(\(__GI_\)\?__\)\?)?" + INTERCEPTED +
                               r"\b", re.DOTALL)


def _frame_numbers(tok):
    return sorted({int(d) for d in re.findall(r"\d", tok)})


def translate_output_patterns(elements):
    """dg-output elements (after Tcl substitution) -> elements to concatenate
    and match, with TSan's report format widened to also accept ours.  The
    same translated pattern is used for every runtime, so each of the three
    is judged by the same rule.  Translations (format only, no information):

    T1 columns: ours (and clang's symbolizer) print file:LINE:COLUMN where
       gcc's libtsan prints file:LINE.  After a line number that follows a
       source file name or ')', an optional ':[0-9]+' is accepted.
    T2 thread headers: TSan prints 'Thread T1 (tid=N, running) created by',
       ours 'Thread T1 created by' (no OS tid, no running/finished state).
       The parenthesised part is made optional.
    T3 interceptor frames: TSan shows the intercepted function (free,
       pthread_create, pthread_mutex_lock, close, ...) as frame #0 and its
       caller as #1; ours do too for an access made by an interceptor the
       program calls directly, but creation and allocation stacks start at
       the caller.  An element for an
       intercepted frame becomes optional, and the numbers of the frame
       elements after it in the same stack also accept one less
       (#1 -> #[01], #(1|2) -> #[012]).
    T4 frees: TSan reports a deallocation as a write ('Previous write of size
       8' with '#0 free' or '#0 operator delete' under it); ours says 'free'.
       Such a 'write' header also accepts 'free'.

    Not translated, because our reports do not carry the information (so such
    a test fails, with the reason in known_failures.txt): 'As if synchronized
    via sleep'."""
    out, shift = [], False
    for i, e in enumerate(elements):
        # T4
        if re.match(r"^  (?:Previous )?write of size", e, re.I) and i + 1 < len(elements) and \
                re.match(r"^\(?    #0 (?:free|operator delete)\b", elements[i + 1]):
            e = re.sub(r"^  (Previous )?([Ww])rite", lambda m: "  %s(?:%s|%s)" % (
                m.group(1) or "", m.group(2) + "rite", "free" if m.group(1) else "Free"), e)
        # T1
        e = re.sub(r"((?:\.[cChH]|\)):(?:\d+|\[0-9\]\+))", r"\1(?::[0-9]+)?", e)
        # T2
        e = re.sub(r"^(  Thread T\d+ )(\\\(tid=.*?\\\)|\(\.\*\)) created by",
                   r"\1(?:\2 )?created by", e)
        # T3
        m = _FRAME_ELEM.match(e)
        if m and _INTERCEPTED_ELEM.match(e):
            out.append("(?:" + e + ")?")
            shift = True
            continue
        if m and shift:
            nums = _frame_numbers(m.group(2))
            allowed = sorted(set(nums) | {n - 1 for n in nums if n > 0})
            e = "%s    #[%s]%s" % (m.group(1), "".join(map(str, allowed)), m.group(3))
        elif not m:
            shift = False
        out.append(e)
    return out


# --------------------------------------------------------------------------
# DejaGnu directives

# dg.exp's dg-get-options: the lines it picks, and how it splits them
_DG_LINE = re.compile(r"\{[ \t]+dg-[-a-z]+[ \t]+.*[ \t]+\}")
_DG_SPLIT = re.compile(r"\{[ \t]+(dg-[-a-z]+)[ \t]+(.*)[ \t]+\}[^}]*$")


def eval_selector(sel):
    """gcc's target selector list body, e.g. '{ *-*-linux* } && pthread'"""
    import fnmatch
    words = tcl_list(sel)

    def atom(w):
        w = w.strip()
        if re.search(r"\s", w):
            return eval_selector(w)
        if w.count("-") >= 2 or "*" in w:
            return fnmatch.fnmatchcase(TARGET_TRIPLET, w)
        return EFFECTIVE_TARGETS.get(w, False)

    if not any(w in ("&&", "||", "!") for w in words):
        return any(atom(w) for w in words)
    # expression: '!' binds tightest, then &&, then ||
    pos = 0

    def unary():
        nonlocal pos
        if words[pos] == "!":
            pos += 1
            return not unary()
        pos += 1
        return atom(words[pos - 1])

    def conj():
        nonlocal pos
        v = unary()
        while pos < len(words) and words[pos] == "&&":
            pos += 1
            v = unary() and v
        return v

    v = conj()
    while pos < len(words) and words[pos] == "||":
        pos += 1
        v = conj() or v
    return v


def selector_applies(sel):
    """'target SEL' / 'xfail SEL' (a Tcl list) -> whether it selects us"""
    w = tcl_list(sel)
    if not w:
        return True
    if w[0] in ("target", "xfail"):
        return eval_selector(" ".join("{%s}" % x for x in w[1:]))
    raise TclError("selector %r" % sel)


def parse_directives(path):
    """The test's directives as DejaGnu reads them: [(line, cmd, [args])]"""
    res = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not _DG_LINE.search(line):
                continue
            m = _DG_SPLIT.search(line)
            if not m:
                continue
            res.append((ln, m.group(1), tcl_words(m.group(2))))
    return res


class Test:
    """One test file with its directives evaluated for one set of torture
    flags and one compiler family"""

    def __init__(self, path, family, torture):
        self.path = path
        self.do = "run"
        self.extra = []          # dg-options
        self.additional = []     # dg-additional-options
        self.sources = []        # dg-additional-sources
        self.shouldfail = False
        self.env = {}
        self.output = []         # dg-output elements
        self.output_xfail = False
        self.errors = []         # dg-error patterns that apply at line 0 or any line
        self.skip = None
        self.unknown = []
        flags = [torture]
        for ln, cmd, args in parse_directives(path):
            if cmd == "dg-do":
                if len(args) < 2 or selector_applies(args[1]):
                    self.do = args[0]
                elif len(args) >= 2 and tcl_list(args[1])[0] == "target":
                    self.skip = "dg-do target selector excludes %s" % TARGET_TRIPLET
            elif cmd == "dg-options":
                if len(args) < 2 or selector_applies(args[1]):
                    self.extra = args[0].split()
            elif cmd == "dg-additional-options":
                if len(args) < 2 or selector_applies(args[1]):
                    self.additional += args[0].split()
            elif cmd == "dg-additional-sources":
                self.sources += args[0].split()
            elif cmd == "dg-shouldfail":
                if len(args) < 2 or selector_applies(args[1]):
                    self.shouldfail = True
            elif cmd == "dg-set-target-env-var":
                self.env[args[0]] = args[1]
            elif cmd == "dg-output":
                if len(args) >= 2:
                    w = tcl_list(args[1])
                    if w[0] == "target" and not selector_applies(args[1]):
                        continue
                    if w[0] == "xfail" and selector_applies(args[1]):
                        self.output_xfail = True
                self.output.append(args[0])
            elif cmd == "dg-error":
                if len(args) < 3 or selector_applies(args[2]):
                    self.errors.append(args[0])
            elif cmd == "dg-skip-if":
                sel = selector_applies("target {%s}" % args[1]) if len(args) > 1 else True
                inc = tcl_list(args[2]) if len(args) > 2 else ["*"]
                exc = tcl_list(args[3]) if len(args) > 3 else [""]
                allflags = flags + self.extra + self.additional

                def match(pats):
                    import fnmatch
                    return any(p == "*" or any(fnmatch.fnmatchcase(f, p) for f in allflags)
                               for p in pats if p)

                if sel and match(inc) and not match(exc):
                    self.skip = "dg-skip-if for %s" % " ".join(flags)
            elif cmd in ("dg-final", "dg-warning", "dg-bogus", "dg-prune-output"):
                pass  # compiler output and dumps; see the module docstring
            else:
                self.unknown.append(cmd)

    def expectation(self):
        if self.do == "compile":
            return "compile" + (" (gcc error expected)" if self.errors else "")
        if self.do == "link":
            return "link"
        what = "report" if self.shouldfail else "clean"
        if self.output:
            heads = [o for o in self.output if "WARNING: ThreadSanitizer:" in o or
                     o.startswith("ThreadSanitizer:")]
            kind = ""
            if heads:
                m = re.search(r"ThreadSanitizer: ([a-z][-a-z ]*[a-z])", heads[0])
                kind = m.group(1) if m else ""
            what += (": " + kind if kind and self.shouldfail else "") + \
                " + %d output pattern%s" % (len(self.output), "s" if len(self.output) > 1 else "")
        return what


# --------------------------------------------------------------------------
# Reports in TSan-like text (TSan's and ours with --tsan-header)

_WARN = re.compile(r"^WARNING: ThreadSanitizer: (.+?)(?: \(pid=\d+\))?\s*$", re.M)
_ACCESS = re.compile(r"^  (?:Previous )?(?:[Aa]tomic )?(?:[Rr]ead|[Ww]rite|[Ff]ree)\b.* by (?:main )?thread")


def frame_function(line):
    m = re.match(r"^\s+#\d+ (.+)$", line)
    if not m:
        return None, None
    body = m.group(1)
    # strip '(module+0x..)' and '(BuildId: ..)', then the location
    body = re.sub(r" \(BuildId: \w+\)$", "", body)
    body = re.sub(r" \([^()]*\+0x[0-9a-f]+\)$", "", body)
    loc = None
    lm = re.search(r" (\S+:\d+(?::\d+)?|<null>|\?\?:0|\S+\.so[.\d]*)$", body)
    if lm:
        loc = lm.group(1)
        body = body[:lm.start()]
    fn = re.sub(r"\(.*$", "", body).strip()   # C++ argument lists
    fn = re.sub(r"^(?:void|int|bool|char|long|unsigned) ", "", fn)
    return fn, loc


def parse_reports(text):
    """[{kind, access: [fn0, fn0]}] where fn0 is the function of the first
    frame of each access outside the sanitizer runtime (TSan's interceptor
    frames: free, operator delete, pthread_*, close, ...), else frame #0"""
    reports = []
    blocks = re.split(r"^==================\s*$", text, flags=re.M)
    for b in blocks:
        m = _WARN.search(b)
        if not m:
            continue
        kind = m.group(1).strip()
        accesses, cur = [], None
        for line in b.splitlines():
            if _ACCESS.match(line):
                cur = []
                accesses.append(cur)
                continue
            if cur is not None:
                if re.match(r"^\s+#\d+ ", line):
                    cur.append(frame_function(line))
                    continue
                if line.strip() == "" or not line.startswith("    "):
                    cur = None
        names = []
        for frames in accesses[:2]:
            user = [fn for fn, loc in frames if loc and loc != "<null>" and not
                    re.search(r"sanitizer|compiler-rt|/tsan_\w+\.(?:cpp|cc|h)|\.so\b", loc)]
            names.append(user[0] if user else (frames[0][0] if frames else "?"))
        reports.append({"kind": kind, "access": names})
    return reports


def summarize(reports):
    """'race Thread1/Thread2' etc., deduplicated, in order"""
    seen, out = set(), []
    for r in reports:
        kind = {"data race": "race", "heap-use-after-free": "use-after-free"}.get(r["kind"], r["kind"])
        s = kind + (" " + "/".join(sorted(r["access"])) if r["access"] else "")
        if s not in seen:
            seen.add(s)
            out.append(s)
    return "; ".join(out) if out else "no report"


# --------------------------------------------------------------------------
# Building and running one variant under one runtime


# files the tests #include from outside the tsan directories
INCLUDED = ["g++.dg/pr69667.C", "gcc.c-torture/compile/pr89280.c"]


def check_includes(tmp):
    """every relative #include of the extracted tests must resolve"""
    for d, pat, _ in SUITES:
        for path in glob.glob(os.path.join(tmp, TOP, d, pat)):
            for inc in re.findall(r'^#include "([^"]+)"', open(path, errors="replace").read(), re.M):
                if not os.path.exists(os.path.join(os.path.dirname(path), inc)):
                    print("warning: %s includes %s, not extracted" % (path, inc), file=sys.stderr)


def extract(cache):
    """extract the tests once into CACHE"""
    members = ["%s/%s/*" % (TOP, d) for d, _, _ in SUITES] + ["%s/%s" % (TOP, f) for f in INCLUDED]
    gcc_source.extract(cache, members, check_includes)


def variants(cache, name_filter):
    out = []
    for d, pat, langs in SUITES:
        for path in sorted(glob.glob(os.path.join(cache, TOP, d, pat))):
            for comp, (lang, family, _) in COMPILERS.items():
                if lang not in langs:
                    continue
                for opt in TORTURE:
                    name = "%s/%s [%s %s]" % (d, os.path.basename(path), comp, opt)
                    if name_filter and not re.search(name_filter, name):
                        continue
                    out.append({"name": name, "test": "%s/%s" % (d, os.path.basename(path)),
                                "path": path, "compiler": comp, "opt": opt, "lang": lang,
                                "family": family})
    return out


def compile_options(t, family):
    opts = ["-fsanitize=thread", "-g", ] + t.extra + t.additional
    if family == "clang":
        mapped = []
        for o in opts:
            if o in CLANG_OPTION_MAP:
                mapped += CLANG_OPTION_MAP[o] or []
            else:
                mapped.append(o)
        opts = mapped
    return opts


def run_variant(v, runtime, build, workroot, keep):
    """runtime: 'ours' or 'tsan' (the compiler's own runtime)"""
    t = Test(v["path"], v["family"], v["opt"])
    res = {"name": v["name"], "runtime": runtime, "expect": t.expectation(), "notes": []}
    if t.skip:
        res.update(status="UNSUPPORTED", reason=t.skip)
        return res
    if t.unknown:
        res.update(status="FAIL", reason="unknown directives " + " ".join(t.unknown))
        return res
    work = os.path.join(workroot, runtime, re.sub(r"[^A-Za-z0-9_.+-]+", "_", v["name"]))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    lang, family, driver = COMPILERS[v["compiler"]]
    env = dict(os.environ)
    if runtime == "ours":
        if lang == "c++":
            cmd = [os.path.join(build, "bin", "dacce-c++")]
            env["DACCE_CXX"] = driver
        else:
            cmd = [os.path.join(build, "bin", "dacce-cc")]
            env["DACCE_CC"] = driver
    else:
        cmd = [driver]
    srcdir = os.path.dirname(v["path"])
    srcs = [v["path"]] + [os.path.join(srcdir, s) for s in t.sources]
    if lang == "c++" and v["path"].endswith(".c"):
        srcs = ["-x", "c++"] + srcs + ["-x", "none"]
    opts = [v["opt"]] + compile_options(t, family)
    if t.do == "compile":
        out = os.path.join(work, "out.s")
        cmd += ["-S"] + opts + srcs + ["-o", out]
    else:
        out = os.path.join(work, "prog")
        cmd += opts + srcs + ["-o", out]
    b = subprocess.run(cmd, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=BUILD_TIMEOUT)
    blog = b.stdout.decode(errors="replace")
    res["build_cmd"] = " ".join(cmd)
    errors = t.errors if family == "gcc" else []
    if t.do in ("compile", "link"):
        if errors:
            ok = b.returncode != 0 and all(re.search(e, blog) for e in errors)
            res.update(status="PASS" if ok else "FAIL",
                       reason="" if ok else "expected gcc error %r" % errors)
        else:
            res.update(status="PASS" if b.returncode == 0 else "FAIL",
                       reason="" if b.returncode == 0 else "build failed: " + first_error(blog))
        if not keep:
            shutil.rmtree(work, ignore_errors=True)
        return res
    if b.returncode != 0:
        res.update(status="FAIL", reason="build failed: " + first_error(blog), races="-")
        with open(os.path.join(work, "build.txt"), "w") as f:
            f.write(res["build_cmd"] + "\n" + blog)
        return res
    renv = dict(os.environ)
    renv.pop("TSAN_OPTIONS", None)
    if runtime == "ours":
        run = [os.path.join(build, "bin", "dacce-race"), "--tsan-header"]
        for k, val in t.env.items():
            if k != "TSAN_OPTIONS":
                renv[k] = val
                continue
            for kv in val.replace(":", " ").split():
                key, _, value = kv.partition("=")
                if key == "halt_on_error" and value not in ("0", "false"):
                    run.append("--halt-on-error")
                else:
                    res["notes"].append("TSAN_OPTIONS %s ignored" % kv)
        run += ["--", out]
    else:
        renv.update(t.env)
        run = [out]
    t0 = time.time()
    try:
        r = subprocess.run(run, cwd=work, env=renv, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=RUN_TIMEOUT)
        output, rc = r.stdout.decode(errors="replace"), r.returncode
    except subprocess.TimeoutExpired as e:
        output, rc = (e.stdout or b"").decode(errors="replace"), "timeout"
    res["seconds"] = round(time.time() - t0, 2)
    res["exit"] = rc
    reports = parse_reports(output)
    res["reports"] = reports
    res["races"] = summarize(reports)
    has_report = bool(_WARN.search(output))
    status = "pass" if rc == 0 else "fail"
    if t.shouldfail:
        status = {"pass": "fail", "fail": "pass"}[status]
    reason = ""
    if rc == "timeout":
        reason = "timed out after %ds" % RUN_TIMEOUT
    elif t.shouldfail and not has_report:
        reason = "no report (exit %s)" % rc
    elif not t.shouldfail and has_report:
        reason = "unexpected report: %s (exit %s)" % (res["races"], rc)
    elif status != "pass":
        reason = "exit status %s" % rc
    elif t.output:
        elems = translate_output_patterns(t.output)
        if not tcl_regex_to_python("".join(elems)).search(output):
            if t.output_xfail:
                res["notes"].append("output pattern xfail")
            else:
                k = 0
                while k < len(elems) and tcl_regex_to_python("".join(elems[:k + 1])).search(output):
                    k += 1
                reason = "output pattern #%d not matched: %r" % (k + 1, t.output[k])
    res["status"] = "FAIL" if reason else "PASS"
    res["reason"] = reason
    if reason or keep:
        with open(os.path.join(work, "output.txt"), "w") as f:
            f.write(output)
        res["output_file"] = os.path.join(work, "output.txt")
        if not keep:
            os.unlink(out)
    else:
        shutil.rmtree(work, ignore_errors=True)
    return res


def first_error(log):
    for line in log.splitlines():
        if re.search(r"\berror\b|undefined reference|multiple definition", line):
            return line.strip()[:200]
    return (log.strip().splitlines() or ["?"])[-1][:200]


def _job(args):
    try:
        return run_variant(*args)
    except Exception as e:  # a harness problem is a failure with its reason
        v, runtime = args[0], args[1]
        return {"name": v["name"], "runtime": runtime, "status": "FAIL",
                "reason": "harness: %s: %s" % (type(e).__name__, e), "notes": [], "expect": "?"}


# --------------------------------------------------------------------------
# Adversarial cases (tests/conformance/adversarial) for the table: ours through
# run_adversarial.py (the verdict the ctest uses), TSan built and run directly
# (what it reports)

ADV_DIR = os.path.join(HERE, "adversarial")


def adversarial_cases():
    return sorted(glob.glob(os.path.join(ADV_DIR, "*.c")) + glob.glob(os.path.join(ADV_DIR, "*.cc")))


def adversarial_job(src, family, runtime, build):
    name = "adversarial/%s [%s -O1]" % (os.path.basename(src), family)
    res = {"name": name, "runtime": runtime, "case": os.path.basename(src), "family": family}
    if runtime == "ours":
        r = subprocess.run([sys.executable, os.path.join(HERE, "run_adversarial.py"), "--build",
                            build, "--src", src, "--cc", family, "--opt", "O1"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=600)
        out = r.stdout.decode(errors="replace")
        known = "KNOWN FAILURE" in out
        res["status"] = "FAIL" if known or r.returncode else "PASS"
        res["reason"] = "known failure" if known else ("" if r.returncode == 0 else
                                                        out.strip().splitlines()[-1][:120])
        return res
    cxx = src.endswith(".cc")
    driver = {"gcc": "g++" if cxx else "gcc", "clang": "clang++" if cxx else "clang"}[family]
    with tempfile.TemporaryDirectory() as tmp:
        for line in open(src):
            m = re.search(r"BUILD-SHARED:\s*(\S+)\s+(\S+)", line)
            if m:
                subprocess.run([family, "-fsanitize=thread", "-g", "-O1", "-shared", "-fPIC",
                                os.path.join(ADV_DIR, m.group(1)), "-o",
                                os.path.join(tmp, m.group(2))], check=True)
        exe = os.path.join(tmp, "prog")
        subprocess.run([driver, "-fsanitize=thread", "-g", "-O1", src, "-o", exe, "-ldl"],
                       check=True)
        env = dict(os.environ)
        env.pop("TSAN_OPTIONS", None)
        try:
            r = subprocess.run([exe], cwd=tmp, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=RUN_TIMEOUT)
            out = r.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            out = "timed out"
    reports = parse_reports(out)
    res["races"] = summarize(reports)
    extra = []
    if "failed to restore the stack" in out:
        extra.append("failed to restore the stack")
    m = re.search(r"ThreadSanitizer: (starting new threads after multi-threaded fork[^.]*)", out)
    if m:
        extra.append("child died: " + m.group(1))
    deepest = max((len(re.findall(r"^\s+#\d+ ", b, re.M)) for b in
                   re.split(r"^  (?:Previous|Thread|Location)", out, flags=re.M)), default=0)
    res["detail"] = "; ".join(extra)
    res["frames"] = deepest
    res["status"] = "INFO"
    return res


def _adv_job(args):
    try:
        return adversarial_job(*args)
    except Exception as e:
        return {"name": "adversarial/%s [%s -O1]" % (os.path.basename(args[0]), args[1]),
                "runtime": args[2], "case": os.path.basename(args[0]), "family": args[1],
                "status": "FAIL", "reason": "harness: %s" % e}


def case_summary(src):
    """the first sentence of the case's header comment"""
    text = open(src).read()
    m = re.search(r"/\*\s*\S+:\s*(.*?)(?:\.\s|\n \*\n)", text, re.S) or \
        re.search(r"//\s*\S+:\s*(.*?)(?:\.\s|\n//\n)", text, re.S)
    return re.sub(r"\s*\n\s*(?:\*|//)?\s*", " ", m.group(1)).strip().rstrip(":") if m else ""


# --------------------------------------------------------------------------
# Known failures and notes: 'name: text' lines; in names '*' is a wildcard


def read_name_list(path):
    entries = []
    if not path or not os.path.exists(path):
        return entries
    with open(path) as f:
        for ln, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            name, sep, text = line.partition("]: ")
            if not sep:
                name, sep, text = line.partition(": ")
            else:
                name += "]"
            rx = re.compile("^" + ".*".join(re.escape(p) for p in name.strip().split("*")) + "$")
            entries.append({"line": ln, "name": name.strip(), "rx": rx, "text": text.strip()})
    return entries


def lookup(entries, name):
    return [e for e in entries if e["rx"].match(name)]


def check_known(results, known):
    """-> list of problems (unexpected failures, known failures that pass)"""
    problems = []
    ours = [r for r in results if r["runtime"] == "ours"]
    for r in ours:
        if r["status"] == "FAIL" and not lookup(known, r["name"]):
            problems.append("UNEXPECTED FAIL: %s: %s" % (r["name"], r["reason"]))
    for e in known:
        matched = [r for r in ours if e["rx"].match(r["name"]) and r["status"] != "UNSUPPORTED"]
        if not matched or e["text"].startswith("FLAKY:"):
            continue  # not run this time (filtered), or timing-dependent
        passing = [r["name"] for r in matched if r["status"] == "PASS"]
        if passing:
            problems.append("KNOWN FAILURE NOW PASSES (line %d '%s'): %s -- remove or narrow it" %
                            (e["line"], e["name"], ", ".join(passing)))
    return problems


# --------------------------------------------------------------------------
# The table


def cell(rs):
    """results of one column (both torture options) -> table cell"""
    rs = [r for r in rs if r]
    if not rs:
        return ""

    def one(r):
        if r["status"] == "UNSUPPORTED":
            return "unsupported"
        s = "pass" if r["status"] == "PASS" else "**FAIL**"
        if r.get("races") and r["races"] != "-":
            s += ": " + r["races"]
        elif r["status"] == "FAIL":
            s += ": " + short_reason(r["reason"])
        return s

    texts = [one(r) for r in rs]
    if len(set(texts)) == 1:
        return texts[0]
    return "<br>".join("%s %s" % (r["name"].split()[-1].rstrip("]"), t) for r, t in zip(rs, texts))


def short_reason(reason):
    if reason.startswith("build failed"):
        return "build failed"
    if reason.startswith("output pattern"):
        return reason.split(":")[0]
    return reason[:60]


def differential(ours, tsan):
    """compare ours with one TSan run of the same variant"""
    if not ours or not tsan or "reports" not in ours or "reports" not in tsan:
        return None
    def key(r):
        return {(x["kind"], tuple(sorted(x["access"]))) for x in r["reports"]}
    a, b = key(ours), key(tsan)
    if a == b:
        return "same" if len(ours["reports"]) <= len(tsan["reports"]) else "same, more reports"
    if not a:
        return "TSan only"
    if not b:
        return "ours only"
    if {k for k, _ in a} == {k for k, _ in b} and b <= a:
        return "ours more"
    return "differs"


def write_table(path, results, known, notes, elapsed, adv=()):  # noqa: C901
    by = {(r["name"], r["runtime"]): r for r in results}
    names = sorted({r["name"] for r in results})
    rows = {}
    for n in names:
        test = n.split(" [")[0]
        comp, opt = n.split(" [")[1].rstrip("]").split()
        lang = COMPILERS[comp][0]
        rows.setdefault((test, lang), {}).setdefault(comp, []).append(n)

    def counts(runtime, family):
        rs = [r for r in results if r["runtime"] == runtime and
              COMPILERS[r["name"].split(" [")[1].split()[0]][1] == family and
              r["status"] != "UNSUPPORTED"]
        return sum(r["status"] == "PASS" for r in rs), len(rs)

    diffs = {}
    for n in names:
        comp = n.split(" [")[1].split()[0]
        d = differential(by.get((n, "ours")), by.get((n, "tsan")))
        if d:
            diffs.setdefault(d, []).append(n)

    L = []
    L.append("# Conformance: gcc 12's ThreadSanitizer testsuite")
    L.append("")
    L.append("Generated by `tests/conformance/run_gcc_tsan.py --build build --table "
             "docs/conformance.md` (do not edit by hand; %s, %.0f s on %d cores)." %
             (datetime.date.today().isoformat(), elapsed, os.cpu_count() or 0))
    L.append("")
    L.append("Every test of `gcc/testsuite/{c-c++-common,g++.dg,gcc.dg}/tsan` (gcc 12.2.0, "
             "Debian `gcc-12-source`) is built at `-O0` and `-O2` (tsan.exp's torture options) "
             "with gcc and clang (`c-c++-common` as C and as C++) and run three ways: with our "
             "runtime (`dacce-cc`/`dacce-c++`, run under `dacce-race --tsan-header`), with gcc's "
             "libtsan (`gcc -fsanitize=thread`) and with clang's runtime "
             "(`clang -fsanitize=thread`).  Each run is judged by the test's own DejaGnu "
             "directives (`dg-do`, `dg-options`, `dg-shouldfail`, `dg-output`, "
             "`dg-set-target-env-var`, ...), as `tests/conformance/run_gcc_tsan.py` describes, "
             "with two rules stricter than DejaGnu: a `dg-shouldfail` test must print a report "
             "(a crash does not pass) and any other test must print none.")
    L.append("")
    L.append("Report format differences are translated in one place, "
             "`translate_output_patterns()`, for all three runtimes alike: **T1** `file:LINE` "
             "also accepts `file:LINE:COLUMN`; **T2** `Thread T1 (tid=N, running) created by` "
             "also accepts `Thread T1 created by`; **T3** a frame of an intercepted function "
             "(`#0 free`, `#0 pthread_create`, ...) is optional and the frames after it may be "
             "numbered one less (our creation and allocation stacks start at the "
             "interceptor's caller); **T4** a "
             "`Previous write` whose frame #0 is `free` or `operator delete` also accepts "
             "`Previous free` (TSan models a free as a write).  Information our reports "
             "lack ('As if synchronized via sleep') is not translated: those tests fail, and "
             "are listed in `tests/conformance/known_failures.txt` with the reason.")
    L.append("")
    L.append("## Pass counts")
    L.append("")
    L.append("| runtime | built with gcc/g++ | built with clang/clang++ |")
    L.append("|---|---|---|")
    for runtime, label in (("ours", "dacce-race (ours)"), ("tsan", "ThreadSanitizer")):
        g, c = counts(runtime, "gcc"), counts(runtime, "clang")
        if g[1] or c[1]:
            L.append("| %s | %d / %d | %d / %d |" % (label, g[0], g[1], c[0], c[1]))
    L.append("")
    L.append("Counted per variant (test x compiler x language x optimisation level); "
             "`unsupported` variants (dg-skip-if) are not counted.  The ThreadSanitizer row is "
             "gcc's libtsan for the gcc column and clang's runtime for the clang column.")
    flaky = [e for e in known if e["text"].startswith("FLAKY:")]
    nf = {fam: sum(1 for r in results if r["runtime"] == "ours" and
                   any(e["rx"].match(r["name"]) for e in flaky) and
                   COMPILERS[r["name"].split(" [")[1].split()[0]][1] == fam)
          for fam in ("gcc", "clang")}
    if any(nf.values()):
        L.append("")
        L.append("The counts of ours include %d (gcc) and %d (clang) variants of a test known to "
                 "be flaky (`FLAKY:` in the known failures), so they vary by up to that many "
                 "between runs." % (nf["gcc"], nf["clang"]))
    L.append("")
    if diffs:
        L.append("## Differential summary (ours against the TSan of the same compiler)")
        L.append("")
        L.append("Per run variant: the set of (report kind, racing functions) of ours against "
                 "TSan's.  A racing function is that of the first frame of each access in the "
                 "test's own source (TSan's frame #0 may be an interceptor).")
        L.append("")
        L.append("| comparison | variants |")
        L.append("|---|---|")
        for d in ("same", "same, more reports", "ours more", "differs", "TSan only", "ours only"):
            if d in diffs:
                L.append("| %s | %d |" % (d, len(diffs[d])))
        L.append("")
        L.append("Explanations (from `known_failures.txt` and `differential_notes.txt`; the "
                 "brackets list the compilers of the differing variants):")
        L.append("")
        for d in ("TSan only", "ours only", "differs", "ours more", "same, more reports"):
            if d not in diffs:
                continue
            L.append("- **%s**" % d)
            tests = {}
            for n in diffs[d]:
                tests.setdefault(n.split(" [")[0], []).append(n)
            for t, ns in sorted(tests.items()):
                comps = sorted({n.split(" [")[1].split()[0] for n in ns},
                               key=list(COMPILERS).index)
                texts = []
                for n in ns:
                    entries = lookup(notes, n) if d == "same, more reports" else \
                        lookup(known, n) + lookup(notes, n)
                    for e in entries:
                        if e["text"] not in texts:
                            texts.append(e["text"])
                L.append("  - `%s` [%s]: %s" % (t, ", ".join(comps), " Also: ".join(texts)
                                                or "(no explanation recorded)"))
        L.append("")
    L.append("## Results")
    L.append("")
    L.append("Cells: the verdict, then what was reported (`race f/g`: a data race between "
             "accesses in f and g; a cell splits by `-O0`/`-O2` when they differ).")
    L.append("")
    L.append("| test | lang | expectation | ours (gcc) | gcc TSan | ours (clang) | clang TSan | note |")
    L.append("|---|---|---|---|---|---|---|---|")
    for (test, lang), comps in sorted(rows.items()):
        gcc_c = "gcc" if lang == "c" else "g++"
        cl_c = "clang" if lang == "c" else "clang++"
        gnames, cnames = comps.get(gcc_c, []), comps.get(cl_c, [])
        exp = next((by[(n, rt)]["expect"] for n in gnames + cnames for rt in ("ours", "tsan")
                    if (n, rt) in by), "")
        note = []
        for n in gnames + cnames:
            for e in lookup(known, n) + lookup(notes, n):
                if e["text"] not in note:
                    note.append(e["text"])
            for rt in ("ours",):
                r = by.get((n, rt))
                for x in (r or {}).get("notes", []):
                    if x not in note:
                        note.append(x)
        L.append("| `%s` | %s | %s | %s | %s | %s | %s | %s |" % (
            test, "C" if lang == "c" else "C++", exp,
            cell([by.get((n, "ours")) for n in gnames]),
            cell([by.get((n, "tsan")) for n in gnames]),
            cell([by.get((n, "ours")) for n in cnames]),
            cell([by.get((n, "tsan")) for n in cnames]),
            "<br>".join(note).replace("|", "\\|")))
    L.append("")
    if adv:
        L.append("## Adversarial cases of our own")
        L.append("")
        L.append("`tests/conformance/adversarial/`, with expectations in the header comments "
                 "(`tests/racedet/run_case.py`'s format, plus `EXPECT-ABSENT:` and "
                 "`BUILD-SHARED:`), checked by `tests/conformance/run_adversarial.py` (ctest: "
                 "`conformance_adv_*`, gcc and clang at -O1 and -O2).  Here at -O1; the TSan "
                 "columns say what ThreadSanitizer reports for the same program (frames: the "
                 "longest stack it printed).")
        L.append("")
        L.append("| case | what it does | ours (gcc) | ours (clang) | gcc TSan | clang TSan | note |")
        L.append("|---|---|---|---|---|---|---|")
        av = {(r["case"], r["family"], r["runtime"]): r for r in adv}
        for src in adversarial_cases():
            c = os.path.basename(src)

            def ours(fam):
                r = av.get((c, fam, "ours"))
                if not r:
                    return ""
                if r["status"] == "PASS":
                    return "pass"
                e = lookup(known, r["name"])
                return "**FAIL** (known: %s)" % e[0]["text"].split(":")[0] if e else \
                    "**FAIL**: " + r.get("reason", "")

            def tsan(fam):
                r = av.get((c, fam, "tsan"))
                if not r:
                    return ""
                if r["status"] == "FAIL":
                    return r.get("reason", "")
                t = r["races"]
                if r["races"] != "no report" and r.get("frames"):
                    t += " (%d frames)" % r["frames"]
                return t + ("; " + r["detail"] if r.get("detail") else "")

            note = [e["text"] for e in lookup(notes, "adversarial/%s [gcc -O1]" % c)]
            L.append("| `%s` | %s | %s | %s | %s | %s | %s |" % (
                c, case_summary(src).replace("|", "\\|"), ours("gcc"), ours("clang"),
                tsan("gcc"), tsan("clang"), "<br>".join(note).replace("|", "\\|")))
        L.append("")
    L.append("## Known failures")
    L.append("")
    L.append("From `tests/conformance/known_failures.txt` (the conformance tests fail when a "
             "failure is not listed there, and when a listed one passes):")
    L.append("")
    for e in known:
        L.append("- `%s`: %s" % (e["name"], e["text"]))
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L))


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", required=True, help="the CMake build directory")
    ap.add_argument("--table", help="also run gcc's and clang's TSan and write this markdown table")
    ap.add_argument("--known", default=os.path.join(HERE, "known_failures.txt"))
    ap.add_argument("--notes", default=os.path.join(HERE, "differential_notes.txt"))
    ap.add_argument("--jobs", "-j", type=int, default=2)
    ap.add_argument("--filter", help="regex on variant names")
    ap.add_argument("--runtimes", default=None, help="ours,tsan (default: ours; with --table both)")
    ap.add_argument("--json", help="write all results as JSON to this file")
    ap.add_argument("--keep", action="store_true", help="keep binaries and outputs")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    cache = os.path.join(build, "conformance", "gcc-tsan")
    extract(cache)
    # a directory of this run's own (concurrent runs share the build tree);
    # at the end it becomes BUILD/conformance/last-run, with the outputs of
    # the failures (and everything with --keep)
    workroot = tempfile.mkdtemp(prefix="run-", dir=os.path.join(build, "conformance"))
    runtimes = (a.runtimes or ("ours,tsan" if a.table else "ours")).split(",")
    vs = variants(cache, a.filter)
    jobs = [(v, rt, build, workroot, a.keep) for v in vs for rt in runtimes]
    t0 = time.time()
    results = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as ex:
        for r in ex.map(_job, jobs):
            results.append(r)
            if a.verbose or (r["status"] == "FAIL" and r["runtime"] == "ours"):
                print("%-4s %-11s %-58s %s %s" % (r["runtime"], r["status"], r["name"],
                                                   r.get("races", ""), r.get("reason", "")),
                      flush=True)
    adv = []
    if a.table and not a.filter:
        adv_jobs = [(src, fam, rt, build) for src in adversarial_cases()
                    for fam in ("gcc", "clang") for rt in ("ours", "tsan")]
        with concurrent.futures.ProcessPoolExecutor(max_workers=a.jobs) as ex:
            adv = list(ex.map(_adv_job, adv_jobs))
        for r in adv:
            if a.verbose:
                print("%-4s %-11s %-58s %s %s" % (r["runtime"], r["status"], r["name"],
                                                   r.get("races", ""), r.get("reason", "")))
    elapsed = time.time() - t0
    last = os.path.join(build, "conformance", "last-run")
    shutil.rmtree(last, ignore_errors=True)
    try:
        os.rename(workroot, last)
        print("outputs of failing variants: %s" % last)
    except OSError:
        shutil.rmtree(workroot, ignore_errors=True)
    known = read_name_list(a.known)
    notes = read_name_list(a.notes)
    for rt in runtimes:
        for fam in ("gcc", "clang"):
            rs = [r for r in results if r["runtime"] == rt and r["status"] != "UNSUPPORTED" and
                  COMPILERS[r["name"].split(" [")[1].split()[0]][1] == fam]
            if rs:
                print("%s, built with %s: %d / %d pass" % (
                    "dacce-race" if rt == "ours" else fam + " TSan", fam,
                    sum(r["status"] == "PASS" for r in rs), len(rs)))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if a.table:
        write_table(a.table, results, known, notes, elapsed, adv)
        print("wrote", a.table)
    problems = check_known(results, known) if "ours" in runtimes else []
    for p in problems:
        print(p)
    print("%.0f s; %s" % (elapsed, "FAILED: %d problem(s)" % len(problems) if problems else
                          "OK (every failure of ours is a known failure)"))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
