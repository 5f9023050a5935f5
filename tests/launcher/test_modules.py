#!/usr/bin/env python3
"""test_modules.py BUILD_DIR [gcc|clang]: programs in several modules.

An instrumented shared library (lib_racy.c -> liblrtest.so) whose threads
race on its static variable, called by lib_prog.c linked three ways:
  - instrumented, with the static runtime (the library binds to it);
  - instrumented, with DACCE_RUNTIME=shared (libdacce.so is needed);
  - not instrumented at all: dacce-race sees that only the library is and
    runs the program with LD_PRELOAD of <bindir>/../lib/dacce/libdacce.so.
Each time: exit status 66, frames symbolised in the library with its path
as module, the static global found in the library's symbol table with its
declaration, the creation stacks, and the program's own status otherwise.
And a C++ library dlopen'd (RTLD_LOCAL) by a C program: its operator
new/delete reach the runtime's, which find libstdc++'s own.
"""
import json
import os
import shutil
import subprocess

from lrtest import HERE, Test, mark, text_reports

t = Test("launcher_modules")
LIB_SRC = os.path.join(HERE, "lib_racy.c")
PROG_SRC = os.path.join(HERE, "lib_prog.c")
lib = t.build(LIB_SRC, "liblrtest.so", ["-shared", "-fPIC"])
link = ["-L" + t.tmp, "-llrtest", "-Wl,-rpath," + t.tmp]
progs = {
    "static runtime": t.build(PROG_SRC, "lib_prog_static", link),
    "shared runtime": t.build(PROG_SRC, "lib_prog_shared", link, env={"DACCE_RUNTIME": "shared"}),
}
plain = os.path.join(t.tmp, "lib_prog_plain")
b = subprocess.run([t.cc, "-g", "-O1", PROG_SRC, "-o", plain, *link,
                    "-Wl,--allow-shlib-undefined"], capture_output=True, text=True)
if t.check(b.returncode == 0, "building the uninstrumented program", b.stderr):
    progs["uninstrumented program, preloaded runtime"] = plain

src = os.path.realpath(LIB_SRC)
for what, exe in progs.items():
    js = os.path.join(t.tmp, "r.jsonl")
    r = t.run(["--json", js, exe])
    t.check_status(r, 66, what)
    t.check(len(text_reports(r.stderr)) >= 1, f"{what}: reported", r.stderr)
    with open(js) as f:
        reps = [json.loads(l) for l in f if l.strip()]
    if not t.check(reps, f"{what}: JSON reports"):
        continue
    rep = reps[0]
    for k in ("current", "previous"):
        fr = rep[k]["frames"]
        t.check(len(fr) >= 2 and fr[0]["function"] == "lib_bump" and fr[0]["file"] == src and
                fr[0]["line"] == mark("lib-write", LIB_SRC) and fr[1]["function"] == "lib_worker"
                and fr[1]["line"] == mark("lib-call", LIB_SRC),
                f"{what}: {k} frames lib_bump <- lib_worker", fr)
        t.check(all(f["module"] == os.path.realpath(lib) for f in fr),
                f"{what}: {k} frames are in liblrtest.so", fr)
    loc = rep["location"]
    t.check(loc["kind"] == "global" and loc["name"] == "lib_counter" and loc["size"] == 4 and
            loc["module"] == os.path.realpath(lib) and
            loc["declared_line"] == mark("lib-global", LIB_SRC),
            f"{what}: the library's static global lib_counter", loc)
    lines = set()
    for th in rep["threads"]:
        if th["parent"] is not None:
            fr = th["creation_frames"]
            t.check(fr and fr[0]["function"] == "lib_race", f"{what}: created in lib_race", th)
            lines.add(fr[0]["line"] if fr else None)
            if "uninstrumented" not in what:
                t.check(fr and fr[-1]["function"] == "main", f"{what}: creation stack ends in "
                        "main", fr)
    t.check(lines == {mark("lib-create-1", LIB_SRC), mark("lib-create-2", LIB_SRC)},
            f"{what}: both creation lines", lines)
    r = t.run(["--quiet", exe, "4"])
    t.check_status(r, 66, f"{what}: races win over the program's status 4")

# the preloaded runtime comes from the build tree, found from dacce-race itself
if "uninstrumented program, preloaded runtime" in progs:
    moved = os.path.join(t.tmp, "bin-copy")
    os.makedirs(moved)
    shutil.copy(t.launcher, moved)
    r = subprocess.run([os.path.join(moved, "dacce-race"), plain], capture_output=True, text=True)
    t.check(r.returncode == 2 and r.stderr.startswith("dacce-race: runtime library ") and
            len(r.stderr.splitlines()) == 1, "a launcher without ../lib/dacce says so", r.stderr)

# ---------------------------------------------------------------- a C++ plugin in a C program
plugin = t.build(os.path.join(HERE, "cxx_plugin.cc"), "libplugin.so",
                 ["-shared", "-fPIC", "-lstdc++"])
host = t.build(os.path.join(HERE, "plugin_host.c"), "plugin_host", [])
r = t.run([host, plugin])
t.check_status(r, 0, "a C++ plugin dlopen'd by a C program")
t.check_in("plugin 45", r.stdout, "the plugin's new/delete work")

t.finish()
