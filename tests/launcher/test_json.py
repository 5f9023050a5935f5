#!/usr/bin/env python3
"""test_json.py BUILD_DIR [gcc|clang]: dacce-race --json FILE, field by field.

race_prog race / chain / heap / clean under dacce-race --json: one JSON
object per line; kinds, threads, sizes, addresses, every frame's function,
file, line, column, module and offset (checked against the ELF file with
addr2line when it is installed), inlined frames, the location and the
threads with their creation frames.
"""
import json
import os
import re
import shutil
import subprocess

from lrtest import RACE_PROG, Test, mark

t = Test("launcher_json")
prog = t.race_prog()
src = os.path.realpath(RACE_PROG)
HEX = re.compile(r"^0x[0-9a-f]+$")
FRAME_KEYS = {"function", "file", "line", "column", "module", "offset", "pc", "inlined"}


def run_json(mode, name):
    out = os.path.join(t.tmp, f"{name}.jsonl")
    r = t.run(["--json", out, prog, mode])
    reps = []
    with open(out) as f:
        for n, line in enumerate(f, 1):
            t.check(line.endswith("\n"), f"{name}: line {n} ends with a newline")
            try:
                reps.append(json.loads(line))
            except ValueError as e:
                t.check(False, f"{name}: line {n} is not JSON: {e}", line)
    return r, reps


def check_frames(frames, what):
    t.check(isinstance(frames, list) and frames, f"{what}: a non-empty frame list", frames)
    for i, f in enumerate(frames or []):
        t.check(set(f) == FRAME_KEYS, f"{what}[{i}]: keys {sorted(f)}", f)
        t.check(isinstance(f.get("line"), int) and isinstance(f.get("column"), int),
                f"{what}[{i}]: line/column are integers", f)
        t.check(isinstance(f.get("inlined"), bool), f"{what}[{i}]: inlined is a boolean", f)
        t.check(HEX.match(str(f.get("offset"))) and HEX.match(str(f.get("pc"))),
                f"{what}[{i}]: offset and pc are hex strings", f)
        if f.get("inlined"):
            t.check(i + 1 < len(frames), f"{what}[{i}]: an inlined frame has a caller frame", frames)
    # frames of one pc share the offset: the inlined ones and their physical frame
    for i, f in enumerate(frames[:-1] if frames else []):
        if f["inlined"]:
            t.check(frames[i + 1]["offset"] == f["offset"],
                    f"{what}[{i}]: inlined frame and its caller share the pc", frames)


def frame_is(f, fn, line):
    return f["function"] == fn and f["file"] == src and f["line"] == line and f["column"] > 0


def addr2line(module, offset):
    tool = shutil.which("addr2line")
    if not tool:
        return None
    r = subprocess.run([tool, "-e", module, offset], capture_output=True, text=True)
    return r.stdout.strip()


# ---------------------------------------------------------------- race
r, reps = run_json("race", "race")
t.check_status(r, 66, "race")
t.check(len(reps) == 1, f"race: {len(reps)} JSON reports, expected 1", reps)
if reps:
    rep = reps[0]
    t.check(rep.get("kind") == "data-race", "race: kind data-race", rep.get("kind"))
    t.check(isinstance(rep.get("pid"), int) and rep["pid"] > 0, "race: pid", rep.get("pid"))
    cur, prev = rep["current"], rep["previous"]
    t.check(cur["thread"] == 2 and prev["thread"] == 1, "race: reader T2 is current, writer T1 "
            "previous", (cur["thread"], prev["thread"]))
    t.check(cur["is_write"] is False and prev["is_write"] is True, "race: read after write",
            (cur["is_write"], prev["is_write"]))
    for k, a in (("current", cur), ("previous", prev)):
        t.check(a["is_atomic"] is False and a["is_free"] is False and a["size"] == 4,
                f"race: {k} is a plain 4-byte access", a)
        t.check(HEX.match(a["address"]) is not None, f"race: {k}.address is hex", a["address"])
        t.check(a.get("decode_error") == 0, f"race: {k} decoded", a.get("decode_error"))
        check_frames(a["frames"], f"race: {k}.frames")
    t.check(cur["address"] == prev["address"] == rep["location"]["address"],
            "race: both accesses at the global's address", rep)
    t.check(len(cur["frames"]) >= 2 and frame_is(cur["frames"][0], "read_counter", mark("read"))
            and frame_is(cur["frames"][1], "reader", mark("call-read")),
            "race: current frames read_counter <- reader", cur["frames"])
    t.check(len(prev["frames"]) >= 2 and frame_is(prev["frames"][0], "bump_counter", mark("write"))
            and frame_is(prev["frames"][1], "writer", mark("call-bump")),
            "race: previous frames bump_counter <- writer", prev["frames"])
    for f in cur["frames"] + prev["frames"]:
        t.check(f["module"] == os.path.realpath(prog), "race: frames in the program's module",
                f)
    got = addr2line(prog, cur["frames"][0]["offset"])
    if got is not None:
        t.check(got.endswith(f"race_prog.c:{mark('read')}") or
                f"race_prog.c:{mark('read')} " in got + " ",
                "race: addr2line agrees with the offset of frame 0", got)

    loc = rep["location"]
    t.check(loc["kind"] == "global" and loc["name"] == "shared_counter" and loc["size"] == 4,
            "race: location is global shared_counter of size 4", loc)
    t.check(loc["module"] == os.path.realpath(prog) and HEX.match(loc["offset"]) is not None,
            "race: location module and offset", loc)
    t.check(loc.get("declared_file") == src and loc.get("declared_line") == mark("global"),
            "race: location declared at race_prog.c:@global", loc)
    t.check("allocation_frames" not in loc, "race: no allocation frames for a global", loc)
    t.check(rep.get("mutexes") == [], "race: no mutexes held", rep.get("mutexes"))

    threads = {th["id"]: th for th in rep["threads"]}
    t.check(set(threads) == {0, 1, 2}, "race: threads 0, 1, 2", rep["threads"])
    t.check([th["id"] for th in rep["threads"]][:1] == [2], "race: current thread listed first",
            rep["threads"])
    if 0 in threads:
        t.check(threads[0]["parent"] is None and threads[0]["creation_frames"] == [],
                "race: main thread has no parent", threads[0])
    for tid, line in ((1, mark("create-writer")), (2, mark("create-reader"))):
        th = threads.get(tid, {})
        t.check(th.get("parent") == 0, f"race: T{tid} created by main", th)
        fr = th.get("creation_frames") or []
        check_frames(fr, f"race: T{tid}.creation_frames")
        t.check(fr and fr[0]["file"] == src and fr[0]["line"] == line,
                f"race: T{tid} created at race_prog.c:{line}", fr)
        t.check(fr and fr[-1]["function"] == "main", f"race: T{tid} creation ends in main", fr)
    t.check(rep.get("summary", "").startswith(f"data race {src}:{mark('read')}:")
            and rep["summary"].endswith(" in read_counter"), "race: summary", rep.get("summary"))

# ---------------------------------------------------------------- chain
r, reps = run_json("chain", "chain")
t.check_status(r, 66, "chain")
if t.check(len(reps) == 1, f"chain: {len(reps)} JSON reports, expected 1", reps):
    threads = {th["id"]: th for th in reps[0]["threads"]}
    t.check(set(threads) == {0, 1, 2, 3}, "chain: threads 0..3", reps[0]["threads"])
    want = {1: (0, "main", "create-spawner"), 2: (1, "spawner", "spawn-writer"),
            3: (1, "spawner", "spawn-reader")}
    for tid, (parent, fn, m) in want.items():
        th = threads.get(tid, {})
        fr = th.get("creation_frames") or [{}]
        t.check(th.get("parent") == parent and frame_is(fr[0], fn, mark(m)),
                f"chain: T{tid} created by T{parent} in {fn} at @{m}", th)

# ---------------------------------------------------------------- heap
r, reps = run_json("heap", "heap")
t.check_status(r, 66, "heap")
if t.check(len(reps) == 1, f"heap: {len(reps)} JSON reports, expected 1", reps):
    loc = reps[0]["location"]
    t.check(loc["kind"] == "heap" and loc["size"] == 16 and loc["name"] is None,
            "heap: location is a 16-byte heap block", loc)
    t.check(loc.get("allocated_by_thread") == 0, "heap: allocated by main", loc)
    fr = loc.get("allocation_frames") or [{}]
    t.check(frame_is(fr[0], "heap_race", mark("malloc")) and fr[-1]["function"] == "main",
            "heap: allocated in heap_race <- main at race_prog.c:@malloc", fr)
    a = int(reps[0]["current"]["address"], 16)
    t.check(int(loc["address"], 16) <= a < int(loc["address"], 16) + 16,
            "heap: the access lies in the block", (reps[0]["current"]["address"], loc))

# ---------------------------------------------------------------- clean
r, reps = run_json("clean", "clean")
t.check_status(r, 0, "clean")
t.check(reps == [], "clean: empty JSON file", reps)

t.finish()
