/* dacce-cc / dacce-c++: compile with the ThreadSanitizer instrumentation and
 * link the dacce runtime instead of libtsan.
 *
 * The compiler underneath is $DACCE_CC (dacce-cc, default cc) or $DACCE_CXX
 * (dacce-c++, default c++): gcc or clang.  Compiling adds -fsanitize=thread.
 * Linking:
 *  - gcc: -B<libdir>, where an empty libtsan.so and libtsan_preinit.o stand in
 *    for gcc's own runtime, so gcc's -ltsan links nothing;
 *  - clang: -fno-sanitize-link-runtime;
 *  - an executable gets our runtime (static object by default, or the shared
 *    library with DACCE_RUNTIME=shared) and exports the runtime's entry points
 *    so dlopen'd instrumented libraries bind to them; a shared library
 *    (-shared) gets nothing and binds at load time.
 * DACCE_CC_VERBOSE=1 prints the command it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int has(int argc, char **argv, const char *opt) {
  for (int i = 1; i < argc; i++)
    if (!strcmp(argv[i], opt)) return 1;
  return 0;
}

int main(int argc, char **argv) {
  const char *self = strrchr(argv[0], '/');
  self = self ? self + 1 : argv[0];
  int cxx = strstr(self, "++") != NULL;
  const char *cc = getenv(cxx ? "DACCE_CXX" : "DACCE_CC");
  if (!cc || !*cc) cc = cxx ? "c++" : "cc";

  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) {
    fprintf(stderr, "%s: cannot locate itself: %s\n", self, strerror(errno));
    return 2;
  }
  exe[n] = 0;
  char libdir[PATH_MAX];
  snprintf(libdir, sizeof libdir, "%s/../lib/dacce", dirname(exe));
  char real_libdir[PATH_MAX];
  if (!realpath(libdir, real_libdir)) {
    fprintf(stderr, "%s: runtime directory %s missing: %s\n", self, libdir, strerror(errno));
    return 2;
  }

  /* what the underlying compiler is: clang says so in its version string */
  int is_clang = 0;
  {
    char cmd[PATH_MAX + 64];
    snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", cc);
    FILE *p = popen(cmd, "r");
    if (!p) {
      fprintf(stderr, "%s: cannot run compiler '%s'\n", self, cc);
      return 2;
    }
    char line[512];
    if (fgets(line, sizeof line, p) && strstr(line, "clang")) is_clang = 1;
    int st = pclose(p);
    if (st != 0 && !is_clang) {
      fprintf(stderr, "%s: compiler '%s' not found (set %s)\n", self, cc,
              cxx ? "DACCE_CXX" : "DACCE_CC");
      return 2;
    }
  }

  int link = !(has(argc, argv, "-c") || has(argc, argv, "-S") || has(argc, argv, "-E") ||
               has(argc, argv, "-M") || has(argc, argv, "-MM") ||
               has(argc, argv, "-fsyntax-only"));
  int shared = has(argc, argv, "-shared");
  const char *rt_kind = getenv("DACCE_RUNTIME");
  int rt_shared = rt_kind && !strcmp(rt_kind, "shared");

  char **av = calloc((size_t)argc + 16, sizeof *av);
  char bflag[PATH_MAX + 4], rt[PATH_MAX + 32], dyn[PATH_MAX + 64], rpath[PATH_MAX + 32];
  int k = 0;
  av[k++] = (char *)cc;
  av[k++] = "-fsanitize=thread";
  if (link) {
    if (is_clang) {
      av[k++] = "-fno-sanitize-link-runtime";
    } else {
      snprintf(bflag, sizeof bflag, "-B%s", real_libdir);
      av[k++] = bflag;
    }
  }
  for (int i = 1; i < argc; i++) av[k++] = argv[i];
  if (link && !shared) {
    /* the program's -x LANG holds for every input after it, ours too: the
     * runtime object was compiled as C++ source (LevelDB's
     * build_detect_platform, `c++ -x c++ - -o t`: cc1plus ran on it for
     * good) */
    av[k++] = "-x";
    av[k++] = "none";
    if (rt_shared) {
      snprintf(rt, sizeof rt, "%s/libdacce.so", real_libdir);
      snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", real_libdir);
      av[k++] = rt;
      av[k++] = rpath;
    } else {
      snprintf(rt, sizeof rt, "%s/dacce_rt.o", real_libdir);
      snprintf(dyn, sizeof dyn, "-Wl,--dynamic-list=%s/dacce.dynlist", real_libdir);
      av[k++] = rt;
      av[k++] = dyn;
    }
    av[k++] = "-lpthread";
    av[k++] = "-ldl";
  }
  av[k] = NULL;
  if (getenv("DACCE_CC_VERBOSE")) {
    for (int i = 0; i < k; i++) fprintf(stderr, "%s%s", i ? " " : "", av[i]);
    fputc('\n', stderr);
  }
  execvp(cc, av);
  fprintf(stderr, "%s: cannot run '%s': %s\n", self, cc, strerror(errno));
  return 127;
}
