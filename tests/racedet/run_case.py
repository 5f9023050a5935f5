#!/usr/bin/env python3
"""Build one program with dacce-cc/dacce-c++, run it under dacce-race --json,
and check the expectations written in its header comment:

  EXPECT: clean | race | heap-use-after-free | thread-leak | lock-order-inversion |
          mutex-misuse | signal-unsafe-call | signal-errno
  EXPECT-CURRENT: f g h      functions on the current access's stack,
  EXPECT-PREVIOUS: f g h     innermost first, as a subsequence; a|b = either
  EXPECT-LOCATION: kind [name]
  EXPECT-CREATION: f g ...   walking the current thread's creators: the
                             function that created each, innermost first
  EXPECT-THREADS: N          at least N threads with a creator in the report
  EXPECT-STDOUT: text        the program's standard output contains text
  EXPECT-MUTEXES: n m        the two accesses held n and m mutexes (either order)
  EXPECT-HELD-NAMED: f       in every report, the access whose innermost frame
                             is f held exactly the mutexes that the location's
                             global name lists after its last '_', each
                             letter z the mutex whose creation stack starts
                             in take_z (x_ab: two, x_0: none)
  EXPECT-NAMES: a b          the two racing threads are named a and b
                             (pthread_setname_np; either order)
  EXPECT-EVERY: N name [by]  each of the functions name_0 .. name_<N-1> is the
                             innermost frame with a source line of the
                             program's (not an intercepted function's, nor
                             a system header's) of a stack of some report of the
                             expected kind (every one of N races was found);
                             with by, every stack whose innermost frame is
                             name_<k> has by_<k> below it
  EXPECT-MERGED: f           the access whose top frame is f was merged with
                             others of f into one shadow cell: its JSON says
                             pc_merged, its line is the one marked
                             MERGED-FIRST in the source (the first of them),
                             the other access's does not, and the text report
                             carries the runtime's note
  EXPECT-EXACT: f            the access whose top frame is f was not merged
                             with others (no pc_merged)
  EXPECT-ABSENT: f           no frame of either access is f (no stale
                             frame of a function that has returned)
  EXPECT-OBJECT-TYPE: t      the location names the object's type t (the
                             external-race API's tag)
  EXPECT-PREVIOUS-AT: n k    the access whose stack EXPECT-PREVIOUS names was
                             of n bytes at offset k of its 8-byte granule
  EXPECT-MUTEX-CREATION: f   every mutex the report names has a creation
                             stack, and some has f as its innermost frame
  EXPECT-VPTR: yes           the current access is to a vptr (a "data race on
                             vptr": a destructor against a virtual call)
  EXPECT-COUNT: N            exactly N reports of the expected kind
  EXPECT-SIMILAR: N          a thread leak's count of similar leaks (the
                             leaked thread is the "current" one for
                             EXPECT-CREATION; a leak has no accesses)
  EXPECT-ALLOCATION: f g     the heap block's allocation frames, innermost
                             first, as a subsequence; the first of them is
                             at the line marked ALLOC-HERE
  (FREE-HERE)                marks the line of a heap-use-after-free's free:
                             the previous access's first frame of the first
                             EXPECT-PREVIOUS function is there
  (CREATE-HERE)              marks the lines that create threads: each racing
                             thread with a creator has a creation frame at one
  EXPECT-CYCLE: N            a lock-order inversion's cycle has N edges, of
                             N different threads
  EXPECT-WANTED: f g         each function is on the stack where a different
                             edge of the cycle asked for its lock
                             (EXPECT-EVERY: the innermost frame with a
                             source line of each misuse report's call)
  EXPECT-HELD: f g           ... where a different edge took the lock it held
                             (a lock-order inversion's current thread, for
                             EXPECT-CREATION, is its first edge's)
  EXPECT-MISUSE: what        a mutex misuse's kind (unlock-not-held, double-lock,
                             destroy-held); its call's stack is the "current"
                             one (EXPECT-CURRENT, EXPECT-CREATION), where the
                             thread took the mutex EXPECT-HELD's
  EXPECT-HOLDER: f           an unlock's holder (another thread holding the
                             mutex) was created by function f
  EXPECT-SIGNAL: name        a signal handler's bug is in the handler of signal
                             name (SIGUSR1); its stack (the call's, or the
                             handler's over where the signal arrived) is the
                             "current" one (EXPECT-CURRENT, EXPECT-CREATION)
  EXPECT-CALLED: f|g         the unsafe call's function (malloc, operator new)
  EXPECT-ERRNO: a b          errno before and after the handler
  EXPECT-INTERRUPTED: f      f is on a stack, below a signal handler's frames,
                             and every frame of f is at a line marked
                             INTERRUPTED-HERE in the source (where the
                             signal arrived, not f's first line)
  EXPECT-OPTIONS: --a=1 ...  run under these dacce-race options too (runtime
                             options forwarded: --slot-epochs=64)
  EXPECT-STDERR: text        dacce-race's standard error contains text
  EXPECT-STDERR-LACKS: text  ... and does not contain text
  EXPECT-CFLAGS: -std=c11    build the program with these compiler flags too
                             (a strict standard: glibc's headers then name
                             other functions, __sysv_signal for signal)
  EXPECT-PRELOAD: file.c     build file.c (relative to the program's
                             directory) as an uninstrumented shared library
                             and preload it (LD_PRELOAD): a shim that makes
                             a rare interleaving of libc calls certain

For a data race, which access is "current" depends on scheduling, so the two
stacks may match in either order; for use-after-free the current access is
the use.  Exit 0 when everything holds, 1 with the reason otherwise.

--capture MODE runs under the runtime option capture=MODE (an ablation,
racedet/capture.c; --cflags adds compiler flags, -fno-omit-frame-pointer for
stackwalk): every report must then say so (JSON "capture", the text's note),
and EXPECT-CREATION is not checked under stackwalk (no thread ancestry).
--repeat N runs the built program N times, each checked (scheduling-dependent
bugs).
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile


KNOWN = {"KIND", "CURRENT", "PREVIOUS", "LOCATION", "CREATION", "THREADS", "STDOUT",
         "MUTEXES", "HELD-NAMED", "NAMES", "EVERY", "MERGED", "EXACT", "ABSENT", "OBJECT-TYPE",
         "PREVIOUS-AT",
         "MUTEX-CREATION", "VPTR", "COUNT", "SIMILAR", "ALLOCATION", "PRELOAD", "CYCLE",
         "WANTED", "HELD", "MISUSE", "HOLDER",
         "SIGNAL", "CALLED", "ERRNO", "INTERRUPTED", "OPTIONS", "STDERR", "STDERR-LACKS",
         "CFLAGS"}


def expectations(src):
    exp = {}
    with open(src) as f:
        for n, line in enumerate(f, 1):
            m = re.search(r"EXPECT(-[A-Z][A-Z-]*)?:\s*(.*?)\s*(\*/)?$", line)
            if m:
                exp[(m.group(1) or "")[1:] or "KIND"] = m.group(2).split()
            if "MERGED-FIRST" in line:
                exp["MERGED_LINE"] = n
            if "ALLOC-HERE" in line:
                exp["ALLOC_LINE"] = n
            if "FREE-HERE" in line:
                exp["FREE_LINE"] = n
            if "CREATE-HERE" in line:
                exp.setdefault("CREATE_LINES", []).append(n)
            if "INTERRUPTED-HERE" in line:
                exp.setdefault("INTERRUPTED_LINES", []).append(n)
    if "KIND" not in exp:
        sys.exit(f"{src}: no EXPECT: line")
    unknown = sorted(k for k in exp if k not in KNOWN and not k.endswith(("_LINE", "_LINES")))
    # the marked lines are this file's (a frame at that line of a header, or
    # of another source of the program, is not the one marked)
    exp["_FILE"] = os.path.basename(src)
    if unknown:  # a misspelt expectation would otherwise check nothing
        sys.exit(f"{src}: unknown expectation EXPECT-{unknown[0]}")
    return exp


def base_name(fn):
    """'ns::Circle::draw() const' -> 'ns::Circle::draw'; 'f.isra.0' -> 'f'."""
    if not fn:
        return ""
    fn = re.sub(r"\(.*$", "", fn)
    fn = re.sub(r"\.(isra|constprop|part|cold|lto_priv)\b.*$", "", fn)
    return fn.strip()


def name_matches(token, fn):
    b = base_name(fn)
    return any(b == alt or b.endswith("::" + alt) or (alt.startswith("main") and b == "main")
               for alt in token.split("|"))


def stack_has(tokens, frames):
    """tokens appear in frames (innermost first) as a subsequence"""
    names = [f.get("function") or "" for f in frames]
    i = 0
    for n in names:
        if i < len(tokens) and name_matches(tokens[i], n):
            i += 1
    return i == len(tokens)


def check_report(rep, exp):
    if rep["kind"] == "thread-leak":
        return check_leak(rep, exp)
    if rep["kind"] == "lock-order-inversion":
        return check_cycle(rep, exp)
    if rep["kind"] == "mutex-misuse":
        return check_misuse(rep, exp)
    if rep["kind"] in ("signal-unsafe-call", "signal-errno"):
        return check_signal(rep, exp)
    why = []
    cur, prev = rep["current"]["frames"], rep["previous"]["frames"]
    want_cur, want_prev = exp.get("CURRENT", []), exp.get("PREVIOUS", [])
    direct = stack_has(want_cur, cur) and stack_has(want_prev, prev)
    swapped = rep["kind"] == "data-race" and stack_has(want_cur, prev) and stack_has(want_prev, cur)
    if not (direct or swapped):
        why.append("stacks do not match: current=%s previous=%s" % (
            [f.get("function") for f in cur], [f.get("function") for f in prev]))
    if exp.get("FREE_LINE") and want_prev:
        at = next(((os.path.basename(f.get("file") or ""), f.get("line")) for f in prev
                   if name_matches(want_prev[0], f.get("function") or "")), None)
        if at != (exp["_FILE"], exp["FREE_LINE"]):
            why.append("free at %s, expected %s:%s (FREE-HERE)" % (at, exp["_FILE"],
                                                                  exp["FREE_LINE"]))
    if "LOCATION" in exp:
        loc = rep.get("location", {})
        kind = exp["LOCATION"][0]
        if loc.get("kind") != kind:
            why.append(f"location kind {loc.get('kind')!r}, expected {kind!r}")
        if len(exp["LOCATION"]) > 1 and loc.get("name") != exp["LOCATION"][1]:
            why.append(f"location name {loc.get('name')!r}, expected {exp['LOCATION'][1]!r}")
        if kind == "heap" and not loc.get("allocation_frames"):
            why.append("heap location without allocation frames")
    if "ALLOCATION" in exp:
        frames = rep.get("location", {}).get("allocation_frames") or []
        if not stack_has(exp["ALLOCATION"], frames):
            why.append("allocation frames %s, expected %s" % (
                [f.get("function") for f in frames], exp["ALLOCATION"]))
        elif exp.get("ALLOC_LINE"):
            # the innermost frame of the first function named: frames of
            # uninstrumented code that allocated (libstdc++'s string growth)
            # and their inlined callers come before it
            at = next(((os.path.basename(f.get("file") or ""), f.get("line")) for f in frames
                       if name_matches(exp["ALLOCATION"][0], f.get("function") or "")), None)
            if at != (exp["_FILE"], exp["ALLOC_LINE"]):
                why.append("allocation at %s, expected %s:%s (ALLOC-HERE)" % (
                    at, exp["_FILE"], exp["ALLOC_LINE"]))
    if "VPTR" in exp and not rep["current"].get("is_vptr"):
        why.append("the current access is not marked is_vptr")
    why += mutex_creation_why(rep, exp)
    if "MUTEXES" in exp:
        got = sorted([len(rep["current"].get("mutexes", [])), len(rep["previous"].get("mutexes", []))])
        if got != sorted(int(x) for x in exp["MUTEXES"]):
            why.append(f"mutexes held {got}, expected {sorted(exp['MUTEXES'])}")
    threads = {t["id"]: t for t in rep.get("threads", [])}
    if "NAMES" in exp:
        got = sorted((threads.get(rep[side]["thread"]) or {}).get("name", "")
                     for side in ("current", "previous"))
        if got != sorted(exp["NAMES"]):
            why.append(f"threads named {got}, expected {sorted(exp['NAMES'])}")
    if "THREADS" in exp:
        n = sum(1 for t in threads.values() if t.get("parent") is not None)
        if n < int(exp["THREADS"][0]):
            why.append(f"{n} threads with a creator, expected at least {exp['THREADS'][0]}")
    if "MERGED" in exp:
        sides = [s for s in ("current", "previous") if rep[s]["frames"] and
                 name_matches(exp["MERGED"][0], rep[s]["frames"][0].get("function"))]
        if len(sides) != 1:
            why.append(f"no single access with top frame {exp['MERGED'][0]}")
        else:
            acc, other = rep[sides[0]], rep["previous" if sides[0] == "current" else "current"]
            line = acc["frames"][0].get("line")
            if not acc.get("pc_merged"):
                why.append(f"the access in {exp['MERGED'][0]} is not marked pc_merged")
            elif line != exp.get("MERGED_LINE"):
                why.append(f"merged access at line {line}, expected the first, "
                           f"line {exp.get('MERGED_LINE')}")
            if other.get("pc_merged"):
                why.append("the other access is marked pc_merged too")
    if "EXACT" in exp:
        for s in ("current", "previous"):
            fr = rep[s]["frames"]
            if fr and name_matches(exp["EXACT"][0], fr[0].get("function")) and rep[s].get("pc_merged"):
                why.append(f"the {s} access in {exp['EXACT'][0]} is marked pc_merged")
    if "OBJECT-TYPE" in exp:
        got = rep.get("location", {}).get("object_type")
        if got != exp["OBJECT-TYPE"][0]:
            why.append(f"object type {got!r}, expected {exp['OBJECT-TYPE'][0]!r}")
    if "ABSENT" in exp:
        for side in ("current", "previous"):
            names = [f.get("function") or "" for f in rep[side]["frames"]]
            if any(name_matches(t, n) for t in exp["ABSENT"] for n in names):
                why.append(f"the {side} access's frames {names} name {exp['ABSENT']}")
    if "PREVIOUS-AT" in exp:
        side = "current" if swapped and not direct else "previous"
        acc = rep[side]
        want = [int(x) for x in exp["PREVIOUS-AT"]]
        got = [acc.get("size"), int(acc.get("address", "0"), 16) % 8]
        if got != want:
            why.append(f"the {side} access is of {got[0]} bytes at offset {got[1]}, "
                       f"expected {want[0]} at {want[1]}")
    if "INTERRUPTED" in exp:
        frames = [f for side in ("current", "previous") for f in rep[side]["frames"]
                  if name_matches(exp["INTERRUPTED"][0], f.get("function"))]
        lines = exp.get("INTERRUPTED_LINES", [])
        if not frames:
            why.append(f"no frame of {exp['INTERRUPTED'][0]}")
        elif any(f.get("line") not in lines for f in frames):
            why.append("%s at lines %s, expected %s (INTERRUPTED-HERE)" % (
                exp["INTERRUPTED"][0], [f.get("line") for f in frames], lines))
    if "CREATION" in exp:
        why += creation_why(threads, rep["current"]["thread"], exp["CREATION"])
    why += created_at_why(threads, rep, exp)
    return why


def mutex_creation_why(rep, exp):
    if "MUTEX-CREATION" not in exp:
        return []
    ms = rep.get("mutexes", [])
    tops = [(m.get("creation_frames") or [{}])[0].get("function") for m in ms]
    if not ms or not all(m.get("creation_frames") for m in ms) or not any(
            name_matches(exp["MUTEX-CREATION"][0], f or "") for f in tops):
        return [f"mutex creation stacks start at {tops}, expected "
                f"{exp['MUTEX-CREATION'][0]} among them"]
    return []


def held_named_why(rep, exp):
    """EXPECT-HELD-NAMED: the mutexes held by the access in f, against the
    location's name"""
    if "HELD-NAMED" not in exp:
        return []
    f = exp["HELD-NAMED"][0]
    name = rep.get("location", {}).get("name") or ""
    want = sorted(name.rsplit("_", 1)[-1].replace("0", ""))
    creators = {m.get("id"): base_name((m.get("creation_frames") or [{}])[0].get("function"))
                for m in rep.get("mutexes", [])}
    sides = [s for s in ("current", "previous")
             if rep[s]["frames"] and name_matches(f, rep[s]["frames"][0].get("function"))]
    if len(sides) != 1:
        return [f"{len(sides)} accesses with top frame {f}, expected one"]
    got = sorted(creators.get(m.get("id"), "?").replace("take_", "")
                 for m in rep[sides[0]].get("mutexes", []))
    if got != want:
        return [f"{f}'s access to {name!r} held {got}, expected {want}"]
    return []


def creation_why(threads, tid, want):
    """the functions that created tid, its creator, ... against want"""
    chain, seen = [], set()
    while tid in threads and tid not in seen and threads[tid].get("parent") is not None:
        seen.add(tid)
        fr = threads[tid].get("creation_frames") or []
        chain.append(fr[0].get("function") if fr else None)
        tid = threads[tid]["parent"]
    if len(chain) != len(want) or not all(name_matches(t, f) for t, f in zip(want, chain)):
        return [f"creation chain {chain}, expected {want}"]
    return []


def created_at_why(threads, rep, exp):
    """each racing thread that has a creator was created at a line marked
    CREATE-HERE: some frame of its creation stack is there (a thread made
    through libstdc++'s std::thread: the creator's own line, not its
    function's first)"""
    why = []
    if "CREATE_LINES" not in exp:
        return why
    for side in ("current", "previous"):
        tid = (rep.get(side) or {}).get("thread")
        if threads.get(tid, {}).get("parent") is None:
            continue
        fr = threads[tid].get("creation_frames") or []
        if not any(f.get("line") in exp["CREATE_LINES"] and
                   os.path.basename(f.get("file") or "") == exp["_FILE"] for f in fr):
            why.append("thread T%s created at %s, expected a line of %s marked CREATE-HERE %s" % (
                tid, [(f.get("function"), f.get("file"), f.get("line")) for f in fr],
                exp["_FILE"], exp["CREATE_LINES"]))
    return why


def check_leak(rep, exp):
    why = []
    threads = {t["id"]: t for t in rep.get("threads", [])}
    leak = rep.get("leak") or {}
    if "current" in rep or "previous" in rep:
        why.append("a thread leak with accesses")
    if leak.get("thread") not in threads:
        why.append(f"leaked thread {leak.get('thread')} not among the report's threads")
    if "CREATION" in exp:
        why += creation_why(threads, leak.get("thread"), exp["CREATION"])
    if "SIMILAR" in exp and leak.get("similar") != int(exp["SIMILAR"][0]):
        why.append(f"{leak.get('similar')} similar leaks, expected {exp['SIMILAR'][0]}")
    return why


def distinct_edges(tokens, stacks):
    """each token on a different one of stacks (a matching, by backtracking)"""
    def place(i, used):
        if i == len(tokens):
            return True
        return any(k not in used and stack_has([tokens[i]], st) and place(i + 1, used | {k})
                   for k, st in enumerate(stacks))
    return place(0, frozenset())


def check_cycle(rep, exp):
    why = []
    cycle = rep.get("cycle") or []
    threads = {t["id"]: t for t in rep.get("threads", [])}
    if "current" in rep or "previous" in rep:
        why.append("a lock-order inversion with accesses")
    ids = [m["id"] for m in rep.get("mutexes", [])]
    for i, e in enumerate(cycle):  # a cycle: each edge from the lock the last one wanted
        if e.get("from") != cycle[i - 1].get("to") or e.get("from") not in ids:
            why.append(f"edge {i} from {e.get('from')} does not follow {cycle[i - 1].get('to')}")
        if e.get("thread") not in threads:
            why.append(f"edge {i}'s thread {e.get('thread')} not among the report's threads")
        if not e.get("frames") or not e.get("held_frames"):
            why.append(f"edge {i} lacks a stack")
    if len({e.get("thread") for e in cycle}) != len(cycle):
        why.append(f"the cycle's threads are not all different: {[e.get('thread') for e in cycle]}")
    if "CYCLE" in exp and len(cycle) != int(exp["CYCLE"][0]):
        why.append(f"a cycle of {len(cycle)} edges, expected {exp['CYCLE'][0]}")
    for key, field in (("WANTED", "frames"), ("HELD", "held_frames")):
        if key in exp and not distinct_edges(exp[key], [e.get(field) or [] for e in cycle]):
            why.append(f"{field} %s do not hold {exp[key]} on different edges" % (
                [[f.get("function") for f in e.get(field) or []][:4] for e in cycle]))
    if "CREATION" in exp and cycle:
        why += creation_why(threads, cycle[0].get("thread"), exp["CREATION"])
    return why + mutex_creation_why(rep, exp)


def check_misuse(rep, exp):
    why = []
    threads = {t["id"]: t for t in rep.get("threads", [])}
    if "MISUSE" in exp and rep.get("misuse") != exp["MISUSE"][0]:
        why.append(f"misuse {rep.get('misuse')!r}, expected {exp['MISUSE'][0]!r}")
    if [m.get("id") for m in rep.get("mutexes", [])] != ["M1"] or rep.get("mutex") != "M1":
        why.append(f"mutexes {rep.get('mutexes')}, expected M1 alone")
    if rep.get("thread") not in threads:
        why.append(f"thread {rep.get('thread')} not among the report's threads")
    for key, field in (("CURRENT", "frames"), ("HELD", "held_frames")):
        if key in exp and not stack_has(exp[key], rep.get(field) or []):
            why.append(f"{field} {[f.get('function') for f in rep.get(field) or []]}, "
                       f"expected {exp[key]}")
    if "CREATION" in exp:
        why += creation_why(threads, rep.get("thread"), exp["CREATION"])
    if "HOLDER" in exp:
        h = threads.get(rep.get("holder")) or {}
        fr = h.get("creation_frames") or [{}]
        if not name_matches(exp["HOLDER"][0], fr[0].get("function") or ""):
            why.append(f"holder {rep.get('holder')} created in {fr[0].get('function')}, "
                       f"expected {exp['HOLDER'][0]}")
    return why + mutex_creation_why(rep, exp)


def check_signal(rep, exp):
    why = []
    threads = {t["id"]: t for t in rep.get("threads", [])}
    if rep.get("thread") not in threads:
        why.append(f"thread {rep.get('thread')} not among the report's threads")
    if "SIGNAL" in exp and rep.get("signal_name") != exp["SIGNAL"][0]:
        why.append(f"signal {rep.get('signal_name')!r}, expected {exp['SIGNAL'][0]!r}")
    if "CALLED" in exp and rep.get("function") not in " ".join(exp["CALLED"]).split("|"):
        why.append(f"function {rep.get('function')!r}, expected {exp['CALLED']}")
    if "ERRNO" in exp and [rep.get("errno_before"), rep.get("errno_after")] != \
            [int(x) for x in exp["ERRNO"]]:
        why.append(f"errno {rep.get('errno_before')} -> {rep.get('errno_after')}, "
                   f"expected {exp['ERRNO']}")
    if "CURRENT" in exp and not stack_has(exp["CURRENT"], rep.get("frames") or []):
        why.append(f"frames {[f.get('function') for f in rep.get('frames') or []]}, "
                   f"expected {exp['CURRENT']}")
    if "CREATION" in exp:
        why += creation_why(threads, rep.get("thread"), exp["CREATION"])
    return why


def every_missing(reports, n, name, by=None):
    """EXPECT-EVERY: which of name_0 .. name_<n-1> no report has innermost,
    and (by) the stacks where name_<k> is not right above by_<k>"""
    seen, wrong = set(), []
    for rep in reports:
        if rep.get("kind") in ("mutex-misuse", "signal-unsafe-call", "signal-errno"):
            fr = [f for f in rep.get("frames") or [] if f.get("file")]
            if fr:
                seen.add(base_name(fr[0].get("function")))
            continue
        for side in ("current", "previous"):
            # (the innermost frame with a source line of the program's: an
            # intercepted function's own frame, memcpy's, has none, and the
            # inline wrappers of -D_FORTIFY_SOURCE are the system headers')
            fr = [f for f in rep[side]["frames"]
                  if f.get("file") and not f["file"].startswith("/usr/")]
            if fr:
                top = base_name(fr[0].get("function"))
                seen.add(top)
                k = top[len(name) + 1:] if top.startswith(name + "_") else None
                below = base_name(fr[1].get("function")) if len(fr) > 1 else None
                if by and k is not None and below != f"{by}_{k}":
                    wrong.append(f"{top} over {below}")
    missing = [f"{name}_{i}" for i in range(n) if f"{name}_{i}" not in seen]
    why = [f"{len(wrong)} stacks with another caller: {' '.join(wrong[:6])}"] if wrong else []
    if not missing:
        return why
    return why + [f"{len(missing)} of {n} not reported: {' '.join(missing[:12])}"
                  f"{' ...' if len(missing) > 12 else ''}"]


def run_and_check(bindir, exe, exp, js, args=(), cwd=None, extra_why=lambda rep: [], env=None):
    """Run exe under dacce-race --json js (plus args) and check the expectations
    exp; extra_why(report) adds reasons a report does not match.  Returns the
    completed process, the reports and the failures (empty: all hold)."""
    r = subprocess.run([os.path.join(bindir, "dacce-race"), "--json", js] + list(args) +
                       ["--", exe], cwd=cwd, capture_output=True, text=True, timeout=300,
                       env=env)
    reports = []
    if os.path.exists(js):
        with open(js) as f:
            reports = [json.loads(line) for line in f if line.strip()]
    kind = {"race": "data-race"}.get(exp["KIND"][0], exp["KIND"][0])
    fail = []
    if "MERGED" in exp and "(merged: the top frame is the first of several" not in r.stderr:
        fail.append("the text report lacks the note on merged accesses")
    if "STDOUT" in exp and " ".join(exp["STDOUT"]) not in r.stdout:
        fail.append(f"stdout lacks {' '.join(exp['STDOUT'])!r}: {r.stdout[-300:]!r}")
    if "STDERR" in exp and " ".join(exp["STDERR"]) not in r.stderr:
        fail.append(f"stderr lacks {' '.join(exp['STDERR'])!r}")
    if "STDERR-LACKS" in exp and " ".join(exp["STDERR-LACKS"]) in r.stderr:
        fail.append(f"stderr has {' '.join(exp['STDERR-LACKS'])!r}")
    if kind == "clean":
        if r.returncode != 0 or reports:
            fail.append(f"expected clean, got exit {r.returncode} and {len(reports)} reports")
    else:
        if r.returncode != 66:
            fail.append(f"exit status {r.returncode}, expected 66")
        matching = [rep for rep in reports if rep.get("kind") == kind]
        if "COUNT" in exp and len(matching) != int(exp["COUNT"][0]):
            fail.append(f"{len(matching)} {kind} reports, expected {exp['COUNT'][0]}")
        if not matching:
            fail.append(f"no {kind} report among {[x.get('kind') for x in reports]}")
        else:
            whys = [check_report(rep, exp) + extra_why(rep) for rep in matching]
            if not any(not w for w in whys):
                fail.append("no report matches all expectations; closest: " +
                            "; ".join(min(whys, key=len)))
        for rep in matching:  # (of every report, not of one)
            fail += held_named_why(rep, exp)
        if "EVERY" in exp:
            fail += every_missing(matching, int(exp["EVERY"][0]), *exp["EVERY"][1:3])
    return r, reports, fail


def run_once(a, exp, tmp, exe, bindir, run, env=None):
    """One run of exe under dacce-race, checked; exits 1 with the reason."""
    capture = [f"--capture={a.capture}"] if a.capture else []
    r, reports, fail = run_and_check(bindir, exe, exp, os.path.join(tmp, f"reports{run}.jsonl"),
                                     capture + exp.get("OPTIONS", []), env=env)
    if a.capture:
        if any(rep.get("capture") != a.capture for rep in reports):
            fail.append(f"a report does not say capture={a.capture}: "
                        f"{[rep.get('capture') for rep in reports]}")
        if reports and f"[capture={a.capture}: an ablation" not in r.stderr:
            fail.append("the text reports do not name the ablation mode")
    if fail or run == a.repeat - 1:
        print(f"{os.path.basename(a.src)} [{a.cc} -{a.opt}{' ' + a.cflags if a.cflags else ''}"
              f"{' capture=' + a.capture if a.capture else ''}]: {len(reports)} reports, "
              f"exit {r.returncode}" + (f" (run {run + 1} of {a.repeat})" if a.repeat > 1 else ""))
    if fail:
        print("\n".join("FAIL: " + x for x in fail))
        print("--- dacce-race stderr (tail) ---")
        print(r.stderr[-4000:])
        sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--src", required=True)
    ap.add_argument("--cc", default="gcc", choices=["gcc", "clang"])
    ap.add_argument("--opt", default="O1")
    ap.add_argument("--capture", help="runtime option capture (stackwalk, cct)")
    ap.add_argument("--cflags", default="", help="extra compiler flags")
    ap.add_argument("--repeat", type=int, default=1,
                    help="run (and check) the program this many times: a stress test")
    a = ap.parse_args()
    exp = expectations(a.src)
    if a.capture == "stackwalk":
        exp.pop("CREATION", None)
    cxx = a.src.endswith((".cc", ".cpp"))
    bindir = os.path.join(a.build, "bin")
    env = dict(os.environ)
    if cxx:
        wrapper = os.path.join(bindir, "dacce-c++")
        env["DACCE_CXX"] = "g++" if a.cc == "gcc" else "clang++"
    else:
        wrapper = os.path.join(bindir, "dacce-cc")
        env["DACCE_CC"] = a.cc
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "prog")
        flags = a.cflags.split() + exp.get("CFLAGS", [])
        b = subprocess.run([wrapper, "-" + a.opt, "-g"] + flags + [a.src, "-o", exe],
                           env=env, capture_output=True, text=True)
        if b.returncode:
            print(b.stdout + b.stderr)
            sys.exit("build failed")
        run_env = None
        if "PRELOAD" in exp:
            shim = os.path.join(tmp, "shim.so")
            src = os.path.join(os.path.dirname(os.path.abspath(a.src)), exp["PRELOAD"][0])
            b = subprocess.run([a.cc, "-shared", "-fPIC", "-O1", src, "-o", shim, "-ldl"],
                               capture_output=True, text=True)
            if b.returncode:
                print(b.stdout + b.stderr)
                sys.exit("building the preloaded shim failed")
            run_env = dict(os.environ, LD_PRELOAD=shim)
        for run in range(a.repeat):
            run_once(a, exp, tmp, exe, bindir, run, run_env)
        print("PASS")


if __name__ == "__main__":
    main()
