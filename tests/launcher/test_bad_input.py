#!/usr/bin/env python3
"""test_bad_input.py BUILD_DIR: what dacce-race refuses before running.

Every case exits with status 2 and says why in exactly one line on stderr,
starting with "dacce-race: ", and the program does not run: a missing
program (by path and through PATH), one that is not executable, a
directory, not ELF, not instrumented, built with ThreadSanitizer's own
runtime (gcc's libtsan.so and clang's static one), a missing, unreadable or
malformed suppressions file, unwritable --json / --sarif / --log-path
outputs, and bad options (unknown, bad values, missing values, options the
launcher reserves, DACCE_RACE_OPTIONS).
"""
import os
import re
import shutil
import stat
import subprocess

from lrtest import Test

t = Test("launcher_bad_input")
prog = t.race_prog()
tmp = t.tmp


def refuse(args, want, what, env=None, cwd=None):
    r = t.run(args, env=env, cwd=cwd)
    lines = r.stderr.splitlines()
    t.check_status(r, 2, what)
    t.check(len(lines) == 1, f"{what}: one line on stderr, got {len(lines)}", r.stderr)
    t.check(r.stdout == "", f"{what}: the program did not run", r.stdout)
    if lines:
        ok = re.fullmatch(want, lines[0]) if isinstance(want, re.Pattern) else lines[0] == want
        t.check(ok, f"{what}: message {lines[0]!r}, expected {want if isinstance(want, str) else want.pattern!r}")


def plain_build(cc, src, out, flags=()):
    if not shutil.which(cc):
        return None
    exe = os.path.join(tmp, out)
    r = subprocess.run([cc, *flags, src, "-o", exe], capture_output=True, text=True)
    return exe if r.returncode == 0 else None


hello = os.path.join(tmp, "hello.c")
with open(hello, "w") as f:
    f.write("#include <stdio.h>\nint main(void) { puts(\"ran\"); return 0; }\n")

# ---------------------------------------------------------------- the program
refuse(["./no_such_program"], "dacce-race: ./no_such_program: no such file", "missing program")
refuse(["no_such_program_in_path"],
       "dacce-race: no_such_program_in_path: no such file (not found in PATH)",
       "missing program in PATH")
noexec = os.path.join(tmp, "noexec")
shutil.copy(prog, noexec)
os.chmod(noexec, 0o644)
refuse([noexec], f"dacce-race: {noexec}: not executable", "not executable")
refuse([tmp], f"dacce-race: {tmp}: is a directory", "a directory")
script = os.path.join(tmp, "script.sh")
with open(script, "w") as f:
    f.write("#!/bin/sh\necho ran\n")
os.chmod(script, 0o755)
HINT = " (to run a script or test runner that starts instrumented programs: --trace-children)"
refuse([script], f"dacce-race: {script}: not an ELF file{HINT}", "not ELF")
plain = plain_build("gcc", hello, "plain")
refuse([plain], f"dacce-race: {plain} is not instrumented: rebuild it with dacce-cc (or "
       f"-fsanitize=thread and the dacce runtime){HINT}", "not instrumented")
tsan_msg = (" is built with ThreadSanitizer's own runtime: rebuild it with dacce-cc (or "
            "-fsanitize=thread and the dacce runtime)")
tsans = 0
for cc in ("gcc", "clang"):
    exe = plain_build(cc, hello, f"tsan_{cc}", ["-fsanitize=thread"])
    if exe:  # gcc: needs libtsan.so; clang: TSan's runtime linked in
        tsans += 1
        refuse([exe], f"dacce-race: {exe}{tsan_msg}", f"ThreadSanitizer runtime ({cc})")
t.check(tsans > 0, "no compiler could build a ThreadSanitizer program to test with")

# ---------------------------------------------------------------- suppressions
refuse(["--suppressions", os.path.join(tmp, "missing.supp"), prog],
       re.compile(r"dacce-race: cannot read suppressions file .*/missing\.supp: No such file or "
                  r"directory"), "missing suppressions file")
for name, body, want in (
        ("bad-line", "# ok\nrace:foo\nbogus line\n", r"dacce-race: .*/bad-line\.supp:3: 'bogus line' "
                                                     r"is not TYPE:PATTERN"),
        ("bad-type", "racy:foo\n", r"dacce-race: .*/bad-type\.supp:1: unknown suppression type "
                                   r"'racy' \(race, race_top, thread, called_from_lib\)"),
        ("empty-pattern", "\n\nrace:\n", r"dacce-race: .*/empty-pattern\.supp:3: empty pattern in "
                                         r"'race:'"),
        ("binary", "race:a\n\0\x01\n", r"dacce-race: .*/binary\.supp:2: not a text line")):
    path = os.path.join(tmp, name + ".supp")
    with open(path, "w") as f:
        f.write(body)
    refuse(["--suppressions", path, prog], re.compile(want), f"suppressions {name}")
if os.geteuid() != 0:  # root reads anything
    unreadable = os.path.join(tmp, "unreadable.supp")
    with open(unreadable, "w") as f:
        f.write("race:x\n")
    os.chmod(unreadable, 0)
    refuse(["--suppressions", unreadable, prog],
           re.compile(r"dacce-race: cannot read suppressions file .*: Permission denied"),
           "unreadable suppressions file")
refuse(["--suppressions", tmp, prog],
       re.compile(r"dacce-race: cannot read suppressions file .*: Is a directory"),
       "suppressions file is a directory")

# ---------------------------------------------------------------- outputs
nodir = os.path.join(tmp, "no", "such", "dir")
refuse(["--json", nodir + "/r.jsonl", prog],
       f"dacce-race: cannot write --json file {nodir}/r.jsonl: No such file or directory",
       "unwritable --json")
refuse(["--sarif", nodir + "/r.sarif", prog],
       f"dacce-race: cannot write --sarif file {nodir}/r.sarif: No such file or directory",
       "unwritable --sarif")
refuse(["--json", tmp, prog], f"dacce-race: cannot write --json file {tmp}: Is a directory",
       "--json is a directory")
refuse(["--log-path", nodir + "/log", prog],
       f"dacce-race: cannot write --log-path files {nodir}/log.<pid>: directory {nodir} missing",
       "unwritable --log-path")

# ---------------------------------------------------------------- options
refuse(["--foo", prog], "dacce-race: unknown option '--foo' (see --help)", "unknown option")
refuse(["--foo=1", prog], "dacce-race: unknown option '--foo' (see --help)", "unknown option=")
refuse(["-x", prog], "dacce-race: unknown option '-x' (see --help)", "unknown short option")
refuse(["--exitcode=abc", prog],
       "dacce-race: option '--exitcode' wants a non-negative integer, got 'abc'", "bad int")
refuse(["--exitcode", "-3", prog],
       "dacce-race: option '--exitcode' wants a non-negative integer, got '-3'", "negative int")
refuse(["--exitcode=300", prog], "dacce-race: option '--exitcode' must be at most 255, got 300",
       "exitcode too large")
refuse(["--verify=often", prog],
       "dacce-race: option '--verify' wants a non-negative integer, got 'often'",
       "bad runtime int")
refuse(["--dump=/tmp/a:b", prog],
       "dacce-race: option '--dump': the value cannot hold spaces, commas or colons (it goes "
       "into DACCE_OPTIONS), got '/tmp/a:b'", "runtime value with a separator")
refuse(["--quiet=maybe", prog],
       "dacce-race: option '--quiet' is a flag: give no value, or 0/1, got 'maybe'", "bad flag")
refuse(["--raw-reports=/tmp/x", prog],
       "dacce-race: option '--raw-reports' is the launcher's business: dacce-race sets it itself",
       "reserved runtime option")
refuse([prog.replace(prog, "--json")], "dacce-race: option '--json' wants a value",
       "missing value")
refuse([], "dacce-race: no program to run (usage: dacce-race [options] [--] PROGRAM [ARGS...])",
       "no program")
refuse(["--quiet", "--"], "dacce-race: no program to run (usage: dacce-race [options] [--] "
       "PROGRAM [ARGS...])", "no program after --")
refuse([prog], "dacce-race: DACCE_RACE_OPTIONS: unknown option 'bogus' (see --help)", "DACCE_RACE_OPTIONS unknown",
       env={"DACCE_RACE_OPTIONS": "quiet bogus=1"})
refuse([prog], "dacce-race: DACCE_RACE_OPTIONS: option 'json' wants a value (json=VALUE)",
       "DACCE_RACE_OPTIONS missing value", env={"DACCE_RACE_OPTIONS": "json"})

t.finish()
