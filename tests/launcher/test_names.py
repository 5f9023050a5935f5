#!/usr/bin/env python3
"""test_names.py BUILD_DIR [gcc|clang]: function names in reports.

names_prog.cc races between functions of internal linkage: a static
function and a method of a struct in an anonymous namespace, inlined into
another.  gcc gives such functions no linkage name in DWARF, and reports
named them bare ("restock", "bump"), which a suppression of "shop::" did
not match; clang gives them one.  With either compiler the report names
shop::restock(int) (the symbol's name, with its parameters) and
shop::(anonymous namespace)::Clerk::bump and ::run() (bump, inlined, has
no symbol: under gcc its name comes without parameters), and a
suppression of "race:shop::" takes the report.
"""
import json
import os
import subprocess

from lrtest import HERE, Test, mark

t = Test("launcher_names")
cxx = {"gcc": "g++", "clang": "clang++"}[t.cc]
SRC = os.path.join(HERE, "names_prog.cc")
# dacce-c++ (the C++ wrapper), with the compiler of this run underneath
exe = os.path.join(t.tmp, f"names_prog_{t.cc}")
b = subprocess.run([os.path.join(t.bin, "dacce-c++"), "-g", "-O1", SRC, "-o", exe],
                   env=dict(os.environ, DACCE_CXX=cxx), capture_output=True, text=True)
if not t.check(b.returncode == 0, "building names_prog", b.stderr):
    t.finish()

js = os.path.join(t.tmp, "r.jsonl")
r = t.run(["--json", js, exe])
t.check_status(r, 66, "names_prog")
with open(js) as f:
    reps = [json.loads(line) for line in f if line.strip()]
t.check(len(reps) >= 1, "a report", r.stderr)
for rep in reps:
    cur = [f["function"] for f in rep["current"]["frames"]]
    prev = [f["function"] for f in rep["previous"]["frames"]]
    t.check(cur[:2] == ["shop::(anonymous namespace)::Clerk::bump",
                        "shop::(anonymous namespace)::Clerk::run()"] or
            cur[:2] == ["shop::(anonymous namespace)::Clerk::bump()",
                        "shop::(anonymous namespace)::Clerk::run()"],
            "the current access in Clerk::bump <- Clerk::run, qualified", cur)
    t.check(prev[:1] == ["shop::restock(int)"], "the previous access in shop::restock(int)", prev)
    t.check(rep["current"]["frames"][0]["line"] == mark("bump", SRC) and
            rep["previous"]["frames"][0]["line"] == mark("restock", SRC),
            "the lines of both accesses", [rep["current"]["frames"][0], rep["previous"]["frames"][0]])

supp = os.path.join(t.tmp, "shop.supp")
with open(supp, "w") as f:
    f.write("race:shop::\n")
r = t.run(["--suppressions", supp, exe])
t.check_status(r, 0, "suppressed by race:shop::")
t.finish()
