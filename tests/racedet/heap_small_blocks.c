/* heap_small_blocks.c: blocks of up to 256 bytes come from the runtime's
 * own size classes (racedet/heap_small.c), with no headers: a class is a
 * multiple of 16 bytes and its blocks lie side by side.  What the program
 * sees must be what C promises, and nothing may be handed out twice:
 *  - 2,000 blocks of 16 bytes made in a row by the first thread made are
 *    16 bytes apart, all 1,999 pairs (glibc's are 32 apart);
 *  - two threads that each make 1,000 blocks of 32 bytes at once share no
 *    page (each carves runs of its own; cut from one shared run in turns,
 *    their blocks alternated a batch at a time);
 *  - a block at the start of a MiB in each of the 16 classes, each freed
 *    and made again 200 times and written each time: the kernel is asked
 *    which shadow pages are there (mincore, counted by this program's own
 *    mincore, which the runtime linked into it calls) at most twice a
 *    block, not at each write (a block's shadow starts a 2 MiB stretch of
 *    plane A, and its first store after each malloc finds fresh shadow
 *    there: sh_huge_ahead);
 *  - every size from 0 to 300: aligned to 16, malloc_usable_size at least
 *    the size (and exactly its class up to 256), its bytes writable, up to
 *    256 all the class's bytes, which earlier blocks of other sizes used
 *    and freed (no use after free reported there);
 *  - calloc zeroes a block that was used and freed (the same class, so the
 *    free list hands it back), for n * m up to 256 and past it;
 *  - realloc keeps the bytes through growth within a class, to another
 *    class, past 256 bytes (to glibc) and back, and in place when it
 *    shrinks; reallocarray the same, and ENOMEM on an overflowing product;
 *  - two producers hand 100,000 blocks each of random small sizes to two
 *    consumers through a ring under a mutex; each block holds its serial
 *    number in every word, checked by the consumer before its free: a block
 *    handed out twice while alive is overwritten and caught;
 *  - a double free stops the program with the runtime's message (in a
 *    forked child, whose standard error the parent reads).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: small blocks: dense 1999, apart ok, sizes ok, calloc ok, realloc ok, handed 200000 ok, double free stopped
 */
#define _GNU_SOURCE
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failed;
#define CHECK(c, ...)                      \
  do {                                     \
    if (!(c)) {                            \
      printf("FAIL: " __VA_ARGS__);        \
      printf("\n");                        \
      failed = 1;                          \
    }                                      \
  } while (0)

/* ---------------------------------------------------------- dense */
enum { DENSE = 2000 };
static void *dense_thread(void *arg) {
  static uintptr_t at[DENSE];
  for (int i = 0; i < DENSE; i++) at[i] = (uintptr_t)malloc(16);
  long apart = 0;
  for (int i = 0; i + 1 < DENSE; i++) apart += at[i + 1] - at[i] == 16;
  for (int i = 0; i < DENSE; i++) free((void *)at[i]);
  *(long *)arg = apart;
  return 0;
}

/* ---------------------------------------------------------- apart */
enum { APART = 1000 };
static pthread_barrier_t both;
static uintptr_t apart_at[2][APART];
static void *apart_thread(void *arg) {
  uintptr_t *at = apart_at[(uintptr_t)arg];
  pthread_barrier_wait(&both);
  for (int i = 0; i < APART; i++) at[i] = (uintptr_t)malloc(32);
  pthread_barrier_wait(&both);
  return 0;
}
static int cmp_addr(const void *a, const void *b) {
  const uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
  return x < y ? -1 : x > y;
}
/* pages holding blocks of both threads */
static long shared_pages(void) {
  pthread_t t[2];
  pthread_barrier_init(&both, 0, 2);
  for (uintptr_t i = 0; i < 2; i++) pthread_create(&t[i], 0, apart_thread, (void *)i);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  static uintptr_t pages[2][APART];
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < APART; i++) pages[k][i] = apart_at[k][i] >> 12;
  qsort(pages[1], APART, sizeof(uintptr_t), cmp_addr);
  long shared = 0;
  for (int i = 0; i < APART; i++)
    shared += bsearch(&pages[0][i], pages[1], APART, sizeof(uintptr_t), cmp_addr) != 0;
  for (int k = 0; k < 2; k++)
    for (int i = 0; i < APART; i++) free((void *)apart_at[k][i]);
  return shared;
}

/* ---------------------------------------------------------- at a MiB */
/* mincore as the runtime calls it, counted: no instrumentation and no call
 * (the system call itself, x86-64), so that nothing here re-enters the
 * runtime, which calls it in the middle of an access's check. */
static long mincores;
__attribute__((no_sanitize_thread)) int mincore(void *addr, size_t len, unsigned char *vec) {
  __atomic_fetch_add(&mincores, 1, __ATOMIC_RELAXED);
  long r;
  __asm__ volatile("syscall"
                   : "=a"(r)
                   : "0"(27L /* SYS_mincore */), "D"(addr), "S"(len), "d"(vec)
                   : "rcx", "r11", "memory");
  if (r < 0) {
    errno = (int)-r;
    return -1;
  }
  return 0;
}

enum { CLASSES = 16, MANY = 200000, AGAIN = 200 };
/* How many times the kernel was asked over AGAIN rounds of free, malloc and
 * a write of a block that starts a MiB, one of each class (their crossings
 * into fresh shadow must not take each other's place in the thread's
 * memory of them); -1: no such block found. */
static long at_mib(void) {
  static void *at[MANY];
  char *p[CLASSES];
  for (int k = 0; k < CLASSES; k++) {
    int found = -1, n = 0;
    while (n < MANY && found < 0) {
      at[n] = malloc(16 * (k + 1));
      if ((uintptr_t)at[n] % (1u << 20) == 0) found = n;
      n++;
    }
    for (int i = 0; i < n; i++)
      if (i != found) free(at[i]);
    if (found < 0) {
      while (k--) free(p[k]);
      return -1;
    }
    p[k] = at[found];
  }
  const long before = __atomic_load_n(&mincores, __ATOMIC_RELAXED);
  long same = 0;
  for (int i = 0; i < AGAIN; i++) {
    for (int k = 0; k < CLASSES; k++) {
      free(p[k]);
      char *q = malloc(16 * (k + 1));
      same += q == p[k];
      p[k] = q;
      q[0] = (char)i;
    }
  }
  for (int k = 0; k < CLASSES; k++) free(p[k]);
  CHECK(same == AGAIN * CLASSES, "the blocks at a MiB came back %ld times of %d", same,
        AGAIN * CLASSES);
  return __atomic_load_n(&mincores, __ATOMIC_RELAXED) - before;
}

/* ---------------------------------------------------------- sizes */
static void sizes(void) {
  for (size_t n = 0; n <= 300; n++) {
    unsigned char *p = malloc(n);
    CHECK(p && (uintptr_t)p % 16 == 0, "malloc(%zu) = %p", n, (void *)p);
    const size_t u = malloc_usable_size(p);
    CHECK(u >= n, "usable %zu < %zu", u, n);
    if (n <= 256) CHECK(u == (n ? (n + 15) / 16 * 16 : 16), "usable(%zu) = %zu", n, u);
    /* up to 256 bytes: all its class's bytes, those past n too, which an
     * earlier block of the class freed (glibc's: n) */
    const size_t w = n <= 256 ? u : n;
    memset(p, (int)n, w);
    for (size_t i = 0; i < w; i++) CHECK(p[i] == (unsigned char)n, "byte %zu of %zu", i, n);
    free(p);
  }
}

/* ---------------------------------------------------------- calloc */
static void callocs(void) {
  const size_t shapes[][2] = {{1, 48}, {3, 16}, {16, 16}, {1, 256}, {2, 150}, {0, 8}};
  for (unsigned k = 0; k < sizeof shapes / sizeof *shapes; k++) {
    const size_t n = shapes[k][0], m = shapes[k][1], size = n * m;
    unsigned char *dirty = malloc(size);
    memset(dirty, 0xab, size);
    free(dirty);
    unsigned char *p = calloc(n, m);
    CHECK(p != 0, "calloc(%zu, %zu)", n, m);
    for (size_t i = 0; p && i < size; i++) CHECK(p[i] == 0, "calloc(%zu, %zu) byte %zu", n, m, i);
    free(p);
  }
  volatile size_t half = SIZE_MAX / 2; /* (volatile: no warning, and no block dropped as unused) */
  void *volatile big = calloc(half, 3);
  CHECK(big == 0, "calloc overflow");
}

/* ---------------------------------------------------------- realloc */
static int holds(const unsigned char *p, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (p[i] != (unsigned char)(i * 7 + 1)) return 0;
  return 1;
}
static void fill(unsigned char *p, size_t from, size_t to) {
  for (size_t i = from; i < to; i++) p[i] = (unsigned char)(i * 7 + 1);
}
static void reallocs(void) {
  const size_t steps[] = {5, 12, 16, 40, 200, 256, 1000, 4000, 100, 24, 3, 250};
  unsigned char *p = 0;
  size_t have = 0;
  for (unsigned k = 0; k < sizeof steps / sizeof *steps; k++) {
    const size_t n = steps[k];
    unsigned char *q = realloc(p, n);
    CHECK(q && holds(q, n < have ? n : have), "realloc %zu -> %zu", have, n);
    if (n < have && have <= 256) CHECK(q == p, "shrink %zu -> %zu moved", have, n);
    fill(q, n < have ? n : have, n);
    p = q;
    have = n;
  }
  unsigned char *q = reallocarray(p, 10, 30);
  CHECK(q && holds(q, have), "reallocarray");
  errno = 0;
  volatile size_t half = SIZE_MAX / 2;
  CHECK(reallocarray(q, half, 3) == 0 && errno == ENOMEM, "reallocarray overflow");
  free(q);
  void *volatile some = malloc(32), *volatile none = realloc(some, 0);
  CHECK(none == 0, "realloc to 0");
}

/* ---------------------------------------------------------- handed over */
enum { PER = 100000, RING = 64 };
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct {
  long *p;
  long serial, words;
} ring[RING];
static unsigned head, tail, done_producers;
static long handed, bad;

static void *producer(void *arg) {
  unsigned x = (unsigned)(uintptr_t)arg * 2654435761u + 1;
  for (long i = 0; i < PER; i++) {
    x = x * 1103515245u + 12345u;
    const long words = 1 + (x >> 8) % 32; /* 8 to 256 bytes */
    long *p = malloc(words * sizeof(long));
    const long serial = (long)(uintptr_t)arg * PER + i;
    for (long w = 0; w < words; w++) p[w] = serial;
    pthread_mutex_lock(&mu);
    while (head - tail == RING) pthread_cond_wait(&cv, &mu);
    ring[head % RING].p = p;
    ring[head % RING].serial = serial;
    ring[head % RING].words = words;
    head++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    if (x % 3 == 0) free(malloc(1 + x % 200)); /* the producer's own frees too */
  }
  pthread_mutex_lock(&mu);
  done_producers++;
  pthread_cond_broadcast(&cv);
  pthread_mutex_unlock(&mu);
  return 0;
}
static void *consumer(void *arg) {
  (void)arg;
  for (;;) {
    pthread_mutex_lock(&mu);
    while (head == tail && done_producers < 2) pthread_cond_wait(&cv, &mu);
    if (head == tail) {
      pthread_mutex_unlock(&mu);
      return 0;
    }
    long *p = ring[tail % RING].p;
    const long serial = ring[tail % RING].serial, words = ring[tail % RING].words;
    tail++;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    long wrong = 0;
    for (long w = 0; w < words; w++) wrong += p[w] != serial;
    free(p);
    pthread_mutex_lock(&mu);
    handed++;
    bad += wrong != 0;
    pthread_mutex_unlock(&mu);
  }
}

/* ---------------------------------------------------------- double free */
static int double_free_stopped(void) {
  int fds[2];
  if (pipe(fds)) return 0;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 2);
    void *volatile p = malloc(32);
    free(p);
    free(p);
    _exit(0); /* (not reached when the free is caught) */
  }
  close(fds[1]);
  char buf[4096];
  size_t got = 0;
  ssize_t r;
  while (got < sizeof buf - 1 && (r = read(fds[0], buf + got, sizeof buf - 1 - got)) > 0) got += r;
  buf[got] = 0;
  close(fds[0]);
  int status;
  waitpid(pid, &status, 0);
  const int stopped = !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  CHECK(stopped && strstr(buf, "dacce: free(): double free of"), "double free: status %d, stderr '%s'",
        status, buf);
  return stopped && strstr(buf, "dacce: free(): double free of");
}

int main(void) {
  long dense = 0;
  pthread_t t[4];
  pthread_create(&t[0], 0, dense_thread, &dense);
  pthread_join(t[0], 0);
  const long shared = shared_pages(), asked = at_mib();
  CHECK(shared == 0, "%ld pages hold blocks of both threads", shared);
  CHECK(asked >= 0, "a class without a block at the start of a MiB in %d", MANY);
  CHECK(asked <= 2 * CLASSES, "the kernel asked %ld times about the shadow of %d blocks at a MiB, each made %d times",
        asked, CLASSES, AGAIN);
  sizes();
  callocs();
  reallocs();
  pthread_create(&t[0], 0, producer, (void *)0);
  pthread_create(&t[1], 0, producer, (void *)1);
  pthread_create(&t[2], 0, consumer, 0);
  pthread_create(&t[3], 0, consumer, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  CHECK(handed == 2 * PER && bad == 0, "handed %ld, %ld overwritten", handed, bad);
  const int df = double_free_stopped();
  if (failed) return 1;
  printf("small blocks: dense %ld, apart ok, sizes ok, calloc ok, realloc ok, handed %ld ok, %s\n",
         dense, handed, df ? "double free stopped" : "double free missed");
  return 0;
}
