#!/usr/bin/env python3
"""test_suppressions.py BUILD_DIR [gcc|clang]: dacce-race --suppressions FILE.

Each type (race:, race_top:, thread:, called_from_lib:) suppresses a report
it matches: no text, no JSON line, the program's exit status, and the
closing "dacce-race: suppressed N reports (PATTERN: count, ...)" line with
the count of each pattern that matched; a pattern that does not match
suppresses nothing.  TSan's pattern syntax ('*', '^', '$', substrings;
function, file and module names; the global's name), comments and blank
lines; counting over many reports from several processes.
"""
import os
import re

from lrtest import HERE, Test, text_reports

t = Test("launcher_suppressions")
prog = t.race_prog()
lib = t.build(os.path.join(HERE, "lib_racy.c"), "liblrtest.so", ["-shared", "-fPIC"])
lib_prog = t.build(os.path.join(HERE, "lib_prog.c"), "lib_prog",
                   ["-L" + t.tmp, "-llrtest", "-Wl,-rpath," + t.tmp])
fake = t.build(os.path.join(HERE, "fake_reports.c"), "fake_reports")


def supp_file(name, lines):
    path = os.path.join(t.tmp, name + ".supp")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path


def expect(name, lines, argv, suppressed, summary=None, status=None):
    """run argv with the suppressions; suppressed: None (nothing is) or the
    exact summary line expected"""
    supp = supp_file(name, lines)
    js = os.path.join(t.tmp, name + ".jsonl")
    r = t.run(["--suppressions", supp, "--json", js] + argv)
    reps = text_reports(r.stderr)
    with open(js) as f:
        njson = sum(1 for line in f if line.strip())
    summaries = [l for l in r.stderr.splitlines() if l.startswith("dacce-race: suppressed")]
    if suppressed is None:
        t.check_status(r, 66, name)
        t.check(reps and njson == len(reps), f"{name}: the report is printed (not suppressed)",
                r.stderr)
        t.check(not summaries, f"{name}: no 'suppressed' line", r.stderr)
    else:
        t.check_status(r, 0 if status is None else status, name)
        t.check(not reps and njson == 0, f"{name}: nothing printed", r.stderr)
        if isinstance(suppressed, re.Pattern):
            t.check(len(summaries) == 1 and suppressed.fullmatch(summaries[0]),
                    f"{name}: summary {suppressed.pattern!r}", r.stderr)
        else:
            t.check(summaries == [suppressed], f"{name}: summary {suppressed!r}", r.stderr)
    return r


# ---------------------------------------------------------------- race:
expect("race-function", ["race:bump_counter"], [prog, "race"],
       "dacce-race: suppressed 1 report (race:bump_counter: 1)")
expect("race-previous-stack", ["race:writer"], [prog, "race"],
       "dacce-race: suppressed 1 report (race:writer: 1)")
expect("race-wildcard", ["race:bump_*er"], [prog, "race"],
       "dacce-race: suppressed 1 report (race:bump_*er: 1)")
expect("race-anchored", ["race:^read_counter$"], [prog, "race"],
       "dacce-race: suppressed 1 report (race:^read_counter$: 1)")
expect("race-file", ["race:launcher/race_prog.c"], [prog, "race"],
       "dacce-race: suppressed 1 report (race:launcher/race_prog.c: 1)")
expect("race-global", ["race:shared_counter"], [prog, "race"],
       "dacce-race: suppressed 1 report (race:shared_counter: 1)")
expect("race-nomatch", ["race:no_such_function", "race:^bump$", "race:counter_read"],
       [prog, "race"], None)

# ---------------------------------------------------------------- race_top:
expect("race_top", ["race_top:read_counter"], [prog, "race"],
       "dacce-race: suppressed 1 report (race_top:read_counter: 1)")
expect("race_top-not-top", ["race_top:reader", "race_top:writer"], [prog, "race"], None)

# ---------------------------------------------------------------- thread:
expect("thread", ["thread:spawner"], [prog, "chain"],
       "dacce-race: suppressed 1 report (thread:spawner: 1)")
expect("thread-main", ["thread:^main$"], [prog, "race"],
       "dacce-race: suppressed 1 report (thread:^main$: 1)")
expect("thread-nomatch", ["thread:spawner", "thread:bump_counter"], [prog, "race"], None)

# ---------------------------------------------------------------- called_from_lib:
# lib_counter++ is one report or two (read and write at one pc or two) by compiler
expect("called_from_lib", ["called_from_lib:liblrtest.so"], [lib_prog],
       re.compile(r"dacce-race: suppressed (1 report|2 reports) \(called_from_lib:liblrtest\.so: "
                  r"[12]\)"))
expect("called_from_lib-nomatch", ["called_from_lib:libnothere.so"], [lib_prog], None)
expect("called_from_lib-program", ["called_from_lib:liblrtest.so"], [prog, "race"], None)

# ---------------------------------------------------------------- file syntax, counting
expect("comments", ["# a comment", "", "   ", "  race:bump_counter  ", "# race:x"],
       [prog, "race"], "dacce-race: suppressed 1 report (race:bump_counter: 1)")
expect("first-match-counts", ["race:nothing_here", "race_top:fake_site", "race:fake_other"],
       [fake, "fork", "3", "4"], "dacce-race: suppressed 12 reports (race_top:fake_site: 12)")
# TSan's other types are accepted and do not match races
expect("other-types", ["mutex:bump_counter", "deadlock:*", "signal:main"], [prog, "race"], None)

# some suppressed, some not: exit status 66, the rest printed
supp = supp_file("partial", ["race:lib_bump"])
r = t.run(["--suppressions", supp, prog, "heap"])
t.check_status(r, 66, "partial: unsuppressed report")
t.check(len(text_reports(r.stderr)) == 1 and "dacce-race: suppressed" not in r.stderr,
        "partial: the heap race is printed, nothing suppressed", r.stderr)

# a clean program's status passes through with suppressions loaded
r = t.run(["--suppressions", supp, prog, "clean", "5"])
t.check_status(r, 5, "clean with suppressions")

t.finish()
