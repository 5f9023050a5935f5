/* dlopen_race.c: the race is inside an instrumented library that the program
 * dlopen()s at run time (lib/dlopen_race_lib.c, built with dacce-cc -shared
 * -fPIC), and the racing stacks cross the module boundary twice: the
 * program's thread calls into the library, which calls back into the
 * program, which calls the library function that touches the library's
 * global.  Both stacks and the library global's location must be decoded.
 *
 * BUILD-SHARED: lib/dlopen_race_lib.c libdlopen_race_lib.so
 * EXPECT: race
 * EXPECT-CURRENT: lib_touch app_callback lib_entry worker
 * EXPECT-PREVIOUS: lib_touch app_callback lib_entry worker
 * EXPECT-LOCATION: global lib_counter
 * EXPECT-CREATION: main
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void (*lib_entry_fn)(void (*)(void));
static void (*lib_touch_fn)(void);

/* called back by the library */
__attribute__((noinline)) void app_callback(void) { lib_touch_fn(); }

void *worker(void *arg) {
  lib_entry_fn(app_callback);
  return arg;
}

int main(void) {
  void *h = dlopen("./libdlopen_race_lib.so", RTLD_NOW);
  if (!h) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 3;
  }
  lib_entry_fn = (void (*)(void (*)(void)))dlsym(h, "lib_entry");
  lib_touch_fn = (void (*)(void))dlsym(h, "lib_touch");
  if (!lib_entry_fn || !lib_touch_fn) return 4;
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, worker, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return 0;
}
