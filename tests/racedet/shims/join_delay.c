/* join_delay.c: preloaded (uninstrumented) under tests/racedet/join_key_reuse.c.
 * pthread_join returns 300 ms after the real one: the runtime's work after
 * the real join (its pthread_join interceptor reaches this through
 * dlsym(RTLD_NEXT)) then runs long after glibc has put the joined thread's
 * stack back in its cache, where the next thread created picks it up. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <time.h>

int pthread_join(pthread_t th, void **ret) {
  static int (*real)(pthread_t, void **);
  if (!real) real = (int (*)(pthread_t, void **))dlsym(RTLD_NEXT, "pthread_join");
  int r = real(th, ret);
  struct timespec pause = {0, 300 * 1000 * 1000};
  nanosleep(&pause, 0);
  return r;
}
