#!/usr/bin/env python3
"""test_trace_children.py BUILD_DIR [gcc|clang]: --trace-children.

The command dacce-race runs is not instrumented (a shell script, Python) and
starts instrumented programs (children_prog.c):
  - a script that runs a racy program and a clean one: the races reported
    with full paths (text, JSON), exit status exitcode, the script's own
    output, and the closing count of instrumented processes;
  - twelve programs at once, six racing in race_a and six in race_b, with
    race_b suppressed: each race_a program exits with exitcode and each
    race_b one with its own 0, as a test runner should see them (each
    process's answers reach that process: it waits for them holding a lock
    on the answer pipe), and only race_a's reports are printed;
  - the same race in a second process gets one line, not the report again
    (--report-repeats: the report again), and the process still exits with
    exitcode; twelve at once, the same;
  - --suppress-equal-addresses keeps one report per racy address in each
    process, not across processes (their addresses are unrelated);
  - an answer nobody took (fake_reports.c stale) does not reach the next
    process that waits;
  - halt_on_error with suppressions: the process that reported is stopped,
    and the script goes on to the next one;
  - a program the command left running reports after the command ended:
    dacce-race says it waits for it, and its report still counts;
  - no instrumented program at all: a one-line error and status 2 (a
    failing command keeps its own status), never a clean pass;
  - Python's subprocess, which closes the launcher's descriptors: the child
    opens the launcher's ends of its pipes again through /proc (report_via),
    so its reports come through dacce-race with full paths and lines, it
    waits for the answers, and its own status is exitcode.
Without the option such commands are refused (test_bad_input).
"""
import glob
import json
import os
import re
import shutil
import sys

from lrtest import HERE, Test, mark, text_reports

t = Test("launcher_trace_children")
SRC = os.path.join(HERE, "children_prog.c")
prog = t.build(SRC, f"children_prog_{t.cc}")


def script(name, body):
    path = os.path.join(t.tmp, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def json_reports(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


# ---------------------------------------------------------------- one after another
seq = script("seq.sh", f'echo start\n{prog} a 2\n{prog} clean\necho end\n')
js = os.path.join(t.tmp, "seq.jsonl")
r = t.run(["--trace-children", "--json", js, seq])
t.check_status(r, 66, "sequential")
t.check(r.stdout.split() == ["start", "ran", "a", "ran", "clean", "end"],
        "sequential: the script and both programs ran to their ends", r.stdout)
reps = json_reports(js)
t.check(len(reps) >= 2 and len(text_reports(r.stderr)) == len(reps),
        f"sequential: {len(reps)} reports, as text and JSON", r.stderr)
src = os.path.realpath(SRC)
for rep in reps:
    cur = rep["current"]["frames"]
    t.check(cur and cur[0]["function"] == "race_a" and cur[0]["file"] == src and
            cur[0]["line"] == mark("race-a", SRC) and
            [f["function"] for f in cur[1:2]] == ["second"],
            "sequential: the current access in race_a <- second, with file and line", cur)
    t.check(rep["location"].get("name") in ("v0", "v1"), "sequential: the global named",
            rep["location"])
t.check_in(f"dacce-race: 2 instrumented processes ran under {seq}, {len(reps)} reports",
           r.stderr, "sequential: the closing count")

# ---------------------------------------------------------------- repeats
# the same race in two processes is printed once; the second gets a line
# (and still exits with exitcode); --report-repeats prints it again
REPEAT = re.compile(r"^dacce-race: data-race in (\w+) \(children_prog\.c:\d+\) again, in "
                    r"process (\d+) \(children_prog_\w+\): reported above for process (\d+)$",
                    re.M)
two = script("two.sh", f'{prog} a 1 > /dev/null; echo "status $?"\n'
                       f'{prog} a 1 > /dev/null; echo "status $?"\n')
counts = {}
for flag in ([], ["--report-repeats"]):
    js = os.path.join(t.tmp, f"two{len(flag)}.jsonl")
    r = t.run(["--trace-children", *flag, "--json", js, two])
    what = "repeats" + (" printed" if flag else "")
    t.check_status(r, 66, what)
    t.check(r.stdout.split("\n")[:2] == ["status 66", "status 66"],
            f"{what}: both processes exit with exitcode", r.stdout)
    reps = json_reports(js)
    notes = REPEAT.findall(r.stderr)
    counts[what] = (len(reps), len(notes), len(text_reports(r.stderr)))
    if flag:
        t.check(not notes and len({rep["pid"] for rep in reps}) == 2 and
                len(text_reports(r.stderr)) == len(reps),
                f"{what}: both processes' reports, in full", r.stderr[-3000:])
    else:
        first = {rep["pid"] for rep in reps}
        t.check(len(first) == 1 and len(notes) == len(reps) >= 1 and
                len(text_reports(r.stderr)) == len(reps) and
                all(int(f) in first and int(p) not in first for _, p, f in notes),
                f"{what}: the first process's reports, one line for each of the second's",
                r.stderr[-3000:])
        t.check_in(f", {len(reps)} report{'s' if len(reps) != 1 else ''} (and {len(notes)} "
                   f"repeat{'s' if len(notes) != 1 else ''} of them in other processes, not "
                   f"printed again)", r.stderr, f"{what}: the closing line")
t.check(counts["repeats printed"][0] == 2 * counts["repeats"][0],
        "repeats: --report-repeats prints twice as many", counts)

# ---------------------------------------------------------------- twelve at once
par = script("par.sh", f'''cd "$1"
for i in 1 2 3 4 5 6; do
  ({prog} a 8 > /dev/null; echo $? > st.a.$i) &
  ({prog} b 8 > /dev/null; echo $? > st.b.$i) &
done
wait
''')
supp = os.path.join(t.tmp, "b.supp")
with open(supp, "w") as f:
    f.write("race:race_b\n")
for rnd in range(3):
    out = os.path.join(t.tmp, f"par{rnd}")
    os.mkdir(out)
    js = os.path.join(out, "r.jsonl")
    r = t.run(["--trace-children", "--suppressions", supp, "--json", js, par, out])
    t.check_status(r, 66, f"parallel {rnd}")
    st = {os.path.basename(p)[3:]: open(p).read().strip() for p in glob.glob(out + "/st.*")}
    want = {f"{k}.{i}": ("66" if k == "a" else "0") for k in "ab" for i in range(1, 7)}
    t.check(st == want, f"parallel {rnd}: each program's own exit status (a: 66, b: 0)",
            repr(sorted(st.items())))
    # the six race_a programs race alike: whichever reports a race first
    # prints it, the others get a line each for it (repeats)
    reps = json_reports(js)
    pids = {rep["pid"] for rep in reps}
    notes = REPEAT.findall(r.stderr)
    t.check(all(rep["current"]["frames"][0]["function"] == "race_a" for rep in reps) and
            all(fn == "race_a" and int(first) in pids for fn, _, first in notes) and
            len(pids | {int(p) for _, p, _ in notes}) == 6,
            f"parallel {rnd}: reports and repeats from the six race_a programs only",
            (sorted(pids), notes))
    t.check(len(notes) > 0 and f" (and {len(notes)} repeats of them" in r.stderr,
            f"parallel {rnd}: the closing line counts the repeats", r.stderr[-1500:])
    m = re.search(r"^dacce-race: suppressed (\d+) reports", r.stderr, re.M)
    t.check(m is not None and int(m.group(1)) >= 12,
            f"parallel {rnd}: the race_b programs' reports suppressed", r.stderr[-2000:])
    t.check_in(f"dacce-race: 12 instrumented processes ran under {par}", r.stderr,
               f"parallel {rnd}: the closing count")

# ---------------------------------------------------------------- equal addresses
# --suppress-equal-addresses is per process: the same race at the same
# address (ASLR off) in a second process is that process's own report
if shutil.which("setarch"):
    twice = script("twice.sh", f'for i in 1 2; do setarch x86_64 -R {prog} a 1 > /dev/null; '
                               f'echo "status $?"; done\n')
    js = os.path.join(t.tmp, "twice.jsonl")
    r = t.run(["--trace-children", "--suppress-equal-addresses", "--report-repeats", "--json",
               js, twice])
    t.check_status(r, 66, "equal addresses")
    reps = json_reports(js)
    addrs = {rep["location"].get("address") for rep in reps}
    t.check(len({rep["pid"] for rep in reps}) == 2 and len(reps) == 2 and len(addrs) == 1,
            "equal addresses: one report from each process, at the same address",
            [(rep["pid"], rep["location"].get("address")) for rep in reps])
    t.check(r.stdout.split("\n")[:2] == ["status 66", "status 66"],
            "equal addresses: both processes raced", r.stdout)

# ---------------------------------------------------------------- a stale answer
# fake_reports.c stale: a forked child's report (suppressed here) whose
# answer nobody reads, then the parent's real race: the parent must skip the
# child's answer ("not printed") and take its own ("printed"), and exit 66
fake = t.build(os.path.join(HERE, "fake_reports.c"), f"fake_reports_{t.cc}")
fsupp = os.path.join(t.tmp, "fake.supp")
with open(fsupp, "w") as f:
    f.write("race:fake_site\n")
stale = script("stale.sh", f'{fake} stale; echo "status $?"\n')
r = t.run(["--trace-children", "--suppressions", fsupp, stale])
t.check_status(r, 66, "stale answer")
t.check(r.stdout.split("\n")[:2] == ["stale done", "status 66"],
        "stale answer: the racing process took its own answer (exit 66), not the child's",
        r.stdout + r.stderr[-1500:])
t.check(len(text_reports(r.stderr)) == 1 and "real_write" in r.stderr,
        "stale answer: the real race printed, the child's suppressed", r.stderr)

# ---------------------------------------------------------------- halt_on_error
halt = script("halt.sh", f'{prog} b 2 > /dev/null; echo "b $?"\n'
                         f'{prog} a 2 > /dev/null; echo "a $?"\n'
                         f'{prog} clean > /dev/null; echo "clean $?"\n')
r = t.run(["--trace-children", "--halt-on-error", "--suppressions", supp, halt])
t.check_status(r, 66, "halt")
t.check(r.stdout.split("\n")[:3] == ["b 0", "a 137", "clean 0"],
        "halt: race_a's program stopped (SIGKILL), race_b's (suppressed) and the clean one "
        "ran on", r.stdout)
t.check(len(re.findall(r"halt_on_error: stopping process \d+ after its first report",
                       r.stderr)) == 1 and len(text_reports(r.stderr)) == 1,
        "halt: one report, one process stopped", r.stderr)

# an instrumented program with the option: halted as without it (the
# program, and no "killed by signal")
r = t.run(["--trace-children", "--halt-on-error", "--suppressions", supp, prog, "a", "2"])
t.check_status(r, 66, "halt, instrumented program")
t.check("stopping the program after the first report" in r.stderr and
        "killed by signal" not in r.stderr and len(text_reports(r.stderr)) == 1,
        "halt, instrumented program: stopped as without --trace-children", r.stderr)

# ---------------------------------------------------------------- left running
# a program the command left running reports after the command ended: the
# wait is announced, naming it, and its report is printed and counts
late = script("late.sh", f'{prog} late 3 > /dev/null &\necho "left $!"\n')
r = t.run(["--trace-children", late])
t.check_status(r, 66, "left running")
m = re.search(r"^left (\d+)$", r.stdout, re.M)
note = re.search(r"^dacce-race: (.*) has ended; waiting for the processes it left running, "
                 r"which may still report \(instrumented: (\d+)\); Ctrl-C stops waiting$",
                 r.stderr, re.M)
t.check(m is not None and note is not None and note.group(1) == late and
        note.group(2) == m.group(1), "left running: the wait announced, with its pid",
        r.stdout + r.stderr[-1500:])
t.check(len(text_reports(r.stderr)) >= 1 and note is not None and
        r.stderr.index("WARNING: dacce-race: data race") > note.start(),
        "left running: its report, after the announcement", r.stderr[-2000:])

# ---------------------------------------------------------------- nothing instrumented
NONE = "dacce-race: no instrumented program reached dacce-race under {} (--trace-children)"
for what, body, status in (("true", "/bin/true\n", 2), ("fails", "/bin/false\nexit 3\n", 3)):
    s = script(f"none_{what}.sh", body)
    r = t.run(["--trace-children", s])
    t.check_status(r, status, f"nothing instrumented ({what})")
    lines = r.stderr.splitlines()
    t.check(len(lines) == 1 and lines[0].startswith(NONE.format(s)),
            f"nothing instrumented ({what}): one line that says so", r.stderr)

# ---------------------------------------------------------------- descriptors closed
runner = os.path.join(t.tmp, "runner.py")
with open(runner, "w") as f:
    f.write("import subprocess, sys\n"
            "r = subprocess.run([sys.argv[1], 'a', '1'])  # close_fds=True\n"
            "print('child', r.returncode)\n")
js = os.path.join(t.tmp, "closed.jsonl")
r = t.run(["--trace-children", "--json", js, sys.executable, runner, prog])
t.check_status(r, 66, "closed descriptors")
t.check_in("child 66", r.stdout, "closed descriptors: the child's own status is exitcode")
t.check("follow as text" not in r.stderr and "cannot open" not in r.stderr,
        "closed descriptors: the runtime found the launcher's pipes", r.stderr)
reps = json_reports(js)
t.check(len(reps) >= 1 and len(text_reports(r.stderr)) == len(reps),
        f"closed descriptors: {len(reps)} reports through dacce-race", r.stderr)
for rep in reps:
    cur = rep["current"]["frames"]
    t.check(cur and cur[0]["function"] == "race_a" and cur[0]["file"] == src and
            cur[0]["line"] == mark("race-a", SRC),
            "closed descriptors: the current access in race_a, with file and line", cur)
t.check_in(f"dacce-race: 1 instrumented process ran under {sys.executable}, {len(reps)} reports",
           r.stderr, "closed descriptors: the closing count")

t.finish()
