#!/usr/bin/env python3
"""test_exit_status.py BUILD_DIR [gcc|clang]: dacce-race's exit status.

A clean program's own status passes through (0, 3); races give the
exitcode option (66, --exitcode, DACCE_RACE_OPTIONS); a program killed by
SIGSEGV after a race has its report printed (text and JSON) and dacce-race
says so and exits 139; --halt-on-error stops at the first report, in the
runtime or, with suppressions, in the launcher.  A program's
__tsan_on_finalize is called with whether races were reported, and a
verdict it changes decides: a pass leaves the program's own status, a
failure is the exitcode (with the launcher and without); the launcher
runs clean under valgrind's memcheck doing so.
"""
import os
import re
import shutil
import subprocess

from lrtest import HERE, Test, text_reports

t = Test("launcher_exit_status")
prog = t.race_prog()

for code in (0, 3):
    r = t.run([prog, "clean", str(code)])
    t.check_status(r, code, f"clean program exiting {code}")
    t.check("WARNING:" not in r.stderr, f"clean {code}: no report", r.stderr)
    t.check_in("counter 4\n", r.stdout, f"clean {code}: the program's stdout is inherited")
r = t.run(["--exitcode=42", prog, "clean", "3"])
t.check_status(r, 3, "clean with --exitcode=42")

r = t.run([prog, "race"])
t.check_status(r, 66, "race")
r = t.run(["--exitcode=42", prog, "race"])
t.check_status(r, 42, "race with --exitcode=42")
r = t.run(["--exitcode", "0", prog, "race"])
t.check_status(r, 0, "race with --exitcode 0")
t.check(len(text_reports(r.stderr)) == 1, "race with --exitcode 0: still reported", r.stderr)
r = t.run([prog, "race"], env={"DACCE_RACE_OPTIONS": "exitcode=7"})
t.check_status(r, 7, "race with DACCE_RACE_OPTIONS=exitcode=7")

# ---------------------------------------------------------------- __tsan_on_finalize
fin = t.build(os.path.join(HERE, "finalize_prog.c"), f"finalize_prog_{t.cc}")
for mode, verdict, status, want in (("race", None, 5, 66), ("race", "0", 5, 5),
                                    ("clean", None, 3, 3), ("clean", "1", 3, 66),
                                    ("race", "1", 0, 66), ("clean", "0", 4, 4)):
    what = f"on_finalize: {mode}, hook returns {verdict or 'its argument'}"
    r = t.run([fin, mode, str(status)],
              env={"FINALIZE_VERDICT": verdict} if verdict else None, unset=("FINALIZE_VERDICT",))
    t.check_status(r, want, what)
    t.check_in(f"on_finalize({int(mode == 'race')})", r.stderr, f"{what}: the hook's argument")
    t.check((len(text_reports(r.stderr)) > 0) == (mode == "race"), f"{what}: reports", r.stderr)
# the launcher itself under memcheck, reading reports and a verdict record
# (it once handed the record to sscanf without its end: a read past the line)
if shutil.which("valgrind"):
    e = {k: v for k, v in os.environ.items() if k not in ("DACCE_OPTIONS", "DACCE_RACE_OPTIONS")}
    r = subprocess.run(["valgrind", "-q", "--error-exitcode=99", "--leak-check=no", t.launcher,
                        fin, "race", "5"], env={**e, "FINALIZE_VERDICT": "0"}, cwd=t.tmp,
                       capture_output=True, text=True, timeout=300, errors="replace")
    t.check(r.returncode == 5 and "==" not in r.stderr.replace("==================", ""),
            f"the launcher under valgrind: exit {r.returncode}, expected 5, no errors", r.stderr)
# without the launcher: the runtime applies a changed verdict itself
e = {k: v for k, v in os.environ.items() if k not in ("DACCE_OPTIONS", "FINALIZE_VERDICT")}
r = subprocess.run([fin, "clean", "3"], env={**e, "FINALIZE_VERDICT": "1"},
                   capture_output=True, text=True, timeout=120)
t.check_status(r, 66, "on_finalize without the launcher: clean, hook returns 1")
r = subprocess.run([fin, "race", "5"], env={**e, "FINALIZE_VERDICT": "0",
                                           "DACCE_OPTIONS": "override_exit_status=1"},
                   capture_output=True, text=True, timeout=120)
t.check_status(r, 5, "on_finalize without the launcher: race, override_exit_status, hook 0")

# ---------------------------------------------------------------- killed by a signal
js = os.path.join(t.tmp, "segv.jsonl")
r = t.run(["--json", js, prog, "segv"])
t.check_status(r, 139, "segv")
reps = text_reports(r.stderr)
t.check(len(reps) == 1 and any("read_counter" in l for l in reps[0]),
        "segv: the race before the crash is reported", r.stderr)
last = r.stderr.rstrip("\n").splitlines()[-1] if r.stderr.strip() else ""
t.check(last == f"dacce-race: {prog} killed by signal 11 (SIGSEGV)",
        "segv: 'killed by signal 11 (SIGSEGV)' is the last line", r.stderr)
with open(js) as f:
    t.check(len([l for l in f if l.strip()]) == 1, "segv: the report is in the JSON file too")
t.check(r.stderr.index("WARNING:") < r.stderr.index("killed by signal"),
        "segv: the report comes before the signal message", r.stderr)

# ---------------------------------------------------------------- halt_on_error
r = t.run([prog, "two"])
t.check_status(r, 66, "two races")
t.check(len(text_reports(r.stderr)) == 2, "two races: two reports without halt_on_error",
        r.stderr)
r = t.run(["--halt-on-error", prog, "two"])
t.check_status(r, 66, "--halt-on-error")
reps = text_reports(r.stderr)
t.check(len(reps) == 1 and "shared_counter" in "\n".join(reps[0]),
        "--halt-on-error: only the first report", r.stderr)

fake = t.build(os.path.join(HERE, "fake_reports.c"), "fake_reports")
supp = os.path.join(t.tmp, "none.supp")
with open(supp, "w") as f:
    f.write("race:nothing_matches_this\n")
r = t.run(["--halt-on-error", "--suppressions", supp, fake, "fork", "1", "50"])
t.check_status(r, 66, "--halt-on-error with suppressions")
t.check(1 <= len(text_reports(r.stderr)) <= 1, "--halt-on-error with suppressions: one report",
        r.stderr)
t.check_in("dacce-race: halt_on_error: stopping the program after the first report", r.stderr,
           "--halt-on-error with suppressions")
t.check(not re.search(r"killed by signal", r.stderr),
        "--halt-on-error: the launcher's own kill is not reported as a crash", r.stderr)

t.finish()
