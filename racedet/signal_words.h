/* signal_words.h: how the runtime's text reports (report.c) and the
 * launcher's (tools/) name a signal and an errno value.  Needs _GNU_SOURCE
 * (sigabbrev_np, strerrorname_np) before the first system header.  The
 * runtime formats with dc_snprintf (it calls no printf of the program's):
 * it defines RD_WORDS_SNPRINTF to that first. */
#ifndef DACCE_SIGNAL_WORDS_H
#define DACCE_SIGNAL_WORDS_H
#ifndef _GNU_SOURCE
#error "signal_words.h needs _GNU_SOURCE"
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>
#ifndef RD_WORDS_SNPRINTF
#define RD_WORDS_SNPRINTF snprintf
#endif
/* "SIGUSR1", "SIGRTMIN+3", or "SIG70" */
static inline const char *rd_signal_name(int sig, char buf[24]) {
  const char *a = sig > 0 && sig < SIGRTMIN ? sigabbrev_np(sig) : NULL;
  if (a)
    RD_WORDS_SNPRINTF(buf, 24, "SIG%s", a);
  else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
    RD_WORDS_SNPRINTF(buf, 24, "SIGRTMIN+%d", sig - SIGRTMIN);
  else
    RD_WORDS_SNPRINTF(buf, 24, "SIG%d", sig);
  return buf;
}
/* "9 (EBADF)", or "0" */
static inline const char *rd_errno_words(int e, char buf[40]) {
  const char *n = e ? strerrorname_np(e) : NULL;
  if (n)
    RD_WORDS_SNPRINTF(buf, 40, "%d (%s)", e, n);
  else
    RD_WORDS_SNPRINTF(buf, 40, "%d", e);
  return buf;
}
#endif
