#!/usr/bin/env python3
"""test_text.py BUILD_DIR [gcc|clang]: dacce-race's text reports.

race_prog (race, chain, heap) under dacce-race: exit status 66, one
TSan-like report naming both functions with the file:line of both accesses
and of their calls, the global's name and declaration, the line creating
each thread and every ancestor thread; --tsan-header and --quiet.
"""
import os
import re

from lrtest import RACE_PROG, Test, mark, section, text_reports

t = Test("launcher_text")
prog = t.race_prog()
src = os.path.realpath(RACE_PROG)


def has_frame(frames, fn, line):
    return any(f[0] == fn and f[1] == src and f[2] == line for f in frames)


def check_race_accesses(rep, what):
    cur = section(rep, r"^  (Read|Write) of size 4 at 0x[0-9a-f]+ by thread T\d+:")
    prev = section(rep, r"^  Previous (read|write) of size 4 at 0x[0-9a-f]+ by thread T\d+:")
    t.check(cur and prev, f"{what}: both access stacks present", "\n".join(rep))
    read = [("read_counter", mark("read")), ("reader", mark("call-read"))]
    write = [("bump_counter", mark("write")), ("writer", mark("call-bump"))]
    for stack, want in ((cur, read), (prev, write)):
        for fn, line in want:
            t.check(has_frame(stack, fn, line),
                    f"{what}: frame {fn} at race_prog.c:{line} in its stack", "\n".join(rep))


# ---------------------------------------------------------------- race
r = t.run([prog, "race"])
t.check_status(r, 66, "race")
reps = text_reports(r.stderr)
t.check(len(reps) == 1, f"race: {len(reps)} text reports, expected 1", r.stderr)
if reps:
    rep = reps[0]
    text = "\n".join(rep)
    t.check(re.match(r"WARNING: dacce-race: data race \(pid=\d+\)$", rep[0]) is not None,
            "race: header line", rep[0])
    check_race_accesses(rep, "race")
    t.check_in(re.compile(r"^  Location is global 'shared_counter' of size 4 at 0x[0-9a-f]+ "
                          r"\(race_prog_\w+\+0x[0-9a-f]+\) declared at " + re.escape(src) +
                          f":{mark('global')}$", re.M), text, "race: global location")
    for tid, line in ((1, mark("create-writer")), (2, mark("create-reader"))):
        created = section(rep, rf"^  Thread T{tid} created by main thread at:$")
        t.check(any(f[1] == src and f[2] == line for f in created),
                f"race: thread T{tid} created at race_prog.c:{line}", text)
    t.check(re.search(r"^SUMMARY: dacce-race: data race " + re.escape(src) +
                      rf":{mark('read')}:\d+ in read_counter$", text, re.M) is not None,
            "race: SUMMARY line", text)

# ---------------------------------------------------------------- chain
r = t.run([prog, "chain"])
t.check_status(r, 66, "chain")
reps = text_reports(r.stderr)
t.check(len(reps) == 1, f"chain: {len(reps)} text reports, expected 1", r.stderr)
if reps:
    rep = reps[0]
    text = "\n".join(rep)
    check_race_accesses(rep, "chain")
    want = [(r"^  Thread T2 created by thread T1 at:$", "spawner", mark("spawn-writer")),
            (r"^  Thread T3 created by thread T1 at:$", "spawner", mark("spawn-reader")),
            (r"^  Thread T1 created by main thread at:$", "main", mark("create-spawner"))]
    for head, fn, line in want:
        t.check(has_frame(section(rep, head), fn, line),
                f"chain: '{head}' with {fn} at race_prog.c:{line}", text)
    # the ancestor follows its descendant
    heads = [l for l in rep if "created by" in l]
    t.check(heads[:2] == ["  Thread T3 created by thread T1 at:",
                          "  Thread T1 created by main thread at:"],
            "chain: current thread first, then its creator", "\n".join(heads))

# ---------------------------------------------------------------- heap
r = t.run([prog, "heap"])
t.check_status(r, 66, "heap")
reps = text_reports(r.stderr)
t.check(len(reps) == 1, f"heap: {len(reps)} text reports, expected 1", r.stderr)
if reps:
    rep = reps[0]
    text = "\n".join(rep)
    for head in (r"^  Write of size 4", r"^  Previous write of size 4"):
        st = section(rep, head)
        t.check(has_frame(st, "heap_store", mark("heap-write")) and
                has_frame(st, "heap_worker", mark("call-heap-store")),
                f"heap: '{head}' stack is heap_store <- heap_worker", text)
    alloc = section(rep, r"^  Location is heap block of size 16 at 0x[0-9a-f]+ allocated by "
                         r"main thread:$")
    t.check(has_frame(alloc, "heap_race", mark("malloc")),
            f"heap: allocated in heap_race at race_prog.c:{mark('malloc')}", text)

# ---------------------------------------------------------------- use after free
r = t.run([prog, "uaf"])
t.check_status(r, 66, "uaf")
reps = text_reports(r.stderr)
t.check(len(reps) == 1, f"uaf: {len(reps)} text reports, expected 1", r.stderr)
if reps:
    rep = reps[0]
    text = "\n".join(rep)
    t.check(re.match(r"WARNING: dacce-race: heap-use-after-free \(pid=\d+\)$", rep[0]) is not None,
            "uaf: header line", rep[0])
    use = section(rep, r"^  Read of size 4 at 0x[0-9a-f]+ by main thread:$")
    t.check(has_frame(use, "heap_load", mark("heap-read")) and
            has_frame(use, "main", mark("call-heap-load")), "uaf: the use in heap_load <- main",
            text)
    free_frames = section(rep, r"^  Previous free of size \d+ at 0x[0-9a-f]+ by thread T1:$")
    t.check(has_frame(free_frames, "freer", mark("free")), "uaf: the free in freer", text)
    # the interceptor that made the access is frame #0, as in TSan, without a line
    t.check(len(free_frames) > 1 and free_frames[0] == ("free", "<null>", None) and
            free_frames[1][0] == "freer", "uaf: #0 free, #1 freer", text)
    t.check(has_frame(section(rep, r"^  Location is heap block of size 16 "), "main",
                      mark("calloc")), "uaf: block allocated in main", text)
    t.check_in(re.compile(r"^SUMMARY: dacce-race: heap-use-after-free " + re.escape(src) +
                          rf":{mark('heap-read')}:\d+ in heap_load$", re.M), text, "uaf: SUMMARY")

# ---------------------------------------------------------------- headers
r = t.run(["--tsan-header", prog, "race"])
t.check_status(r, 66, "--tsan-header")
t.check_in(re.compile(r"^WARNING: ThreadSanitizer: data race \(pid=\d+\)$", re.M), r.stderr,
           "--tsan-header")
t.check_in(re.compile(r"^SUMMARY: ThreadSanitizer: data race ", re.M), r.stderr,
           "--tsan-header summary")
t.check("dacce-race: data race" not in r.stderr, "--tsan-header: no dacce-race header", r.stderr)

r = t.run(["--quiet", prog, "race"])
t.check_status(r, 66, "--quiet")
t.check("WARNING:" not in r.stderr and "SUMMARY:" not in r.stderr, "--quiet prints no report",
        r.stderr)

# ---------------------------------------------------------------- order
# the reporting thread waits until the launcher printed its report, so the
# report comes before what the program writes after the race, every time
for i in range(5):
    r = t.run([prog, "ordered"])
    w, a = r.stderr.find("WARNING: dacce-race: data race"), r.stderr.find("after the race")
    if not t.check(0 <= w < a, f"ordered run {i}: the report before the program's later output",
                   r.stderr):
        break

t.finish()
