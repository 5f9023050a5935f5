/* sqlite_driver.c: SQLite with four threads on one database as a workload.
 *
 * bench/run.py builds this driver together with the SQLite amalgamation
 * (sqlite3.c, fetched from npm at run time, never committed;
 * SQLITE_THREADSAFE=1).  The main thread creates a database in a new
 * directory under $TMPDIR (default /tmp) in rollback-journal mode
 * (journal_mode=TRUNCATE; not WAL, see below) with one table and an
 * index on (owner, k).  NTHREADS threads then each open their own connection
 * to it (serialized mode, synchronous=OFF so that the run is CPU-bound) and
 * run `size` / BATCH rounds of:
 *
 *   - BEGIN IMMEDIATE; BATCH inserts of its own rows (owner = thread number,
 *     pseudo-random k and v, a text tag); COMMIT;
 *   - QUERIES indexed range queries over its own rows (count, total(v),
 *     max(tag) where owner = ? and k between ? and ?), folded into a
 *     checksum;
 *   - every UPDATE_EVERY rounds, an UPDATE of its own rows in a key range
 *     (v = v + 1) in an IMMEDIATE transaction, its row count checked;
 *   - a count of another thread's rows, which must be a multiple of BATCH
 *     (every insert transaction is atomic).
 *
 * The writers wait for each other in SQLite's busy handler (ours yields,
 * then sleeps 50 us per try).  A thread's own rows change only under its own
 * statements, so every query result and the checksum are deterministic.
 * Each thread mirrors its rows in memory; at the end the main thread checks
 * count, sum(k) and sum(v) per owner against the mirrors, runs an
 * integrity check, removes the database and prints one line.
 *
 * usage: sqlite_driver [size]    rows per thread; exit 1 on any error
 *        sqlite_driver --version prints sqlite3_libversion()
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sqlite3.h"

#define NTHREADS 4
#define BATCH 50
#define QUERIES 6
#define UPDATE_EVERY 5
#define KEYS 1000000

static char db_dir[4096], db_path[4200];
static long rows_per_thread;

struct worker {
  pthread_t tid;
  int id;
  uint64_t checksum;
  long queries, matched;
  /* the in-memory mirror of this thread's rows */
  int *k, *v;
  long n;
  int64_t sum_k, sum_v;
};

static uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdu;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53u;
  return x ^ (x >> 33);
}

static uint64_t fold(uint64_t h, uint64_t x) { return mix(h ^ x) + 0x9e3779b97f4a7c15u; }

static void die(sqlite3 *db, const char *what) {
  fprintf(stderr, "sqlite_driver: %s: %s\n", what, db ? sqlite3_errmsg(db) : "error");
  exit(1);
}

/* SQLite calls this while another connection holds the lock it needs:
 * yield a few times, then sleep 50 us per try (spinning threads would take
 * the CPU from the lock's holder: there are more threads than CPUs). */
static int busy_wait(void *arg, int tries) {
  (void)arg;
  if (tries > 2000000) return 0; /* give up: SQLITE_BUSY */
  if (tries < 16) {
    sched_yield();
  } else {
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
  }
  return 1;
}

static void exec(sqlite3 *db, const char *sql) {
  char *err = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK) {
    fprintf(stderr, "sqlite_driver: %s: %s\n", sql, err ? err : "error");
    exit(1);
  }
}

static sqlite3_stmt *prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL) != SQLITE_OK)
    die(db, sql);
  return st;
}

static void step_done(sqlite3 *db, sqlite3_stmt *st, const char *what) {
  if (sqlite3_step(st) != SQLITE_DONE) die(db, what);
  sqlite3_reset(st);
}

static sqlite3 *open_db(void) {
  sqlite3 *db;
  if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) !=
      SQLITE_OK)
    die(db, "open");
  sqlite3_busy_handler(db, busy_wait, NULL);
  exec(db, "PRAGMA synchronous=OFF");
  return db;
}

static void *work(void *arg) {
  struct worker *w = arg;
  sqlite3 *db = open_db();
  sqlite3_stmt *begin = prepare(db, "BEGIN IMMEDIATE");
  sqlite3_stmt *commit = prepare(db, "COMMIT");
  sqlite3_stmt *ins = prepare(db, "INSERT INTO items(owner, k, v, tag) VALUES (?1, ?2, ?3, ?4)");
  sqlite3_stmt *sel = prepare(db,
                              "SELECT count(*), total(v), max(tag) FROM items "
                              "WHERE owner = ?1 AND k BETWEEN ?2 AND ?3");
  sqlite3_stmt *upd =
      prepare(db, "UPDATE items SET v = v + 1 WHERE owner = ?1 AND k BETWEEN ?2 AND ?3");
  sqlite3_stmt *other = prepare(db, "SELECT count(*) FROM items WHERE owner = ?1");
  uint64_t seed = mix(0x5eed0000u + (uint64_t)w->id);
  long rounds = rows_per_thread / BATCH;
  w->k = malloc((size_t)rows_per_thread * sizeof *w->k);
  w->v = malloc((size_t)rows_per_thread * sizeof *w->v);
  if (!w->k || !w->v) die(NULL, "out of memory");
  w->checksum = 0;
  for (long r = 0; r < rounds; r++) {
    step_done(db, begin, "BEGIN IMMEDIATE");
    for (int i = 0; i < BATCH; i++) {
      seed = mix(seed + 1);
      int k = (int)(seed % KEYS), v = (int)((seed >> 32) % 1000);
      char tag[32];
      snprintf(tag, sizeof tag, "t%d-%08x", w->id, (unsigned)(seed >> 20));
      sqlite3_bind_int(ins, 1, w->id);
      sqlite3_bind_int(ins, 2, k);
      sqlite3_bind_int(ins, 3, v);
      sqlite3_bind_text(ins, 4, tag, -1, SQLITE_TRANSIENT);
      step_done(db, ins, "INSERT");
      w->k[w->n] = k;
      w->v[w->n] = v;
      w->n++;
    }
    step_done(db, commit, "COMMIT");

    for (int q = 0; q < QUERIES; q++) {
      seed = mix(seed + 1);
      int lo = (int)(seed % KEYS), hi = lo + (int)((seed >> 32) % (KEYS / 100));
      sqlite3_bind_int(sel, 1, w->id);
      sqlite3_bind_int(sel, 2, lo);
      sqlite3_bind_int(sel, 3, hi);
      if (sqlite3_step(sel) != SQLITE_ROW) die(db, "SELECT range");
      int64_t cnt = sqlite3_column_int64(sel, 0);
      double tot = sqlite3_column_double(sel, 1);
      const unsigned char *tag = sqlite3_column_text(sel, 2);
      w->checksum = fold(w->checksum, (uint64_t)cnt);
      w->checksum = fold(w->checksum, (uint64_t)tot);
      for (const unsigned char *p = tag; p && *p; p++) w->checksum = fold(w->checksum, *p);
      w->queries++;
      w->matched += cnt;
      if (sqlite3_step(sel) != SQLITE_DONE) die(db, "SELECT range (end)");
      sqlite3_reset(sel);
    }

    if (r % UPDATE_EVERY == UPDATE_EVERY - 1) {
      seed = mix(seed + 1);
      int lo = (int)(seed % KEYS), hi = lo + KEYS / 100;
      step_done(db, begin, "BEGIN IMMEDIATE");
      sqlite3_bind_int(upd, 1, w->id);
      sqlite3_bind_int(upd, 2, lo);
      sqlite3_bind_int(upd, 3, hi);
      step_done(db, upd, "UPDATE");
      int changed = sqlite3_changes(db);
      step_done(db, commit, "COMMIT");
      int expect = 0;
      for (long i = 0; i < w->n; i++)
        if (w->k[i] >= lo && w->k[i] <= hi) {
          w->v[i]++;
          expect++;
        }
      if (changed != expect) {
        fprintf(stderr, "sqlite_driver: thread %d: UPDATE changed %d rows, expected %d\n", w->id,
                changed, expect);
        exit(1);
      }
      w->checksum = fold(w->checksum, (uint64_t)changed);
    }

    /* another thread's rows: whatever it has committed, whole batches only */
    sqlite3_bind_int(other, 1, (w->id + 1 + (int)(r % (NTHREADS - 1))) % NTHREADS);
    if (sqlite3_step(other) != SQLITE_ROW) die(db, "SELECT count");
    int64_t seen = sqlite3_column_int64(other, 0);
    if (seen % BATCH != 0 || seen > rows_per_thread) {
      fprintf(stderr, "sqlite_driver: thread %d saw %lld rows of another thread\n", w->id,
              (long long)seen);
      exit(1);
    }
    sqlite3_reset(other);
  }
  for (long i = 0; i < w->n; i++) {
    w->sum_k += w->k[i];
    w->sum_v += w->v[i];
  }
  sqlite3_stmt *all[] = {begin, commit, ins, sel, upd, other};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) sqlite3_finalize(all[i]);
  if (sqlite3_close(db) != SQLITE_OK) die(db, "close");
  return NULL;
}

static void remove_db(void) { /* at exit, also after an error */
  static const char *const suffix[] = {"", "-wal", "-shm", "-journal"};
  char p[4300];
  for (size_t i = 0; i < sizeof suffix / sizeof suffix[0]; i++) {
    snprintf(p, sizeof p, "%s%s", db_path, suffix[i]);
    unlink(p);
  }
  rmdir(db_dir);
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "--version")) {
    printf("%s\n", sqlite3_libversion());
    return 0;
  }
  rows_per_thread = argc > 1 ? atol(argv[1]) : 8000;
  rows_per_thread -= rows_per_thread % BATCH;
  if (rows_per_thread <= 0) {
    fprintf(stderr, "usage: sqlite_driver [rows per thread, at least %d]\n", BATCH);
    return 2;
  }
  if (!sqlite3_threadsafe()) {
    fprintf(stderr, "sqlite_driver: SQLite built without thread safety\n");
    return 1;
  }
  if (sqlite3_libversion_number() != SQLITE_VERSION_NUMBER) {
    fprintf(stderr, "sqlite_driver: header %s, library %s\n", SQLITE_VERSION,
            sqlite3_libversion());
    return 1;
  }
  const char *tmp = getenv("TMPDIR");
  snprintf(db_dir, sizeof db_dir, "%s/sqlite_driver.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(db_dir)) {
    perror("sqlite_driver: mkdtemp");
    return 1;
  }
  snprintf(db_path, sizeof db_path, "%s/bench.db", db_dir);
  atexit(remove_db);

  if (sqlite3_initialize() != SQLITE_OK) die(NULL, "sqlite3_initialize");
  sqlite3 *db;
  if (sqlite3_open_v2(db_path, &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                      NULL) != SQLITE_OK)
    die(db, "create");
  /* Not WAL: SQLite's WAL readers load the shared wal-index's read marks
   * (aReadMark) before taking any lock while a committing writer may reset
   * them with plain stores (walRestartHdr), a real (by design benign) data
   * race that detectors report when the interleaving occurs.  The workload
   * must be race-free to be timed; in rollback-journal mode all sharing goes
   * through the unix VFS's mutex-protected in-process locks. */
  exec(db, "PRAGMA journal_mode=TRUNCATE");
  exec(db,
       "CREATE TABLE items(id INTEGER PRIMARY KEY, owner INTEGER NOT NULL, "
       "k INTEGER NOT NULL, v INTEGER NOT NULL, tag TEXT NOT NULL);"
       "CREATE INDEX items_owner_k ON items(owner, k);");

  struct worker w[NTHREADS];
  memset(w, 0, sizeof w);
  for (int i = 0; i < NTHREADS; i++) {
    w[i].id = i;
    if (pthread_create(&w[i].tid, NULL, work, &w[i])) {
      fprintf(stderr, "sqlite_driver: pthread_create failed\n");
      return 1;
    }
  }
  for (int i = 0; i < NTHREADS; i++) pthread_join(w[i].tid, NULL);

  sqlite3_stmt *st = prepare(db,
                             "SELECT owner, count(*), sum(k), sum(v) FROM items "
                             "GROUP BY owner ORDER BY owner");
  int owners = 0, bad = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    int o = sqlite3_column_int(st, 0);
    if (o < 0 || o >= NTHREADS || o != owners) {
      bad = 1;
      break;
    }
    if (sqlite3_column_int64(st, 1) != w[o].n || sqlite3_column_int64(st, 2) != w[o].sum_k ||
        sqlite3_column_int64(st, 3) != w[o].sum_v) {
      fprintf(stderr, "sqlite_driver: owner %d: database has %lld rows, sum(k) %lld, "
              "sum(v) %lld; expected %ld, %lld, %lld\n", o,
              (long long)sqlite3_column_int64(st, 1), (long long)sqlite3_column_int64(st, 2),
              (long long)sqlite3_column_int64(st, 3), w[o].n, (long long)w[o].sum_k,
              (long long)w[o].sum_v);
      bad = 1;
    }
    owners++;
  }
  sqlite3_finalize(st);
  st = prepare(db, "PRAGMA integrity_check");
  if (sqlite3_step(st) != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(st, 0), "ok")) {
    fprintf(stderr, "sqlite_driver: integrity_check: %s\n", sqlite3_column_text(st, 0));
    bad = 1;
  }
  sqlite3_finalize(st);
  if (sqlite3_close(db) != SQLITE_OK) die(db, "close");
  if (bad || owners != NTHREADS) {
    fprintf(stderr, "sqlite_driver: wrong result (%d owners)\n", owners);
    return 1;
  }

  uint64_t sum = 0;
  long queries = 0, matched = 0;
  for (int i = 0; i < NTHREADS; i++) {
    sum = fold(sum, w[i].checksum);
    sum = fold(sum, (uint64_t)w[i].sum_v);
    queries += w[i].queries;
    matched += w[i].matched;
    free(w[i].k);
    free(w[i].v);
  }
  printf("sqlite threads %d rows %ld queries %ld matched %ld checksum %016llx\n", NTHREADS,
         rows_per_thread * NTHREADS, queries, matched, (unsigned long long)sum);
  return 0;
}
