/* lock_churn_memory.c: what a lock costs after it was destroyed.
 *
 * A program that makes and destroys objects with locks of their own all
 * run long (a connection, a request, a cache entry each), and takes them
 * under a global lock, must not grow with each one.  Each such acquisition
 * is an edge of the lock-order graph (racedet/deadlock.c) from the global
 * lock to the object's.  When the object's lock went, its node went with
 * its edges out, but the global lock's edge to it stayed until a search
 * for cycles met it, and none starts there: 134 bytes a mutex for good
 * (269 MB after 2 million; clang TSan: a flat 19 MB), 423 bytes an
 * object here, with its rwlock and spinlock.  Each object also has a lock
 * taken before the global one, only ever an edge's `from`: until
 * 2026-12-02 its node and edge stayed when it went (only the locks that
 * were wanted under another were marked as nodes).
 *
 * A lock-order inversion between two locks that live throughout frames the
 * churn: the first half before it, the second after it, so that the
 * sweeps that drop the edges of the locks that went must keep the first
 * half's edge.  20,000 objects first (the runtime's tables settle), then
 * the resident set is read, 200,000 more objects, and it is read again:
 * the growth per object must stay under 16 bytes (423 before the sweep;
 * 368 with the outer lock's node and edge kept, 0 now).
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 1
 * EXPECT-CYCLE: 2
 * EXPECT-WANTED: b_under_a a_under_b
 * EXPECT-STDOUT: per-object memory ok
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rss.h"

#define WARMUP 20000
#define MEASURED 200000

typedef struct object {
  pthread_mutex_t outer, m;
  pthread_rwlock_t rw;
  pthread_spinlock_t sp;
  long v;
} object;

static pthread_mutex_t global = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t a, b;
static long total;

__attribute__((noinline)) static void churn(long n) {
  for (long i = 0; i < n; i++) {
    object *o = malloc(sizeof *o);
    if (!o) exit(1);
    pthread_mutex_init(&o->outer, 0);
    pthread_mutex_init(&o->m, 0);
    pthread_rwlock_init(&o->rw, 0);
    pthread_spin_init(&o->sp, 0);
    pthread_mutex_lock(&o->outer);
    pthread_mutex_lock(&global);
    pthread_mutex_lock(&o->m);
    pthread_rwlock_wrlock(&o->rw);
    pthread_spin_lock(&o->sp);
    o->v = i;
    total += o->v;
    pthread_spin_unlock(&o->sp);
    pthread_rwlock_unlock(&o->rw);
    pthread_mutex_unlock(&o->m);
    pthread_mutex_unlock(&global);
    pthread_mutex_unlock(&o->outer);
    pthread_spin_destroy(&o->sp);
    pthread_rwlock_destroy(&o->rw);
    pthread_mutex_destroy(&o->m);
    pthread_mutex_destroy(&o->outer);
    free(o);
  }
}

__attribute__((noinline)) static void b_under_a(void) {
  pthread_mutex_lock(&a);
  pthread_mutex_lock(&b);
  total++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
}
__attribute__((noinline)) static void a_under_b(void) {
  pthread_mutex_lock(&b);
  pthread_mutex_lock(&a);
  total++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
}
static void *first(void *arg) {
  (void)arg;
  b_under_a();
  return 0;
}
static void *second(void *arg) {
  (void)arg;
  a_under_b();
  return 0;
}

int main(void) {
  pthread_mutex_init(&a, 0);
  pthread_mutex_init(&b, 0);
  pthread_t t;
  if (pthread_create(&t, 0, first, 0) || pthread_join(t, 0)) return 1;
  churn(WARMUP);
  const long before = rss_kb();
  churn(MEASURED);
  const long after = rss_kb();
  if (pthread_create(&t, 0, second, 0) || pthread_join(t, 0)) return 1;
  const long per = (after - before) * 1024 / MEASURED;
  printf("rss %ld -> %ld KB, %ld bytes per object, total %ld\n", before, after, per, total);
  if (before > 0 && after > 0 && per < 16) printf("per-object memory ok\n");
  return 0;
}
