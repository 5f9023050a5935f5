/* own_malloc.c: a program with an allocator of its own, as programs that
 * carry dlmalloc or a pool allocator named malloc do.  The runtime's heap
 * interceptors are weak (racedet/intercept_heap.c), so the program's
 * definitions win for its own calls and for libc's (strdup, the threads'
 * start inside glibc, stdio's buffers), as they do under ThreadSanitizer.
 * The allocator is instrumented code like the rest: a spin lock made of
 * C11 atomics orders a block's reuse by another thread after its free.
 *
 * Threads allocate, write, hand over and free blocks through the
 * allocator (clean: every reuse is ordered by its lock), strdup a string
 * (libc's call of the program's malloc), and print through stdio.  Then
 * two threads write one block without order: one race, in the function
 * that writes it.  Before, the program did not link (multiple definition
 * of malloc); with weak interceptors and no care at a thread's start, a
 * thread's first call into the runtime allocated through the program's
 * instrumented malloc while the thread's state was being made.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: scribble
 * EXPECT-PREVIOUS: scribble
 * EXPECT-STDOUT: own malloc: 4000 blocks, 4 threads, strdup hello, calls ok, last 1
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

/* ------------------------------------------------------------ the allocator:
 * size classes of 16 << k bytes from one mapping, a free list per class,
 * one spin lock; a block's class in the word before it */
#define ARENA (64u << 20)
#define CLASSES 20
static atomic_int lock;
static char *arena, *bump, *end;
static void *free_list[CLASSES];
static atomic_long own_calls; /* allocations */

static void spin_lock(void) {
  while (atomic_exchange_explicit(&lock, 1, memory_order_acquire)) {
  }
}
static void spin_unlock(void) { atomic_store_explicit(&lock, 0, memory_order_release); }

static int class_of(size_t n) {
  int k = 0;
  while (k < CLASSES && ((size_t)16 << k) < n) k++;
  return k;
}

static void *take(size_t n, size_t align) {
  const int k = class_of(n < align ? align : n);
  if (k == CLASSES) return 0;
  atomic_fetch_add_explicit(&own_calls, 1, memory_order_relaxed);
  spin_lock();
  if (!arena) {
    arena = mmap(0, ARENA, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED) arena = 0;
    bump = arena, end = arena + (arena ? ARENA : 0);
  }
  void *p = align <= 16 ? free_list[k] : 0;
  if (p) {
    free_list[k] = *(void **)p;
  } else {
    const size_t a = align < 16 ? 16 : align;
    char *q = (char *)(((uintptr_t)bump + 16 + a - 1) & ~(uintptr_t)(a - 1));
    if (!arena || q + ((size_t)16 << k) > end) {
      spin_unlock();
      return 0;
    }
    bump = q + ((size_t)16 << k);
    p = q;
  }
  ((int *)p)[-1] = k;
  spin_unlock();
  return p;
}

void *malloc(size_t n) {
  void *p = take(n, 16);
  if (!p) errno = ENOMEM;
  return p;
}
void free(void *p) {
  if (!p) return;
  spin_lock();
  const int k = ((int *)p)[-1];
  *(void **)p = free_list[k];
  free_list[k] = p;
  spin_unlock();
}
size_t malloc_usable_size(void *p) { return p ? (size_t)16 << ((int *)p)[-1] : 0; }
void *calloc(size_t n, size_t m) {
  if (m && n > SIZE_MAX / m) return 0;
  void *p = malloc(n * m);
  if (p) memset(p, 0, n * m);
  return p;
}
void *realloc(void *old, size_t n) {
  if (!old) return malloc(n);
  if (n <= malloc_usable_size(old)) return old;
  void *p = malloc(n);
  if (p) {
    memcpy(p, old, malloc_usable_size(old));
    free(old);
  }
  return p;
}
void *memalign(size_t a, size_t n) { return take(n, a); }
void *aligned_alloc(size_t a, size_t n) { return take(n, a); }
int posix_memalign(void **out, size_t a, size_t n) {
  void *p = take(n, a);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}

/* ------------------------------------------------------------ the program */
#define THREADS 4
#define BLOCKS 1000
static long *handed[THREADS]; /* each thread's last block, for the next one to free */
static pthread_mutex_t hand = PTHREAD_MUTEX_INITIALIZER;

static void *churn(void *arg) {
  const long me = (long)arg;
  for (long i = 0; i < BLOCKS; i++) {
    long *b = malloc(sizeof(long) * (1 + i % 7));
    for (long j = 0; j < 1 + i % 7; j++) b[j] = me * i + j;
    pthread_mutex_lock(&hand);
    long *prev = handed[(me + 1) % THREADS];
    handed[(me + 1) % THREADS] = 0;
    handed[me] = b; /* handed over: another thread frees it */
    pthread_mutex_unlock(&hand);
    if (prev) {
      if (prev[0] < 0) puts("bad block");
      free(prev);
    }
  }
  return 0;
}

static long *shared;
__attribute__((noinline)) static void scribble(long v) { shared[1] = v; }
static void *racer(void *arg) {
  scribble((long)arg);
  return 0;
}

int main(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++) pthread_create(&t[i], 0, churn, (void *)i);
  for (int i = 0; i < THREADS; i++) pthread_join(t[i], 0);
  char *s = strdup("hello");
  shared = calloc(4, sizeof(long));
  pthread_create(&t[0], 0, racer, (void *)1);
  pthread_create(&t[1], 0, racer, (void *)2);
  pthread_join(t[0], 0);
  pthread_join(t[1], 0);
  printf("own malloc: %d blocks, %d threads, strdup %s, calls %s, last %ld\n", THREADS * BLOCKS,
         THREADS, s, atomic_load(&own_calls) >= THREADS * BLOCKS + 2 ? "ok" : "missing",
         shared[1] > 0 ? 1L : 0L);
  free(s);
  return 0;
}
