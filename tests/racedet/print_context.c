/* print_context.c: dacce_print() (encoder/dump.c), the API that prints a
 * captured context in-process, writes the whole decoded path to the
 * caller's stream, a memory stream here (no descriptor behind it): frame
 * #0 is where it was captured (here), called from inner, which outer
 * called, which main called.  It formats with the runtime's own formatter
 * and hands the text to libc's fwrite, not to the program's intercepted
 * one, so printing records no access and reports nothing.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: print ok
 */
#define _GNU_SOURCE
#include "../../encoder/include/dacce.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *text;
static size_t len;

__attribute__((noinline)) static void here(void) {
  dacce_ctx c;
  dacce_capture(&c);
  FILE *f = open_memstream(&text, &len);
  if (!f) exit(2);
  dacce_print(&c, f);
  fclose(f);
}
__attribute__((noinline)) static void inner(void) {
  here();
  __asm__ volatile("" ::: "memory"); /* no tail call */
}
__attribute__((noinline)) static void outer(void) {
  inner();
  __asm__ volatile("" ::: "memory");
}

int main(void) {
  outer();
  const char *want[] = {"#0 here+", "called from inner+", "#1 inner+", "called from outer+",
                        "#2 outer+", "called from main+", "#3 main+"};
  int ok = text != NULL;
  for (size_t i = 0; ok && i < sizeof want / sizeof *want; i++)
    if (!strstr(text, want[i])) {
      printf("FAIL: no '%s' in:\n%s", want[i], text);
      ok = 0;
    }
  if (ok) printf("print ok\n");
  free(text);
  return !ok;
}
