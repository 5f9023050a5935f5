#!/usr/bin/env python3
"""test_raw_channel.py BUILD_DIR [gcc|clang]: the report channel.

fake_reports.c writes hand-made lines into the channel dacce-race opens for
the runtime: broken lines of every kind (one warning each, the valid
reports around them still rendered, no crash), a report written in pieces
with pauses, reports from several forked processes at once (the same race:
printed for the first, one line for each repeat from the others), and a report
longer than 64 KiB.  A program that closes the launcher's descriptors and
reuses their numbers (race_prog closefrom) gets no report written into its
own pipes: it opens the launcher's end of the pipe again through /proc
(report_via; the launcher keeps the pipe open until the program ends), so
its reports still come through dacce-race, with source lines, and set the
exit status.
"""
import json
import os
import re

from lrtest import HERE, Test, text_reports

t = Test("launcher_raw_channel")
fake = t.build(os.path.join(HERE, "fake_reports.c"), f"fake_reports_{t.cc}")


def run(mode, *args):
    js = os.path.join(t.tmp, mode + ".jsonl")
    r = t.run(["--json", js, fake, mode, *args])
    with open(js) as f:
        reps = [json.loads(l) for l in f if l.strip()]
    return r, reps


r, reps = run("malformed")
t.check_status(r, 66, "malformed")
m = re.search(r"malformed lines: (\d+)", r.stdout)
t.check(m is not None, "malformed: the program ran", r.stdout)
warnings = re.findall(r"^dacce-race: warning: ignoring a malformed report line \(.+\)$",
                      r.stderr, re.M)
if m:
    n = int(m.group(1))
    t.check(len(warnings) == n, f"malformed: {len(warnings)} warnings for {n} broken lines",
            r.stderr)
    t.check_in(f"dacce-race: warning: {n} report lines could not be read", r.stderr,
               "malformed: closing count")
t.check(len(text_reports(r.stderr)) == 2 and len(reps) == 2,
        "malformed: the two valid reports around the broken ones are rendered", r.stderr)
for rep in reps:
    t.check(rep["current"]["frames"][0]["function"] == "fake_site" and
            rep["previous"]["frames"][0]["function"] == "fake_other",
            "malformed: valid reports symbolised (module /proc/self/exe)", rep)

r, reps = run("split")
t.check_status(r, 66, "split")
t.check(len(reps) == 1 and "warning" not in r.stderr, "split: one report from the pieces",
        r.stderr)

r, reps = run("fork", "4", "25")
t.check_status(r, 66, "fork")
pids = {}
for rep in reps:
    pids[rep["pid"]] = pids.get(rep["pid"], 0) + 1
# the four processes' reports are the same race: the first process's are
# printed, each of the others' gets a line (--report-repeats: not tested
# here, test_trace_children)
notes = re.findall(r"^dacce-race: data-race in fake_site \(\S+\) again, in process (\d+) "
                   r"\([^)]*\): reported above for process (\d+)$", r.stderr, re.M)
again = {}
for pid, first in notes:
    again[int(pid)] = again.get(int(pid), 0) + 1
t.check(len(reps) == 25 and len(pids) == 1 and len(again) == 3 and
        set(again.values()) == {25} and {int(f) for _, f in notes} == set(pids),
        "fork: 25 reports from one process, 25 repeats from each of the 3 others", (pids, again))
t.check("warning" not in r.stderr, "fork: no line damaged", r.stderr[:2000])
t.check(all(len(rep["current"]["frames"]) == 3 and
            all(f["function"] == "fake_site" for f in rep["current"]["frames"]) for rep in reps),
        "fork: every report complete and symbolised")

r, reps = run("huge")
t.check_status(r, 66, "huge")
t.check(len(reps) == 1 and len(reps[0]["current"]["frames"]) == 1200,
        "huge: a 1200-frame report (> 64 KiB raw) read whole", [len(x["current"]["frames"]) for x in reps])

# ---------------------------------------------------------------- a lost channel
prog = t.race_prog()
r = t.run([prog, "closefrom"])
t.check_status(r, 66, "closefrom: the races still decide the exit status")
t.check_in("pipes clean", r.stdout, "closefrom: nothing written into the program's own pipes")
t.check("follow as text" not in r.stderr,
        "closefrom: the runtime opened the launcher's pipe again (report_via)", r.stderr)
reps = text_reports(r.stderr)
t.check(len(reps) >= 1 and all(re.search(r"#0 \w+ \S+race_prog\.c:\d+", "\n".join(x)) for x in reps),
        "closefrom: the races reported through dacce-race, with source lines", r.stderr)

t.finish()
