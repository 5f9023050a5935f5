/* lib_prog.c: calls liblrtest.so (lib_racy.c), whose threads race; exits
 * with argv[1] (default 0).  Built instrumented with dacce-cc, or not at all
 * (then dacce-race must preload the runtime for the library). */
#include <stdlib.h>

void lib_race(void);

int main(int argc, char **argv) {
  lib_race(); /* @call-lib */
  return argc > 1 ? atoi(argv[1]) : 0;
}
