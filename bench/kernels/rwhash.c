/* rwhash.c: a chained hash table under pthread_rwlock, mixed reads and writes.
 *
 * 4096 buckets, one rwlock per 64 buckets.  Four threads each perform `size`
 * operations on keys in [0, 65536): 90% lookups of any key (read lock), 10%
 * writes (write lock) to keys of the thread's own partition (key % 4 ==
 * thread): insert or update (a new heap node replaces the old one) or delete
 * (the node is freed).  Every node carries its value twice (v and ~v), which
 * a lookup checks.  Because each thread writes only its own keys, each keeps
 * a private model of them; the main thread checks the table against the
 * models at the end and prints a checksum of its contents.
 *
 * usage: rwhash [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define NBUCKETS 4096
#define NLOCKS 64
#define NKEYS 65536

typedef struct entry {
  struct entry *next;
  uint32_t key;
  uint64_t val, check;
} entry;

static entry *buckets[NBUCKETS];
static pthread_rwlock_t locks[NLOCKS];
static long size;
static long bad;  /* written by the main thread only */

struct thread_state {
  int id;
  uint64_t seed;
  int64_t model[NKEYS / NTHREADS]; /* value of key id + 4*i, or -1 */
  long hits, corrupt;
};

static unsigned bucket_of(uint32_t key) { return (key * 2654435761u) >> 20; }
static pthread_rwlock_t *lock_of(unsigned b) { return &locks[b % NLOCKS]; }

__attribute__((noinline)) static int lookup(uint32_t key, uint64_t *val) {
  unsigned b = bucket_of(key);
  int found = 0;
  pthread_rwlock_rdlock(lock_of(b));
  for (entry *e = buckets[b]; e; e = e->next)
    if (e->key == key) {
      *val = e->val;
      found = e->check == ~e->val ? 1 : -1;
      break;
    }
  pthread_rwlock_unlock(lock_of(b));
  return found;
}

__attribute__((noinline)) static void upsert(uint32_t key, uint64_t val) {
  unsigned b = bucket_of(key);
  entry *n = malloc(sizeof *n);
  if (!n) exit(2);
  n->key = key;
  n->val = val;
  n->check = ~val;
  pthread_rwlock_wrlock(lock_of(b));
  entry **p = &buckets[b], *old = NULL;
  while (*p && (*p)->key != key) p = &(*p)->next;
  if (*p) {
    old = *p;
    n->next = old->next;
  } else {
    n->next = NULL;
  }
  *p = n;
  pthread_rwlock_unlock(lock_of(b));
  free(old);
}

__attribute__((noinline)) static void erase(uint32_t key) {
  unsigned b = bucket_of(key);
  entry *old = NULL;
  pthread_rwlock_wrlock(lock_of(b));
  for (entry **p = &buckets[b]; *p; p = &(*p)->next)
    if ((*p)->key == key) {
      old = *p;
      *p = old->next;
      break;
    }
  pthread_rwlock_unlock(lock_of(b));
  free(old);
}

static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void *worker(void *arg) {
  struct thread_state *ts = arg;
  for (int i = 0; i < NKEYS / NTHREADS; i++) ts->model[i] = -1;
  for (long op = 0; op < size; op++) {
    uint64_t r = next(&ts->seed);
    uint32_t key = (uint32_t)(r >> 16) % NKEYS;
    if (r % 10) {
      uint64_t v;
      int f = lookup(key, &v);
      if (f > 0) ts->hits++;
      if (f < 0) ts->corrupt++;
    } else {
      uint32_t mine = key - key % NTHREADS + (uint32_t)ts->id;
      if ((r >> 8) % 4 == 0) {
        erase(mine);
        ts->model[mine / NTHREADS] = -1;
      } else {
        uint64_t v = (r >> 20) & 0xffffffffffull;
        upsert(mine, v);
        ts->model[mine / NTHREADS] = (int64_t)v;
      }
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  size = argc > 1 ? atol(argv[1]) : 3000000;
  if (size < 1) return 2;
  for (int i = 0; i < NLOCKS; i++) pthread_rwlock_init(&locks[i], NULL);
  static struct thread_state ts[NTHREADS];
  pthread_t th[NTHREADS];
  for (int t = 0; t < NTHREADS; t++) {
    ts[t].id = t;
    ts[t].seed = 0x2545f4914f6cdd1dull * (uint64_t)(t + 1);
    pthread_create(&th[t], NULL, worker, &ts[t]);
  }
  for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
  uint64_t sum = 0;
  long entries = 0;
  for (uint32_t key = 0; key < NKEYS; key++) {
    uint64_t v = 0;
    int f = lookup(key, &v);
    int64_t want = ts[key % NTHREADS].model[key / NTHREADS];
    if (f < 0 || (f == 0) != (want < 0) || (f > 0 && (int64_t)v != want)) bad++;
    if (f > 0) {
      entries++;
      sum = sum * 31 + v + key;
    }
  }
  for (int t = 0; t < NTHREADS; t++) bad += ts[t].corrupt;
  printf("rwhash size %ld entries %ld checksum %016llx\n", size, entries, (unsigned long long)sum);
  for (unsigned b = 0; b < NBUCKETS; b++)
    for (entry *e = buckets[b], *n; e; e = n) {
      n = e->next;
      free(e);
    }
  for (int i = 0; i < NLOCKS; i++) pthread_rwlock_destroy(&locks[i]);
  if (bad) {
    fprintf(stderr, "rwhash: %ld wrong entries\n", bad);
    return 1;
  }
  return 0;
}
