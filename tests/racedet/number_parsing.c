/* number_parsing.c: strtol and its kin read the program's string inside
 * libc, where no instrumentation sees it (racedet/intercept_libc.c).  Each
 * use_k (a thread of its own) parses; main makes the other access, ordered
 * with it only by a relaxed flag, which orders nothing:
 *   use_0  strtol reads n0; main wrote n0[1] before
 *   use_1  strtoull reads n1; main wrote n1[0] before
 *   use_2  strtod reads n2; main wrote n2[2] before
 *   use_3  atoi (strtol, when optimised) reads n3; main wrote n3[1] before
 *   use_4  strtof reads n4; main wrote n4[0] before
 *   use_5  strtol stores its end pointer into e5; main then reads e5
 *   use_6  strtol of "12ab" reads up to the 'a'; main wrote n6[3], past
 *          it, before: no race
 * Six races; before, none was found.
 *
 * EXPECT: race
 * EXPECT-COUNT: 6
 * EXPECT-EVERY: 6 use
 * EXPECT-STDOUT: parsed ok
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#define USES 7
static char n0[8] = "10", n1[8] = "11", n2[8] = "2.5", n3[8] = "30", n4[8] = "4.5",
            n5[8] = "55x", n6[8] = "12ab";
static char *e5;
static long got[USES];

__attribute__((noinline)) static void use_0(void) { got[0] = strtol(n0, 0, 10); }
__attribute__((noinline)) static void use_1(void) { got[1] = (long)strtoull(n1, 0, 0); }
__attribute__((noinline)) static void use_2(void) { got[2] = (long)(strtod(n2, 0) * 2); }
__attribute__((noinline)) static void use_3(void) { got[3] = atoi(n3); }
__attribute__((noinline)) static void use_4(void) { got[4] = (long)(strtof(n4, 0) * 2); }
__attribute__((noinline)) static void use_5(void) { got[5] = strtol(n5, &e5, 10); }
__attribute__((noinline)) static void use_6(void) { got[6] = strtol(n6, 0, 10); }

static void (*const uses[USES])(void) = {use_0, use_1, use_2, use_3, use_4, use_5, use_6};
#include "use_threads.h"

int main(void) {
  start_uses();
  n0[1] = '3';
  n1[0] = '2';
  n2[2] = '0';
  n3[1] = '1';
  n4[0] = '5';
  n6[3] = 'c';
  let_uses_run();
  wait_flag(&done[5]);
  const int end_at = (int)(e5 - n5);
  join_uses();
  /* 13 21 4 31 11 55 12, and the end of "55x" at 2 */
  const int ok = got[0] == 13 && got[1] == 21 && got[2] == 4 && got[3] == 31 && got[4] == 11 &&
                 got[5] == 55 && got[6] == 12 && end_at == 2;
  printf("parsed %s\n", ok ? "ok" : "WRONG");
  return !ok;
}
