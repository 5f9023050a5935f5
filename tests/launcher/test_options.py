#!/usr/bin/env python3
"""test_options.py BUILD_DIR [gcc|clang]: dacce-race's options.

Runtime options are forwarded in DACCE_OPTIONS (--stats=1 prints the
encoder statistics; --name value; dashes; --verify=1), the user's own
DACCE_OPTIONS is kept, DACCE_RACE_OPTIONS works and the command line wins
over it, --log-path writes PREFIX.<pid> (one file per reporting process),
--help lists the launcher's and the runtime's options, --version, '--',
and a program found through PATH; --suppress-equal-addresses keeps one
report per racy address.  TSAN_OPTIONS: its flags with a meaning here
apply (exitcode, report_bugs, report_thread_leaks, suppress_equal_addresses),
TSan's others are ignored, DACCE_RACE_OPTIONS and the command line override
it, a bad value is a one-line error.  heap_trim_kb: glibc keeps the free
top of a heap up to 1 MiB, not with 0 or when the environment sets glibc's
malloc.  small_heap: a 16-byte block is the runtime's own (usable size 16),
glibc's with 0 (24), and 2 is a one-line error.
"""
import glob
import os
import re

from lrtest import HERE, Test, text_reports

t = Test("launcher_options")
prog = t.race_prog()
STATS = "==dacce== encoder statistics"

# ---------------------------------------------------------------- forwarding
r = t.run(["--stats=1", prog, "clean", "0"])
t.check_status(r, 0, "--stats=1")
t.check_in(STATS, r.stderr, "--stats=1 forwarded")
r = t.run(["--stats", "1", prog, "clean", "0"])
t.check_in(STATS, r.stderr, "--stats 1 forwarded")
r = t.run([prog, "clean", "0"])
t.check(STATS not in r.stderr, "no statistics by default", r.stderr)
r = t.run(["--reencode-min-pushes=10", "--reencode_per_edge=1", "--stats=1", prog, "race"])
t.check_status(r, 66, "dashes and underscores in runtime option names")
t.check_in(STATS, r.stderr, "dashes and underscores")
r = t.run(["--verify=1", prog, "race"])
t.check_status(r, 66, "--verify=1")
t.check("verification FAILED" not in r.stderr and len(text_reports(r.stderr)) == 1,
        "--verify=1: verified run, one report", r.stderr)
r = t.run([prog, "clean", "0"], env={"DACCE_OPTIONS": "stats=1"})
t.check_in(STATS, r.stderr, "the user's DACCE_OPTIONS is kept")

# ---------------------------------------------------------------- DACCE_RACE_OPTIONS
r = t.run([prog, "race"], env={"DACCE_RACE_OPTIONS": "stats=1 quiet"})
t.check_status(r, 66, "DACCE_RACE_OPTIONS")
t.check_in(STATS, r.stderr, "DACCE_RACE_OPTIONS forwards stats=1")
t.check("WARNING:" not in r.stderr, "DACCE_RACE_OPTIONS quiet", r.stderr)
r = t.run([prog, "race"], env={"DACCE_RACE_OPTIONS": "quiet=1,exitcode=9"})
t.check_status(r, 9, "DACCE_RACE_OPTIONS with commas")
r = t.run(["--exitcode=6", prog, "race"], env={"DACCE_RACE_OPTIONS": "exitcode=5"})
t.check_status(r, 6, "the command line wins over DACCE_RACE_OPTIONS")
r = t.run(["--quiet=0", prog, "race"], env={"DACCE_RACE_OPTIONS": "quiet"})
t.check(len(text_reports(r.stderr)) == 1, "--quiet=0 overrides DACCE_RACE_OPTIONS quiet", r.stderr)
js = os.path.join(t.tmp, "env.jsonl")
r = t.run([prog, "race"], env={"DACCE_RACE_OPTIONS": f"json={js} tsan-header"})
t.check(os.path.exists(js) and os.path.getsize(js) > 0, "DACCE_RACE_OPTIONS json=FILE")
t.check_in("WARNING: ThreadSanitizer: data race", r.stderr, "DACCE_RACE_OPTIONS tsan-header")

# ---------------------------------------------------------------- --log-path
prefix = os.path.join(t.tmp, "logs", "race")
os.makedirs(os.path.dirname(prefix))
r = t.run(["--log-path", prefix, prog, "race"])
t.check_status(r, 66, "--log-path")
t.check("WARNING:" not in r.stderr, "--log-path: no report on stderr", r.stderr)
files = glob.glob(prefix + ".*")
if t.check(len(files) == 1, f"--log-path: one file {prefix}.<pid>", files):
    with open(files[0]) as f:
        body = f.read()
    m = re.search(r"WARNING: dacce-race: data race \(pid=(\d+)\)", body)
    t.check(m and files[0] == f"{prefix}.{m.group(1)}", "--log-path: the file is PREFIX.<pid> "
            "of the reporting process", (files[0], body[:200]))
    t.check(len(text_reports(body)) == 1 and "read_counter" in body,
            "--log-path: the text report is in the file", body)
fake = t.build(os.path.join(HERE, "fake_reports.c"), "fake_reports")
prefix2 = os.path.join(t.tmp, "logs", "fork")
r = t.run(["--log-path=" + prefix2, "--report-repeats", fake, "fork", "3", "2"])
files = sorted(glob.glob(prefix2 + ".*"))
t.check(len(files) == 3, "--log-path: a file per reporting process", files)
for path in files:
    with open(path) as f:
        body = f.read()
    pid = path.rsplit(".", 1)[1]
    t.check(body.count(f"(pid={pid})") == 2 and len(text_reports(body)) == 2,
            f"--log-path: {os.path.basename(path)} holds that process's 2 reports", body[:300])

# ---------------------------------------------------------------- help, version, --, PATH
r = t.run(["--help"])
t.check_status(r, 0, "--help")
for opt in ("--json=FILE", "--sarif=FILE", "--suppressions=FILE", "--exitcode=N",
            "--halt-on-error", "--log-path=PREFIX", "--tsan-header", "--quiet", "--version",
            "--verify=N", "--stats=N", "--dump=VALUE"):
    t.check(re.search(rf"^  {re.escape(opt)} ", r.stdout, re.M) is not None,
            f"--help lists {opt}", r.stdout)
t.check("--raw-reports" not in r.stdout, "--help hides the options dacce-race sets itself")
# ---------------------------------------------------------------- TSAN_OPTIONS
r = t.run([prog, "race"], env={"TSAN_OPTIONS": "history_size=7 exitcode=23:second_deadlock_stack=1"})
t.check_status(r, 23, "TSAN_OPTIONS exitcode (TSan's other flags ignored)")
r = t.run(["--exitcode=24", prog, "race"], env={"TSAN_OPTIONS": "exitcode=23"})
t.check_status(r, 24, "the command line overrides TSAN_OPTIONS")
r = t.run([prog, "race"], env={"TSAN_OPTIONS": "exitcode=23", "DACCE_RACE_OPTIONS": "exitcode=25"})
t.check_status(r, 25, "DACCE_RACE_OPTIONS overrides TSAN_OPTIONS")
r = t.run([prog, "race"], env={"TSAN_OPTIONS": "report_bugs=0"})
t.check_status(r, 0, "TSAN_OPTIONS report_bugs=0: nothing reported")
t.check("WARNING:" not in r.stderr, "report_bugs=0 prints no report", r.stderr)
r = t.run([prog, "race"], env={"TSAN_OPTIONS": "exitcode=many"})
t.check_status(r, 2, "a bad TSAN_OPTIONS value")
t.check(r.stderr.count("\n") == 1 and "TSAN_OPTIONS: option 'exitcode'" in r.stderr,
        "a bad TSAN_OPTIONS value is one line naming TSAN_OPTIONS", r.stderr)

# ---------------------------------------------------------------- suppress_equal_addresses
# "same": two races on shared_counter through different paths (two pairs of
# stacks: two reports by default); "two": races on two addresses
r = t.run([prog, "same"])
t.check_status(r, 66, "same")
t.check(len(text_reports(r.stderr)) == 2, "same: two reports by default", r.stderr)
for how, args, env in (("--suppress-equal-addresses", ["--suppress-equal-addresses"], None),
                       ("TSAN_OPTIONS", [], {"TSAN_OPTIONS": "suppress_equal_addresses=1"})):
    js = os.path.join(t.tmp, "equal.jsonl")
    r = t.run(args + [f"--json={js}", prog, "same"], env=env)
    t.check_status(r, 66, f"same, {how}")
    reps = text_reports(r.stderr)
    t.check(len(reps) == 1 and any("writer " in l or "writer(" in l for l in reps[0]),
            f"same, {how}: one report, the first (writer's)", r.stderr)
    with open(js) as f:
        t.check(len(f.readlines()) == 1, f"same, {how}: one JSON report too")
r = t.run(["--suppress-equal-addresses", prog, "two"])
t.check(len(text_reports(r.stderr)) == 2, "two addresses: both reported with the option", r.stderr)
# a suppressed race hides nothing: the race through writer_again() on the
# same bytes is printed when the one through writer() was suppressed (the
# launcher notes a range only for a report it prints)
supp_writer = os.path.join(t.tmp, "writer.supp")
with open(supp_writer, "w") as f:
    f.write("race:^writer$\n")
r = t.run(["--suppress-equal-addresses", f"--suppressions={supp_writer}", prog, "same"])
reps = text_reports(r.stderr)
t.check(len(reps) == 1 and any("writer_again" in l for l in reps[0]),
        "same, the first suppressed: the second (writer_again's) is printed", r.stderr)

# ---------------------------------------------------------------- heap_trim_kb
# the runtime raises glibc's trim threshold (the free top of a heap is kept
# up to 1 MiB), unless told not to or the environment sets glibc's malloc
trim = t.build(os.path.join(HERE, "heap_trim_prog.c"), "heap_trim_prog")
def kept_kib(r):
    m = re.search(r"top (\d+) KiB", r.stdout)
    return int(m.group(1)) if m else -1
r = t.run([trim])
t.check(kept_kib(r) >= 512, "heap_trim_kb: 600 KiB freed at the top of the heap are kept",
        r.stdout + r.stderr)
for how, args, env in (("--heap-trim-kb=0", ["--heap-trim-kb=0"], None),
                       ("MALLOC_TRIM_THRESHOLD_", [], {"MALLOC_TRIM_THRESHOLD_": "131072"}),
                       ("GLIBC_TUNABLES", [], {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=131072"})):
    r = t.run([*args, trim], env=env)
    t.check(0 <= kept_kib(r) < 256, f"heap_trim_kb: glibc's threshold with {how}",
            r.stdout + r.stderr)
r = t.run([trim], env={"DACCE_OPTIONS": "heap_trim_kb=3000000"})
t.check(r.returncode != 0 and "heap_trim_kb" in r.stderr, "heap_trim_kb out of range: an error",
        r.stderr)

# ---------------------------------------------------------------- small_heap
def small_usable(r):
    m = re.search(r"small usable (\d+)", r.stdout)
    return int(m.group(1)) if m else -1
r = t.run([trim])
t.check(small_usable(r) == 16, "small_heap: a 16-byte block from the runtime's classes", r.stdout)
r = t.run(["--small-heap=0", trim])
t.check(small_usable(r) == 24, "small_heap=0: a 16-byte block from glibc", r.stdout)
r = t.run(["--small-heap=2", trim])
t.check(r.returncode != 0 and "small_heap" in r.stderr and len(r.stderr.strip().splitlines()) == 1,
        "small_heap=2: a one-line error", r.stderr)

r = t.run(["--version"])
t.check_status(r, 0, "--version")
t.check(re.fullmatch(r"dacce-race \d+\.\d+\.\d+\n", r.stdout) is not None, "--version", r.stdout)
r = t.run(["--quiet", "--", prog, "--json", "ignored"])
t.check_status(r, 100, "'--' ends the options (the program gets --json)")
r = t.run([os.path.basename(prog), "race"],
          env={"PATH": t.tmp + ":" + os.environ.get("PATH", "")}, cwd="/")
t.check_status(r, 66, "a program found through PATH")
reps = text_reports(r.stderr)
t.check(reps and any("read_counter" in l for l in reps[0]),
        "a program found through PATH is symbolised", r.stderr)

t.finish()
