/* test_index.c: the hash index that every interning table finds its records
 * by (dc_index: contexts, ccStack nodes, call edges, pcs, held sets).  A
 * slot keeps a record's number and a 4-bit tag of its hash; growth asks the
 * owner for each record's hash again.  Keys are inserted as an owner does
 * (record first, then the index) past several growths, with hashes made to
 * collide: some keys share their probe start and tag with others (they are
 * told apart only by the record compare), many share the probe start alone.
 * Every key must then be found as its own record, a key never inserted
 * must not be, a lookup must stop at an empty slot, and a lookup of a key
 * absent from a crowded run must be offered few candidates (the tag filters
 * the rest).  An index past DC_INDEX_MAX must be refused. */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

#include "check.h"

#define N 200000u
static uint64_t keys[N + 1]; /* record i's key; 0 unused */
static uint32_t n_keys;

/* The hash of a key: high 32 bits (the probe start) from key / 8, so that
 * runs of eight keys start at the same slot; the tag bits from key % 3, so
 * that keys of one run share tags too (keys from 2^40 on, never inserted,
 * take tag 15); the rest from the whole key. */
static uint64_t key_hash(uint64_t key) {
  const uint64_t start = dc_hash(&(uint64_t){key / 8}, 8) & 0xffffffff00000000ull;
  const uint64_t tag = (uint64_t)(key >> 40 ? 15 : key % 3) << DC_INDEX_BITS;
  return start | tag | (key & (DC_INDEX_MAX - 1));
}
static uint64_t key_rehash(uint32_t i) { return key_hash(keys[i]); }

/* The record of key, as an owner finds it; *candidates: how many the index
 * offered. */
static uint32_t find(dc_index *x, uint64_t key, int *candidates) {
  const uint64_t h = key_hash(key);
  const dc_itab *t = dc_index_tab(x);
  uint32_t pos = (uint32_t)(h >> 32), i;
  *candidates = 0;
  while ((i = dc_index_next(t, h, &pos))) {
    ++*candidates;
    if (i > n_keys) return UINT32_MAX; /* not a record's number */
    if (keys[i] == key) return i;
  }
  return 0;
}

int main(void) {
  dc_index x;
  dc_index_init(&x, 4, key_rehash);
  /* keys 1, 2, ...: eight to a probe start, all but the eighth (key % 8 ==
   * 7: left out, to be looked up in a crowded run) */
  for (uint64_t key = 1; n_keys < N; key++) {
    if (key % 8 == 7) continue;
    keys[++n_keys] = key;
    dc_index_insert(&x, key_hash(key), n_keys);
  }
  CHECK(dc_index_tab(&x)->mask + 1 >= 2 * N, "table of %u slots for %u keys",
        dc_index_tab(&x)->mask + 1, N);
  int lost = 0, wrong = 0, cand;
  for (uint32_t i = 1; i <= n_keys; i++) {
    const uint32_t got = find(&x, keys[i], &cand);
    lost += got == 0;
    wrong += got != 0 && got != i;
  }
  CHECK(!lost && !wrong, "%d keys not found, %d found as another record", lost, wrong);
  /* keys never inserted, none found: in crowded runs, where the seven keys
   * that start at the same slot lie on the probe's path and the tag leaves
   * two or three of them (and of the run's neighbours) to the record
   * compare; and with a tag no key has, where it leaves none */
  int found = 0, crowded = 0, far = 0;
  for (uint64_t j = 0; j < 1000; j++) {
    found += find(&x, j * 8 + 7, &cand) != 0;
    crowded += cand;
    found += find(&x, (uint64_t)1 << 40 | j, &cand) != 0;
    far += cand;
  }
  CHECK(!found, "%d keys found that were never inserted", found);
  CHECK(crowded < 6000, "absent keys of crowded runs were offered %d candidates in 1000 lookups",
        crowded);
  CHECK(!far, "absent keys of an unused tag were offered %d candidates in 1000 lookups", far);
  /* a record number the slot cannot hold */
  pid_t pid = fork();
  if (!pid) {
    dc_index_insert(&x, key_hash(1), DC_INDEX_MAX);
    _exit(0);
  }
  int st = 0;
  waitpid(pid, &st, 0);
  CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0, "an index past DC_INDEX_MAX was accepted");
  printf("test_index: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
