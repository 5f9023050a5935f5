/* report_words.h: words the runtime's own text reports (report.c) and the
 * launcher's (tools/render_*.c) share, so that they say the same. */
#ifndef DACCE_REPORT_WORDS_H
#define DACCE_REPORT_WORDS_H
/* under the stack of an access whose shadow cell merged several accesses of
 * one function (racedet/access.c, merged; racedet/site.c) */
#define RD_MERGED_NOTE                                                                      \
  "(merged: the top frame is the first of several accesses by its function, in this "  \
  "context, to these bytes; the racing one may be on another of its lines)"
/* the title of a data race whose current access is to a C++ object's vptr
 * (__tsan_vptr_read/update): ThreadSanitizer's words */
#define RD_VPTR_RACE_TITLE "data race on vptr (ctor/dtor vs virtual call)"
/* the title of a lock-order-inversion report (racedet/deadlock.c) */
#define RD_DEADLOCK_TITLE "lock-order-inversion (potential deadlock)"
/* mutex misuse (racedet/misuse.c), by RD_MISUSE_*: the JSON "misuse" code,
 * the title (ThreadSanitizer's words) and how the text says what happened */
#define RD_MISUSE_CODES {"unlock-not-held", "double-lock", "destroy-held"}
#define RD_MISUSE_TITLES                                                                \
  {"unlock of an unlocked mutex (or by a wrong thread)", "double lock of a mutex",      \
   "destroy of a locked mutex"}
#define RD_MISUSE_DOINGS                                                                \
  {"Unlock of mutex M%d (%#llx) by %s, which does not hold it",                           \
   "Lock of mutex M%d (%#llx) by %s, which holds it already",                             \
   "Destroy of mutex M%d (%#llx) by %s, which holds it"}
/* ... and after an unlock's, the thread that does hold it: " (%s does)" */
#define RD_MISUSE_HOLDER " (%s does)"
/* signal handlers (racedet/intercept_signal.c): the titles (ThreadSanitizer's
 * words), and how the text says what happened */
#define RD_SIGNAL_UNSAFE_TITLE "signal-unsafe call inside of a signal handler"
#define RD_SIGNAL_ERRNO_TITLE "signal handler spoils errno"
/* the function, the signal, its name, the thread */
#define RD_SIGNAL_UNSAFE_DOING "Call of %s in the handler of signal %d (%s) by %s"
/* the signal, its name, the thread, errno before and after (rd_errno_words) */
#define RD_SIGNAL_ERRNO_DOING                                                           \
  "The handler of signal %d (%s) in %s changed errno from %s to %s; the handler, then " \
  "where the signal arrived"

#endif
