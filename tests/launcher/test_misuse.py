#!/usr/bin/env python3
"""test_misuse.py BUILD_DIR [gcc|clang]: mutex misuse through the launcher
(misuse_prog.c: a destroy of a held mutex, an unlock of one never locked,
which the main thread holds: the report names it).

Text: ThreadSanitizer's titles, what the thread did with the call's stack
(the interceptor frame, the program's line), where it had taken the mutex,
the thread's creation, a SUMMARY at the call.  JSON: misuse, mutex, thread,
frames and held_frames.  SARIF: the mutex-misuse rule, valid against the
schema (when python3-jsonschema is there).  Suppressions: mutex: matches,
race: and deadlock: do not.  Off with --report-mutex-bugs=0, TSAN_OPTIONS
and the program's own __tsan_default_options.
"""
import json
import os
import re

from lrtest import HERE, Test, check_option_off, mark, run_with_outputs, section

t = Test("launcher_misuse")
SRC = os.path.join(HERE, "misuse_prog.c")
src = os.path.realpath(SRC)
prog = t.build(SRC, f"misuse_prog_{t.cc}")
m = {k: mark(k, SRC) for k in ("lock", "destroy", "unlock", "spawn")}

r, by_title, jreps, run = run_with_outputs(t, prog, 66, "finished", 2)
destroy = by_title.get("WARNING: dacce-race: destroy of a locked mutex")
unlock = by_title.get("WARNING: dacce-race: unlock of an unlocked mutex (or by a wrong thread)")
t.check(destroy and unlock, "both titles", "\n".join(by_title))
if destroy:
    text = "\n".join(destroy)
    call = section(destroy, r"^  Destroy of mutex M1 \(0x[0-9a-f]+\) by thread T1, which holds it:$")
    t.check([f[0] for f in call[:3]] == ["pthread_mutex_destroy", "close_job", "worker"] and
            call[1][1:] == (src, m["destroy"]), "destroy: the call's stack", text)
    held = section(destroy, r"^  Mutex M1 previously acquired by the same thread here:$")
    t.check([f[0] for f in held[:3]] == ["pthread_mutex_lock", "start_job", "worker"] and
            held[1][1:] == (src, m["lock"]), "destroy: where the thread took it", text)
    created = section(destroy, r"^  Thread T1 created by main thread at:$")
    t.check(any(f[0] == "main" and f[2] == m["spawn"] for f in created), "destroy: T1's creation",
            text)
    t.check(re.search(r"^SUMMARY: dacce-race: destroy of a locked mutex " + re.escape(src) +
                      rf":{m['destroy']}:\d+ in close_job$", text, re.M) is not None,
            "destroy: SUMMARY line", text)
if unlock:
    text = "\n".join(unlock)
    call = section(unlock, r"^  Unlock of mutex M1 \(0x[0-9a-f]+\) by thread T1, which does not "
                           r"hold it \(main thread does\):$")
    t.check([f[0] for f in call[:2]] == ["pthread_mutex_unlock", "release_spare"] and
            call[1][1:] == (src, m["unlock"]), "unlock: the call's stack", text)
    t.check("previously acquired" not in text, "unlock: no held stack", text)

jreps = {j.get("misuse"): j for j in jreps}
t.check(sorted(jreps) == ["destroy-held", "unlock-not-held"], f"JSON misuses {sorted(jreps)}")
for what, j in jreps.items():
    t.check(j.get("kind") == "mutex-misuse" and j.get("mutex") == "M1" and
            [x["id"] for x in j.get("mutexes", [])] == ["M1"] and j.get("thread") == 1,
            f"JSON {what}: kind, mutex, thread", json.dumps(j)[:1500])
    t.check(("held_frames" in j) == (what == "destroy-held"), f"JSON {what}: held_frames")
    t.check(j.get("holder") == (0 if what == "unlock-not-held" else None),
            f"JSON {what}: holder {j.get('holder')}")
    t.check(j.get("summary", "").startswith(("destroy of a locked mutex ", "unlock of an unlocked")),
            f"JSON {what}: summary {j.get('summary')!r}")

rules = [x["id"] for x in run["tool"]["driver"]["rules"]]
res = run["results"]
t.check(len(res) == 2 and all(x["ruleId"] == "mutex-misuse" and rules[x["ruleIndex"]] ==
                              "mutex-misuse" for x in res), "SARIF: two mutex-misuse results",
        json.dumps([(x["ruleId"], x["ruleIndex"]) for x in res]))
d = [x for x in res if x["message"]["text"].startswith("Destroy of a locked mutex: thread T1 in "
                                                        "close_job")]
u = [x for x in res if x["message"]["text"].startswith("Unlock of an unlocked mutex")]
t.check(len(u) == 1 and u[0]["message"]["text"].endswith(", while main thread holds it."),
        "SARIF: the unlock names the holder", json.dumps(u)[:1000])
t.check(len(d) == 1 and d[0]["locations"][0]["physicalLocation"]["region"]["startLine"] ==
        m["destroy"] and len(d[0].get("relatedLocations", [])) == 1,
        "SARIF: the destroy at its line, the lock related", json.dumps(res)[:3000])

for line, hides in (("mutex:close_job", True), ("mutex:start_job", True), ("race:close_job", False),
                    ("deadlock:close_job", False)):
    supp = os.path.join(t.tmp, "supp.txt")
    with open(supp, "w") as f:
        f.write(line + "\n")
    r = t.run(["--suppressions", supp, prog])
    t.check(("destroy of a locked mutex" in r.stderr) != hides,
            f"suppression {line} {'hides' if hides else 'keeps'} the destroy report", r.stderr)
    t.check("unlock of an unlocked mutex" in r.stderr, f"suppression {line} keeps the unlock")

check_option_off(t, SRC, prog, "report_mutex_bugs", "mutex")

t.finish()
