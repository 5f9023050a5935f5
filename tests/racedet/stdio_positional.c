/* stdio_positional.c: printf and scanf formats that take their arguments
 * by position (%2$s, a precision *2$: POSIX's way to reorder them for a
 * translation), and a wide string printed with a precision.  Each use_k
 * (on a thread of its own) makes one call; main makes the other access,
 * ordered with it only by a relaxed flag (tests/racedet/use_threads.h):
 *   use_0  fprintf("%2$d %1$s") reads s0; main wrote s0[1] before
 *   use_1  fprintf("%1$.*2$s") with precision 2 reads s1[0..1]; main wrote
 *          s1[1] before (and s1[3], past the precision: no race)
 *   use_2  snprintf("%2$s%1$n") stores 2 into n2; main then reads n2
 *   use_3  fprintf("%.3ls") reads w3[0..2]; main wrote w3[1] before (and
 *          w3[5], past the precision's three bytes: no race)
 *   use_4  sscanf("5 six", "%2$d %1$s") stores "six" into t4 (and 5 into
 *          n4); main then reads t4[1]
 * Five races.  Before, a format's arguments were recorded up to its first
 * position only (use_0 .. use_2 and use_4 were lost), and a wide string
 * printed with a precision not at all (use_3).
 *
 * EXPECT: race
 * EXPECT-COUNT: 5
 * EXPECT-EVERY: 5 use
 * EXPECT-STDOUT: positional done 1
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define USES 5
static FILE *sink;
static char s0[8] = "first", s1[8] = "abcdef", t4[8];
static int n2, n4;
static wchar_t w3[8] = L"wide-ch";
static volatile int two = 2; /* not a constant */

__attribute__((noinline)) static void use_0(void) { fprintf(sink, "%2$d %1$s", s0, two); }
__attribute__((noinline)) static void use_1(void) { fprintf(sink, "%1$.*2$s", s1, two); }
__attribute__((noinline)) static void use_2(void) {
  char tmp[8];
  snprintf(tmp, sizeof tmp, "%2$s%1$n", &n2, "ab");
}
__attribute__((noinline)) static void use_3(void) { fprintf(sink, "%.3ls", w3); }
__attribute__((noinline)) static void use_4(void) {
  if (sscanf("5 six", "%2$d %1$s", t4, &n4) != 2) abort();
}

static void (*const uses[USES])(void) = {use_0, use_1, use_2, use_3, use_4};
#include "use_threads.h"

int main(void) {
  sink = fopen("/dev/null", "w");
  if (!sink) return 1;
  start_uses();
  /* main's accesses before a use: writes of what the use reads */
  s0[1] = 'I';
  s1[1] = 'B';
  s1[3] = 'D';
  w3[1] = L'I';
  w3[5] = L'C';
  let_uses_run();
  /* after a use: reads of what it stored */
  wait_flag(&done[2]);
  int ok = n2 == 2;
  wait_flag(&done[4]);
  ok &= t4[1] == 'i';
  join_uses();
  ok &= n4 == 5 && strcmp(t4, "six") == 0;
  printf("positional done %d\n", ok);
  return 0;
}
