#!/usr/bin/env python3
"""test_deadlock.py BUILD_DIR [gcc|clang]: lock-order inversions through the
launcher (deadlock_prog.c).

Text: the cycle line, per edge the stack where the thread asked for its
lock and where it took the one it held (each with the lock call's
interceptor frame, every inlined wrapper as its own frame: none folded as
recursion, and the program's lines), the threads' creation, a SUMMARY at
the first edge's lock call.  JSON: the cycle's edges, mutex ids and
threads.  SARIF: the lock-order-inversion rule, the result at one edge,
the other related, a flow per stack, valid against the SARIF 2.1.0
schema (when python3-jsonschema is there).  Suppressions: deadlock: and thread:
match it, race: does not.  Off with --detect-deadlocks=0, TSAN_OPTIONS, and
the program's own __tsan_default_options.
"""
import json
import os
import re

from lrtest import HERE, Test, check_option_off, mark, python_with_jsonschema, section, text_reports, validate_sarif

t = Test("launcher_deadlock")
SRC = os.path.join(HERE, "deadlock_prog.c")
src = os.path.realpath(SRC)
prog = t.build(SRC, f"deadlock_prog_{t.cc}")
m = {k: mark(k, SRC) for k in ("lock-call", "a-first", "b-second", "b-first", "a-second", "spawn")}

# ---------------------------------------------------------------- text
js = os.path.join(t.tmp, "r.jsonl")
sarif = os.path.join(t.tmp, "r.sarif")
r = t.run(["--json", js, "--sarif", sarif, prog])
t.check_status(r, 66, "inversion")
t.check_in("turns 2", r.stdout, "the program ran to its end")
reps = text_reports(r.stderr)
t.check(len(reps) == 1, f"{len(reps)} text reports, expected 1", r.stderr)
if reps:
    rep = reps[0]
    text = "\n".join(rep)
    t.check(re.match(r"WARNING: dacce-race: lock-order-inversion \(potential deadlock\) "
                     r"\(pid=\d+\)$", rep[0]) is not None, "header line", rep[0])
    t.check_in(re.compile(r"^  Cycle in lock order graph: M1 \(0x[0-9a-f]+\) => M2 "
                          r"\(0x[0-9a-f]+\) => M1$", re.M), text, "cycle line")
    t.check("recursive calls" not in text, "inlined wrappers are not folded as recursion", text)
    for fn, held_line, wanted_line in (("a_then_b", m["a-first"], m["b-second"]),
                                       ("b_then_a", m["b-first"], m["a-second"])):
        for head, line in ((r"^  Mutex M\d acquired here while holding mutex M\d in thread T\d:$",
                            wanted_line),
                           (r"^  Mutex M\d previously acquired by the same thread here:$", held_line)):
            # the edge whose stacks are fn's
            stacks = []
            on = None
            for ln in rep:
                if re.search(head, ln):
                    on = []
                    stacks.append(on)
                elif on is not None:
                    if re.match(r"\s+#\d+ ", ln):
                        on.append(ln)
                    else:
                        on = None
            mine = [s for s in stacks if any(f" {fn} " in x for x in s)]
            t.check(len(mine) == 1, f"{fn}: one stack under '{head}'", text)
            if not mine:
                continue
            names = [x.split()[1] for x in mine[0]]
            want = ["pthread_mutex_lock", "grab", "grab_checked", "grab_logged", "grab_traced", fn]
            t.check(names[:6] == want, f"{fn}: frames {names[:6]}, expected the interceptor, "
                    f"four inlined wrappers, {fn}", "\n".join(mine[0]))
            t.check(any(f"{src}:{m['lock-call']}:" in x for x in mine[0][1:2]),
                    f"{fn}: grab at deadlock_prog.c:{m['lock-call']}", "\n".join(mine[0]))
            t.check(any(f" {fn} {src}:{line}:" in x for x in mine[0]),
                    f"{fn}: at deadlock_prog.c:{line}", "\n".join(mine[0]))
    for tid in (1, 2):
        created = section(rep, rf"^  Thread T{tid} created by main thread at:$")
        t.check(any(f[0] == "spawn_and_join" and f[2] == m["spawn"] for f in created),
                f"thread T{tid} created at deadlock_prog.c:{m['spawn']}", text)
    t.check(re.search(r"^SUMMARY: dacce-race: lock-order-inversion \(potential deadlock\) " +
                      re.escape(src) + rf":{m['lock-call']}:\d+ in grab$", text, re.M)
            is not None, "SUMMARY line", text)

# ---------------------------------------------------------------- JSON
with open(js) as f:
    jreps = [json.loads(line) for line in f if line.strip()]
t.check(len(jreps) == 1, f"{len(jreps)} JSON reports, expected 1")
if jreps:
    j = jreps[0]
    t.check(j.get("kind") == "lock-order-inversion", f"JSON kind {j.get('kind')}")
    cyc = j.get("cycle", [])
    t.check(len(cyc) == 2 and cyc[0]["to"] == cyc[1]["from"] and cyc[1]["to"] == cyc[0]["from"],
            "JSON: a cycle of two edges", json.dumps(cyc)[:2000])
    t.check(sorted(x["id"] for x in j.get("mutexes", [])) == ["M1", "M2"], "JSON: mutexes M1 M2",
            json.dumps(j.get("mutexes")))
    tids = {x["id"] for x in j.get("threads", [])}
    t.check(all(e["thread"] in tids for e in cyc), "JSON: each edge's thread described")
    t.check(all(e["frames"][0]["function"] == "pthread_mutex_lock" and
                e["held_frames"][0]["function"] == "pthread_mutex_lock" for e in cyc),
            "JSON: both stacks of each edge start at the lock call")
    t.check(j.get("summary", "").startswith("lock-order-inversion (potential deadlock) "),
            f"JSON summary {j.get('summary')!r}")

# ---------------------------------------------------------------- SARIF
py = python_with_jsonschema()
if py:  # (test_sarif skips without python3-jsonschema; here only this check)
    v = validate_sarif(py, sarif)
    t.check(v.returncode == 0, "valid SARIF 2.1.0", v.stdout + v.stderr)
with open(sarif) as f:
    log = json.load(f)
run = log["runs"][0]
rules = [x["id"] for x in run["tool"]["driver"]["rules"]]
t.check("lock-order-inversion" in rules, f"SARIF rules {rules}")
res = run["results"]
t.check(len(res) == 1, f"{len(res)} SARIF results, expected 1")
if res and "lock-order-inversion" in rules:
    x = res[0]
    t.check(x["ruleId"] == "lock-order-inversion" and rules[x["ruleIndex"]] == x["ruleId"],
            f"SARIF rule {x['ruleId']} index {x['ruleIndex']}")
    t.check(x["message"]["text"].startswith("Lock-order inversion (potential deadlock): M1 => M2 "
                                            "=> M1; thread T"), x["message"]["text"])
    loc = x["locations"][0]["physicalLocation"]
    t.check(loc["region"]["startLine"] == m["lock-call"], "SARIF location at the lock call",
            json.dumps(loc))
    t.check(len(x.get("relatedLocations", [])) == 1, "SARIF: the other edge related")
    flows = x["codeFlows"][0]["threadFlows"]
    t.check(len([f for f in flows if f["id"].startswith("edge-")]) == 4,
            "SARIF: a flow per stack of each edge", json.dumps([f["id"] for f in flows]))
    t.check("dacceRace/v1" in x.get("partialFingerprints", {}), "SARIF fingerprint")

# ---------------------------------------------------------------- suppressions
for line, hides in (("deadlock:b_then_a", True), ("deadlock:grab_checked", True),
                    ("thread:spawn_and_join", True), ("race:b_then_a", False),
                    ("deadlock:no_such_function", False)):
    supp = os.path.join(t.tmp, "supp.txt")
    with open(supp, "w") as f:
        f.write(line + "\n")
    r = t.run(["--suppressions", supp, prog])
    t.check_status(r, 0 if hides else 66, f"suppression {line}")
    t.check(("lock-order-inversion" in r.stderr) != hides,
            f"suppression {line} {'hides' if hides else 'keeps'} the report", r.stderr)

# ---------------------------------------------------------------- off
check_option_off(t, SRC, prog, "detect_deadlocks", "lock-order-inversion")
r = t.run(["--detect-deadlocks=0", prog], env={"TSAN_OPTIONS": "detect_deadlocks=1"})
t.check_status(r, 0, "the command line over TSAN_OPTIONS")

t.finish()
