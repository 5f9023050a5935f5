/* launcher_options.h: the dacce-race launcher's own options, one table.
 *
 * X(type, name, default, description).  The type says what the value is and
 * is also its placeholder in --help: file and prefix are strings, int a
 * non-negative integer, flag a boolean (no value on the command line; in
 * DACCE_RACE_OPTIONS "name" or "name=0|1").  The table generates the struct
 * of values (lo_options), the defaults, the parser and --help
 * (dacce-race.c).  Every runtime option of DC_OPTIONS (encoder/internal.h)
 * is accepted too and forwarded to the program in DACCE_OPTIONS; a name in
 * both tables is the launcher's (it forwards what the runtime needs).
 */
#ifndef DACCE_LAUNCHER_OPTIONS_H
#define DACCE_LAUNCHER_OPTIONS_H

#define LAUNCHER_OPTIONS(X)                                                            \
  X(file, json, "", "also write the reports as JSON Lines (one report per line) to FILE") \
  X(file, sarif, "", "also write the reports as a SARIF 2.1.0 log to FILE (GitHub code "  \
                     "scanning)")                                                       \
  X(file, suppressions, "", "skip reports matched by FILE (ThreadSanitizer syntax: "     \
                            "race:, race_top:, thread:, called_from_lib:, deadlock:, "  \
                            "mutex: patterns)")                                         \
  X(int, exitcode, 66, "exit status when races were reported")                         \
  X(flag, halt_on_error, 0, "stop the program at the first (unsuppressed) report")      \
  X(prefix, log_path, "", "write the text reports to PREFIX.<pid> instead of stderr")  \
  X(flag, tsan_header, 0, "start text reports with 'WARNING: ThreadSanitizer:' so "     \
                          "tools that parse TSan logs (ctest memcheck) count them")     \
  X(flag, quiet, 0, "print no text report")                                            \
  X(flag, suppress_equal_addresses, 0,                                                  \
    "one report per racy memory range: skip a data race or use after free whose "       \
    "bytes overlap a reported one's in the same process (ThreadSanitizer's flag, on "   \
    "there by default)")                                                                \
  X(flag, report_repeats, 0,                                                            \
    "print a report again when another process (a forked child, another program under " \
    "--trace-children) hits the same race; by default the repeat gets one line that "   \
    "names the process that reported it")                                              \
  X(flag, trace_children, 0,                                                            \
    "PROGRAM need not be instrumented (a script, make, ctest, a test runner): report "  \
    "the races of every instrumented program it starts, with full paths")              \
  X(flag, help, 0, "print this help and exit")                                         \
  X(flag, version, 0, "print the version and exit")

typedef const char *lo_opt_file;
typedef const char *lo_opt_prefix;
typedef int lo_opt_int;
typedef int lo_opt_flag;

typedef struct lo_options {
#define LO_FIELD(type, name, def, desc) lo_opt_##type name;
  LAUNCHER_OPTIONS(LO_FIELD)
#undef LO_FIELD
} lo_options;

#endif
