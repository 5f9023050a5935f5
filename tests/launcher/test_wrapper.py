#!/usr/bin/env python3
"""test_wrapper.py BUILD_DIR [gcc|clang]: dacce-cc and dacce-c++ as a build
system's compiler.

Configure scripts compile from standard input with the language given by
-x (LevelDB's build_detect_platform: `$CXX -x c++ - -o t`).  The runtime
object that the wrapper appends to a link came after that -x, and the
compiler took it for C++ source: gcc's cc1plus ran on it without end,
clang failed.  Each form (-x LANG and -xLANG, C and C++) must build within
a minute and give an instrumented program (its race reported).
"""
import os
import subprocess

from lrtest import Test

t = Test("launcher_wrapper")
src = "#include <pthread.h>\n" \
      "int g;\n" \
      "void *w(void *a) { g++; return a; }\n" \
      "int main(void) {\n" \
      "  pthread_t a, b;\n" \
      "  pthread_create(&a, 0, w, 0);\n" \
      "  pthread_create(&b, 0, w, 0);\n" \
      "  pthread_join(a, 0);\n" \
      "  pthread_join(b, 0);\n" \
      "  return 0;\n" \
      "}\n"
cxx = {"gcc": "g++", "clang": "clang++"}[t.cc]
for wrapper, lang, env in (("dacce-cc", "c", {"DACCE_CC": t.cc}),
                           ("dacce-c++", "c++", {"DACCE_CXX": cxx})):
    for form in (["-x", lang], ["-x" + lang]):
        what = f"{wrapper} {' '.join(form)} -"
        exe = os.path.join(t.tmp, f"stdin_{wrapper}_{len(form)}")
        e = dict(os.environ, **env)
        try:
            b = subprocess.run([os.path.join(t.bin, wrapper), "-g", "-O1", *form, "-", "-o", exe],
                               input=src, env=e, capture_output=True, text=True, timeout=60)
        except subprocess.TimeoutExpired:
            t.check(False, f"{what}: the build did not end within 60 s")
            continue
        if not t.check(b.returncode == 0, f"{what}: builds", b.stderr):
            continue
        r = t.run(["--quiet", exe])
        t.check_status(r, 66, f"{what}: the program is instrumented (its race reported)")
t.finish()
