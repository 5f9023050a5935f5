/* tally.c: an instrumented shared library; it gets no runtime of its own and
 * binds to the executable's at load time. */
#include <pthread.h>

#include "tally.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long total;

void tally_add(long n) {
  pthread_mutex_lock(&lock);
  total += n;
  pthread_mutex_unlock(&lock);
}

long tally_total(void) {
  pthread_mutex_lock(&lock);
  long t = total;
  pthread_mutex_unlock(&lock);
  return t;
}
