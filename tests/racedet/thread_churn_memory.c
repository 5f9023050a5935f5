/* thread_churn_memory.c: what a thread costs after it ended.
 *
 * A program that creates and joins threads all run long (a thread per
 * request) must not grow much with each one.  The runtime keeps a little of
 * every thread for good: its record (creator, creation context, name: the
 * ancestry in reports) and its incarnations' tables of sites (racedet/site.c:
 * its cells may be reported after it ended).  A table's first chunk was 64
 * entries, 512 bytes for a thread that names one or two contexts: about
 * 780 bytes a thread in all, against clang TSan's 330.  It is 8 entries now:
 * about 350.
 *
 * 2,000 threads first (the runtime's tables and caches settle), then the
 * resident set is read, 24,000 more threads, and it is read again: the
 * growth per thread must stay under 550 bytes (the 64-entry chunk gave
 * about 780 here).  Each thread adds to a total under a mutex, from a call
 * path of its own.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: per-thread memory ok
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rss.h"

#define WARMUP 2000
#define MEASURED 24000
#define BATCH 4

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total;

__attribute__((noinline)) void add(long i) {
  pthread_mutex_lock(&mu);
  total += i;
  pthread_mutex_unlock(&mu);
}
static void *run(void *arg) {
  add((long)arg);
  return 0;
}

static void churn(long n) {
  for (long i = 0; i < n; i += BATCH) {
    pthread_t t[BATCH];
    for (int k = 0; k < BATCH; k++)
      if (pthread_create(&t[k], 0, run, (void *)(i + k))) {
        perror("pthread_create");
        exit(1);
      }
    for (int k = 0; k < BATCH; k++) pthread_join(t[k], 0);
  }
}

int main(void) {
  churn(WARMUP);
  const long before = rss_kb();
  churn(MEASURED);
  const long after = rss_kb();
  const long per = (after - before) * 1024 / MEASURED;
  printf("rss %ld -> %ld KB, %ld bytes per thread, total %ld\n", before, after, per, total);
  if (before > 0 && after > 0 && per < 550) printf("per-thread memory ok\n");
  return 0;
}
