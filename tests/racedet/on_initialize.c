/* on_initialize.c: a program's __tsan_on_initialize hook
 * (sanitizer/tsan_interface.h) is called once, when the runtime is up and
 * before main, as ThreadSanitizer calls it.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: hook ran 1 time(s) before main
 */
#include <stdio.h>

static int calls, in_main;
static int before_main = -1;

void __tsan_on_initialize(void) {
  calls++;
  if (before_main < 0) before_main = !in_main;
}

int main(void) {
  in_main = 1;
  printf("hook ran %d time(s) %s main\n", calls, before_main == 1 ? "before" : "not before");
  return 0;
}
