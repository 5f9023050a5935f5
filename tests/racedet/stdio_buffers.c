/* stdio_buffers.c: the printf family and stdio's buffer functions read and
 * write the caller's memory inside libc, where no instrumentation sees it
 * (racedet/intercept_stdio.c).  Each use_k (on a thread of its own) makes
 * one such call; main makes the other access, ordered with it only by a
 * relaxed flag, which orders nothing:
 *   use_0  snprintf stores into b0; main then reads b0[1]
 *   use_1  fprintf("<%s>") reads s1; main wrote s1[2] before
 *   use_2  sprintf("%d-%s") stores into b2; main then reads b2[3]
 *   use_3  snprintf's %n stores into n3; main then reads n3
 *   use_4  fgets stores a line into b4; main then reads b4[1]
 *   use_5  fwrite reads o5; main wrote o5[3] before
 *   use_6  fread stores into b6; main then reads b6[2]
 *   use_7  getline stores its size into n7; main then reads n7
 *   use_8  fputs reads s8; main wrote s8[1] before
 *   use_9  printf("%.2s|%d") reads s9's first two bytes; main wrote s9[1]
 *          before (and s9[4], past the precision: no race)
 *   use_10 sscanf's %s stores into w10; main then reads w10[1]
 *   use_11 fscanf's %4c stores 4 bytes into c11; main then reads c11[3]
 *   use_12 sscanf("%d %d") of "12 x" stores a12 only; main then reads
 *          a12, and b12 (not stored: no race)
 *   use_13 fprintf("%ls") reads the wide string w13; main wrote w13[2]
 *          before
 *   use_14 sscanf's %ls stores the wide string "abc" into w14; main then
 *          reads w14[2] (bytes 8 to 11: no race if it were counted in
 *          bytes)
 * Fifteen races; before these interceptors, none was found.
 *
 * EXPECT: race
 * EXPECT-COUNT: 15
 * EXPECT-EVERY: 15 use
 * EXPECT-STDOUT: stdio done
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <wchar.h>

#define USES 15
static FILE *sink, *lines, *blocks, *gl, *words;
static char b0[16], s1[16] = "abcdef", b2[16], b4[16], o5[16] = "0123456789", b6[16],
            s8[16] = "fputs", s9[16] = "xyzw";
static char w10[8], c11[8];
static int n3, n10, a12, b12;
static wchar_t w13[8] = L"wide", w14[8];
static size_t n7;
static char *line7;
static volatile int seven = 7; /* not a constant: sprintf stays a call */

__attribute__((noinline)) static void use_0(void) { snprintf(b0, sizeof b0, "n=%d", seven); }
__attribute__((noinline)) static void use_1(void) { fprintf(sink, "<%s>", s1); }
__attribute__((noinline)) static void use_2(void) { sprintf(b2, "%d-%s", seven, "seven"); }
__attribute__((noinline)) static void use_3(void) {
  char tmp[8];
  snprintf(tmp, sizeof tmp, "abc%n", &n3);
}
__attribute__((noinline)) static void use_4(void) {
  if (!fgets(b4, sizeof b4, lines)) abort();
}
__attribute__((noinline)) static void use_5(void) { fwrite(o5, 1, 8, sink); }
__attribute__((noinline)) static void use_6(void) {
  if (fread(b6, 1, 8, blocks) != 8) abort();
}
__attribute__((noinline)) static void use_7(void) {
  if (getline(&line7, &n7, gl) < 0) abort();
}
__attribute__((noinline)) static void use_8(void) { fputs(s8, sink); }
__attribute__((noinline)) static void use_9(void) { printf("%.2s|%d\n", s9, seven); }
__attribute__((noinline)) static void use_10(void) {
  if (sscanf("7 seven", "%d %7s", &n10, w10) != 2) abort();
}
__attribute__((noinline)) static void use_11(void) {
  if (fscanf(words, "%4c", c11) != 1) abort();
}
__attribute__((noinline)) static void use_12(void) {
  if (sscanf("12 x", "%d %d", &a12, &b12) != 1) abort();
}
__attribute__((noinline)) static void use_13(void) { fprintf(sink, "<%ls>", w13); }
__attribute__((noinline)) static void use_14(void) {
  if (sscanf("abc", "%7ls", w14) != 1) abort();
}

static void (*const uses[USES])(void) = {use_0, use_1, use_2,  use_3,  use_4,
                                         use_5, use_6, use_7,  use_8,  use_9,
                                         use_10, use_11, use_12, use_13, use_14};
#include "use_threads.h"

static FILE *file_of(const char *text) {
  FILE *f = tmpfile();
  if (!f || fputs(text, f) < 0 || fseek(f, 0, SEEK_SET)) abort();
  return f;
}

int main(void) {
  sink = fopen("/dev/null", "w");
  lines = file_of("first line\nsecond\n");
  blocks = file_of("ABCDEFGHIJ");
  gl = file_of("a getline line\n");
  words = file_of("wxyz");
  if (!sink) return 1;
  start_uses();
  /* main's accesses before a use: writes of what the use reads */
  s1[2] = 'C';
  o5[3] = '3';
  s8[1] = 'P';
  s9[1] = 'Y';
  s9[4] = 0;
  w13[2] = L'D';
  let_uses_run();
  /* after a use: reads of what it stored */
  int sum = 0;
  wait_flag(&done[0]), sum += b0[1];
  wait_flag(&done[2]), sum += b2[3];
  wait_flag(&done[3]), sum += n3;
  wait_flag(&done[4]), sum += b4[1];
  wait_flag(&done[6]), sum += b6[2];
  wait_flag(&done[7]), sum += (int)n7;
  wait_flag(&done[10]), sum += w10[1];
  wait_flag(&done[11]), sum += c11[3];
  wait_flag(&done[12]), sum += a12;
  sum += b12;
  wait_flag(&done[14]), sum += (int)w14[2];
  join_uses();
  printf("stdio done %d\n", sum > 0);
  free(line7);
  return 0;
}
