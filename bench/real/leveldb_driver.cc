/* leveldb_driver.cc: LevelDB with four threads on one database as a
 * workload, the benchmarks' real C++ program.
 *
 * bench/run.py builds this driver together with LevelDB 1.20's sources
 * (from npm's leveldown package, fetched at run time, never committed;
 * no Snappy), with bench/real/leveldb_atomic_pointer.h force-included (the
 * library's x86 AtomicPointer is a plain field behind a compiler barrier:
 * a data race every detector reports; see that header).  The main thread
 * creates a database in a new directory under $TMPDIR (default /tmp) with
 * small memtables (write_buffer_size 256 KiB), so that LevelDB's own
 * background thread flushes and compacts while the others work, and a
 * Bloom filter.  Then, each phase with NTHREADS threads:
 *
 *   1. writes: thread i puts keys i, i + NTHREADS, ... (size of them), in
 *      an order scrambled by a multiplicative hash, BATCH to a WriteBatch
 *      (the writers queue on LevelDB's mutex and condition variables, and
 *      one writes the others' batches as a group), with 100-byte values
 *      made from the key; every 64 batches it reads back one of its own
 *      keys and checks the value;
 *   2. reads: size lookups each, of any thread's keys and of keys never
 *      written (one in eight), every value checked, and every 512 lookups
 *      a scan of SCAN entries from a seek;
 *
 * then the main thread deletes every tenth key, compacts the whole range,
 * counts what an iterator sees, destroys the database and prints one
 * line.  The database's contents are fixed once the writers are joined,
 * so every count and the checksum (a sum over threads of the values'
 * hashes) are deterministic.
 *
 * usage: leveldb_driver [size]    keys per thread; exit 1 on any error
 *        leveldb_driver --version prints LevelDB's version
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <string>

#include "leveldb/cache.h"
#include "leveldb/db.h"
#include "leveldb/filter_policy.h"
#include "leveldb/write_batch.h"

namespace {

const int NTHREADS = 4;
const int BATCH = 16;
const int SCAN = 64;
const int VALUE = 100;

leveldb::DB *db;
unsigned long size;

void die(const char *what, const leveldb::Status &s) {
  fprintf(stderr, "leveldb_driver: %s: %s\n", what, s.ToString().c_str());
  exit(1);
}

/* key number n (0 .. NTHREADS * size - 1, or beyond: never written) */
std::string key_of(unsigned long n) {
  char b[32];
  snprintf(b, sizeof b, "k%012lx", (unsigned long)((n * 2654435761ul) & 0xffffffffffful));
  return b;
}

std::string value_of(unsigned long n) {
  std::string v(VALUE, ' ');
  uint64_t x = n * 0x9E3779B97F4A7C15ull + 1;
  for (int i = 0; i < VALUE; i++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v[i] = (char)('a' + x % 26);
  }
  return v;
}

uint64_t hash_of(const std::string &s) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

struct result {
  unsigned long found, missing, scanned;
  uint64_t sum;
};
result results[NTHREADS];

void *writer(void *arg) {
  const int me = (int)(intptr_t)arg;
  leveldb::WriteOptions wo;
  leveldb::ReadOptions ro;
  leveldb::WriteBatch batch;
  unsigned long batches = 0;
  for (unsigned long j = 0; j < size; j++) {
    /* this thread's j-th key, scrambled within its own keys */
    const unsigned long n = me + NTHREADS * ((j * 7919) % size);
    batch.Put(key_of(n), value_of(n));
    if ((j + 1) % BATCH && j + 1 < size) continue;
    leveldb::Status s = db->Write(wo, &batch);
    if (!s.ok()) die("write", s);
    batch.Clear();
    if (++batches % 64 == 0) {
      std::string v;
      s = db->Get(ro, key_of(n), &v);
      if (!s.ok()) die("read back", s);
      if (v != value_of(n)) {
        fprintf(stderr, "leveldb_driver: key %lu read back wrong\n", n);
        exit(1);
      }
    }
  }
  return 0;
}

void *reader(void *arg) {
  const int me = (int)(intptr_t)arg;
  leveldb::ReadOptions ro;
  result r = {0, 0, 0, 0};
  uint64_t x = 88172645463325252ull + (uint64_t)me;
  for (unsigned long j = 0; j < size; j++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    /* one in eight beyond the written keys */
    const unsigned long n = x % (NTHREADS * size + NTHREADS * size / 7);
    std::string v;
    leveldb::Status s = db->Get(ro, key_of(n), &v);
    if (n < NTHREADS * size) {
      if (!s.ok()) die("get", s);
      if (v != value_of(n)) {
        fprintf(stderr, "leveldb_driver: key %lu has a wrong value\n", n);
        exit(1);
      }
      r.found++;
      r.sum += hash_of(v);
    } else {
      if (!s.IsNotFound()) die("get of an absent key", s);
      r.missing++;
    }
    if (j % 512 == 0) {
      leveldb::Iterator *it = db->NewIterator(ro);
      int k = 0;
      for (it->Seek(key_of(n)); it->Valid() && k < SCAN; it->Next(), k++)
        r.sum += hash_of(it->value().ToString());
      if (!it->status().ok()) die("scan", it->status());
      r.scanned += k;
      delete it;
    }
  }
  results[me] = r;
  return 0;
}

void phase(void *(*fn)(void *)) {
  pthread_t th[NTHREADS];
  for (int i = 0; i < NTHREADS; i++)
    if (pthread_create(&th[i], 0, fn, (void *)(intptr_t)i)) {
      fprintf(stderr, "leveldb_driver: pthread_create failed\n");
      exit(1);
    }
  for (int i = 0; i < NTHREADS; i++) pthread_join(th[i], 0);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--version")) {
    printf("%d.%d\n", leveldb::kMajorVersion, leveldb::kMinorVersion);
    return 0;
  }
  size = argc > 1 ? strtoul(argv[1], 0, 10) : 100000;
  if (size < BATCH) size = BATCH;
  if (size % 7919 == 0) size++; /* the writers' order is j * 7919 mod size */
  const char *tmp = getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/leveldb_driver.XXXXXX";
  if (!mkdtemp(&dir[0])) {
    perror("leveldb_driver: mkdtemp");
    return 1;
  }
  const std::string path = dir + "/db";

  leveldb::Options opt;
  opt.create_if_missing = true;
  opt.error_if_exists = true;
  opt.write_buffer_size = 256 << 10;
  opt.compression = leveldb::kNoCompression;
  opt.block_cache = leveldb::NewLRUCache(4 << 20);
  opt.filter_policy = leveldb::NewBloomFilterPolicy(10);
  leveldb::Status s = leveldb::DB::Open(opt, path, &db);
  if (!s.ok()) die("open", s);

  phase(writer);
  phase(reader);

  /* every tenth key deleted, the whole range compacted, then counted */
  leveldb::WriteOptions wo;
  unsigned long deleted = 0;
  for (unsigned long n = 0; n < NTHREADS * size; n += 10, deleted++) {
    s = db->Delete(wo, key_of(n));
    if (!s.ok()) die("delete", s);
  }
  db->CompactRange(0, 0);
  leveldb::Iterator *it = db->NewIterator(leveldb::ReadOptions());
  unsigned long live = 0;
  for (it->SeekToFirst(); it->Valid(); it->Next()) live++;
  if (!it->status().ok()) die("count", it->status());
  delete it;
  if (live != NTHREADS * size - deleted) {
    fprintf(stderr, "leveldb_driver: %lu keys left, expected %lu\n", live,
            NTHREADS * size - deleted);
    return 1;
  }

  result t = {0, 0, 0, 0};
  for (int i = 0; i < NTHREADS; i++) {
    t.found += results[i].found;
    t.missing += results[i].missing;
    t.scanned += results[i].scanned;
    t.sum += results[i].sum;
  }
  delete db;
  s = leveldb::DestroyDB(path, opt);
  if (!s.ok()) die("destroy", s);
  rmdir(dir.c_str());
  delete opt.filter_policy;
  delete opt.block_cache;
  printf("leveldb threads %d keys %lu found %lu missing %lu scanned %lu live %lu checksum %016llx\n",
         NTHREADS, NTHREADS * size, t.found, t.missing, t.scanned, live,
         (unsigned long long)t.sum);
  return 0;
}
