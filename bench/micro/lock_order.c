/* lock_order.c MODE N: the lock-order graph under two ways of taking
 * many mutexes in one order (no inversion).  Exits 1 when the counts are
 * wrong.
 *
 * hub: N objects made one after another, each with a mutex of its own
 * that is taken before a registry's mutex, and under that one of 1,024
 * bucket mutexes; then the object goes.  Each object's lock is a new node
 * with an edge to the registry's, which has edges to the buckets.
 *
 * crabbing: a tree of mutexes (a B-tree's latches: fan-out 64, three
 * levels under the root, 266,305 mutexes) and four threads, each going
 * down from the root to N random leaves in turn with lock coupling (latch
 * crabbing): a child's lock taken while its parent's is held, then the
 * parent's dropped.  An edge per parent and child, with an instance per
 * thread. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAN 64
#define LEVELS 4 /* the root's, then three more */
#define THREADS 4

typedef struct node {
  pthread_mutex_t m;
  long visits;
} node;
static node *level[LEVELS];
static long n;

static void *descend(void *arg) {
  uint64_t seed = 0x9E3779B97F4A7C15ull * ((uintptr_t)arg + 1);
  for (long k = 0; k < n; k++) {
    seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
    size_t at = 0;
    pthread_mutex_lock(&level[0][0].m);
    level[0][0].visits++;
    for (int d = 1; d < LEVELS; d++) {
      const size_t child = at * FAN + (size_t)((seed >> (6 * d)) % FAN);
      pthread_mutex_lock(&level[d][child].m);
      level[d][child].visits++;
      pthread_mutex_unlock(&level[d - 1][at].m);
      at = child;
    }
    pthread_mutex_unlock(&level[LEVELS - 1][at].m);
  }
  return 0;
}

static int hub(void) {
  static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER, bucket[1024];
  long total = 0;
  for (int i = 0; i < 1024; i++) pthread_mutex_init(&bucket[i], 0);
  for (long i = 0; i < n; i++) {
    pthread_mutex_t *m = malloc(sizeof *m);
    if (!m) return 2;
    pthread_mutex_init(m, 0);
    pthread_mutex_lock(m);
    pthread_mutex_lock(&registry);
    pthread_mutex_lock(&bucket[i % 1024]);
    total++;
    pthread_mutex_unlock(&bucket[i % 1024]);
    pthread_mutex_unlock(&registry);
    pthread_mutex_unlock(m);
    pthread_mutex_destroy(m);
    free(m);
  }
  printf("hub %ld total %ld\n", n, total);
  return total != n;
}

int main(int argc, char **argv) {
  if (argc != 3 || (strcmp(argv[1], "hub") && strcmp(argv[1], "crabbing")) ||
      (n = atol(argv[2])) < 1) {
    fprintf(stderr, "usage: lock_order hub|crabbing N\n");
    return 2;
  }
  if (!strcmp(argv[1], "hub")) return hub();
  size_t count = 1;
  for (int d = 0; d < LEVELS; d++, count *= FAN) {
    level[d] = calloc(count, sizeof(node));
    if (!level[d]) return 2;
    for (size_t i = 0; i < count; i++) pthread_mutex_init(&level[d][i].m, 0);
  }
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], 0, descend, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  long sum[LEVELS] = {0};
  count = 1;
  for (int d = 0; d < LEVELS; d++, count *= FAN) {
    for (size_t i = 0; i < count; i++) {
      sum[d] += level[d][i].visits;
      pthread_mutex_destroy(&level[d][i].m);
    }
    free(level[d]);
  }
  printf("crabbing %ld visits %ld\n", n, sum[LEVELS - 1]);
  for (int d = 0; d < LEVELS; d++)
    if (sum[d] != THREADS * n) return 1;
  return 0;
}
