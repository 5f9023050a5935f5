/* rss.h: the process's resident set now (VmRSS in /proc/self/status), in
 * KiB, or -1; for the tests that bound the runtime's memory. */
#ifndef RSS_H
#define RSS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rss_kb(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmRSS:", 6)) kb = atol(line + 6);
  if (f) fclose(f);
  return kb;
}
#endif
