#!/usr/bin/env python3
"""test_signal.py BUILD_DIR [gcc|clang]: signal handlers' bugs through the
launcher (signal_prog.c: a SIGUSR1 handler that calls malloc, a SIGUSR2
handler that leaves errno changed, both on thread T1).

Text: ThreadSanitizer's titles, what the handler did, the stack (the
program's line in the handler, the runtime's delivery frame, the function
the signal interrupted, the thread's start), T1's creation, a SUMMARY at
the handler.  JSON: signal, signal_name, thread, function or errno_before
and errno_after, frames.  SARIF: the signal-unsafe-call and signal-errno
rules, valid against the schema (when python3-jsonschema is there).
Suppressions: signal: and thread: match, race: and mutex: do not.  Off with
--report-signal-unsafe=0, TSAN_OPTIONS and the program's own
__tsan_default_options.
"""
import json
import os
import re

from lrtest import HERE, Test, check_option_off, mark, run_with_outputs, section

t = Test("launcher_signal")
SRC = os.path.join(HERE, "signal_prog.c")
src = os.path.realpath(SRC)
prog = t.build(SRC, f"signal_prog_{t.cc}")
m = {k: mark(k, SRC) for k in ("malloc", "errno", "spawn")}

r, by_title, jreps, run = run_with_outputs(t, prog, 66, "finished", 2)
unsafe = by_title.get("WARNING: dacce-race: signal-unsafe call inside of a signal handler")
spoil = by_title.get("WARNING: dacce-race: signal handler spoils errno")
t.check(unsafe and spoil, "both titles", "\n".join(by_title))
if unsafe:
    text = "\n".join(unsafe)
    call = section(unsafe, r"^  Call of malloc in the handler of signal 10 \(SIGUSR1\) by "
                           r"thread T1:$")
    t.check([f[0] for f in call] == ["remember", "on_usr1", "dacce_deliver_signal", "idle",
                                     "worker"] and call[0][1:] == (src, m["malloc"]),
            "unsafe: the call's stack", text)
    created = section(unsafe, r"^  Thread T1 created by main thread at:$")
    t.check(any(f[0] == "main" and f[2] == m["spawn"] for f in created), "unsafe: T1's creation",
            text)
    t.check(re.search(r"^SUMMARY: dacce-race: signal-unsafe call inside of a signal handler " +
                      re.escape(src) + rf":{m['malloc']}:\d+ in remember$", text, re.M) is not None,
            "unsafe: SUMMARY line", text)
if spoil:
    text = "\n".join(spoil)
    st = section(spoil, r"^  The handler of signal 12 \(SIGUSR2\) in thread T1 changed errno from "
                        r"\d+( \(\w+\))? to 9 \(EBADF\); the handler, then where the signal "
                        r"arrived:$")
    t.check([f[0] for f in st] == ["on_usr2", "idle", "worker"] and st[0][1:] == (src, m["errno"]),
            "errno: the handler over where the signal arrived", text)

jreps = {j.get("kind"): j for j in jreps}
t.check(sorted(jreps) == ["signal-errno", "signal-unsafe-call"], f"JSON kinds {sorted(jreps)}")
u, e = jreps.get("signal-unsafe-call", {}), jreps.get("signal-errno", {})
t.check(u.get("signal") == 10 and u.get("signal_name") == "SIGUSR1" and u.get("thread") == 1 and
        u.get("function") == "malloc" and "errno_after" not in u and
        [f["function"] for f in u.get("frames", [])][:2] == ["remember", "on_usr1"],
        "JSON unsafe: signal, thread, function, frames", json.dumps(u)[:1500])
t.check(e.get("signal") == 12 and e.get("signal_name") == "SIGUSR2" and e.get("thread") == 1 and
        e.get("errno_after") == 9 and isinstance(e.get("errno_before"), int) and
        "function" not in e and [f["function"] for f in e.get("frames", [])][:1] == ["on_usr2"],
        "JSON errno: signal, thread, errno, frames", json.dumps(e)[:1500])
t.check(u.get("summary", "").startswith("signal-unsafe call inside of a signal handler ") and
        e.get("summary", "").startswith("signal handler spoils errno "), "JSON summaries")

rules = [x["id"] for x in run["tool"]["driver"]["rules"]]
res = {x["ruleId"]: x for x in run["results"]}
t.check(sorted(res) == ["signal-errno", "signal-unsafe-call"] and
        all(rules[x["ruleIndex"]] == k for k, x in res.items()), "SARIF: the two rules",
        json.dumps(sorted(res)))
for k, line, level in (("signal-unsafe-call", m["malloc"], "error"),
                       ("signal-errno", m["errno"], "warning")):
    x = res.get(k, {})
    loc = (x.get("locations") or [{}])[0].get("physicalLocation", {})
    t.check(loc.get("region", {}).get("startLine") == line and x.get("level") == level,
            f"SARIF {k}: at its line, level {level}", json.dumps(x)[:1500])
t.check(res.get("signal-unsafe-call", {}).get("message", {}).get("text", "").startswith(
    "Signal-unsafe call inside of a signal handler: thread T1 calls malloc in the handler of "
    "signal 10 (SIGUSR1)"), "SARIF: the unsafe call's message")

for line, hides_unsafe, hides_errno in (("signal:remember", True, False),
                                        ("signal:on_usr2", False, True),
                                        ("signal:idle", True, True),
                                        ("thread:main", True, True),
                                        ("race:remember", False, False),
                                        ("mutex:on_usr2", False, False)):
    supp = os.path.join(t.tmp, "supp.txt")
    with open(supp, "w") as f:
        f.write(line + "\n")
    r = t.run(["--suppressions", supp, prog])
    t.check(("signal-unsafe call" in r.stderr) != hides_unsafe and
            ("spoils errno" in r.stderr) != hides_errno,
            f"suppression {line}: unsafe {'hidden' if hides_unsafe else 'kept'}, errno "
            f"{'hidden' if hides_errno else 'kept'}", r.stderr)

check_option_off(t, SRC, prog, "report_signal_unsafe", "signal")

t.finish()
