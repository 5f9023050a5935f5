/* lib_racy.c: an instrumented shared library (liblrtest.so) whose threads
 * race on its own static variable; lib_prog.c calls it.  For the launcher
 * tests of modules other than the program: symbolisation in a library,
 * a static global found in the library's symbol table, called_from_lib
 * suppressions, and programs that need the runtime preloaded. */
#include <pthread.h>
#include <unistd.h>

static int lib_counter; /* @lib-global */
static int first_done; /* relaxed atomic: the second worker waits (see race_prog.c) */

__attribute__((noinline)) static void lib_bump(void) {
  lib_counter++; /* @lib-write */
}

static void *lib_worker(void *arg) {
  if (arg)
    while (!__atomic_load_n(&first_done, __ATOMIC_RELAXED)) usleep(1000);
  lib_bump(); /* @lib-call */
  if (!arg) __atomic_store_n(&first_done, 1, __ATOMIC_RELAXED);
  return arg;
}

void lib_race(void) {
  pthread_t a, b;
  pthread_create(&a, 0, lib_worker, 0); /* @lib-create-1 */
  pthread_create(&b, 0, lib_worker, &b); /* @lib-create-2 */
  pthread_join(a, 0);
  pthread_join(b, 0);
}
