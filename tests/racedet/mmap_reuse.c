/* mmap_reuse.c: addresses that a mapping hands out again.  The writer
 * fills a mapping, then the memory at that address is replaced, and the
 * reader, which never synchronises with the writer (it waits on a relaxed
 * flag: no happens-before), writes the new memory.  The shadow of the
 * writer's accesses belongs to memory that is gone, so nothing may be
 * reported; a runtime that kept it reports the reader's writes as racing
 * with the writer's.  Three ways the memory is replaced, one per round:
 *   0: munmap, then a mapping at the same address made by the raw system
 *      call (so that only munmap can have forgotten the old history);
 *   1: mmap with MAP_FIXED over the mapping (no munmap);
 *   2: mremap of another mapping onto the address (MREMAP_FIXED).
 * Each round's memory is new to the reader, so a kept history shows up as
 * a report of that round's write (reader_0 .. reader_2).
 *
 * EXPECT: clean
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIZE (64 * 1024)
#define ROUNDS 3

static _Atomic(char *) ready[ROUNDS];

static char *map(void *at, int flags) {
  char *p = mmap(at, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | flags, -1, 0);
  if (p == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  return p;
}

static void fill(char *p, int v) {
  for (size_t i = 0; i < SIZE; i += 8) *(long *)(p + i) = v;
}

static void *writer(void *arg) {
  (void)arg;
  /* 0: munmap, then the raw system call at the same address.  Another
   * thread (the reader starting, the runtime's own bookkeeping) may map
   * the freed address first; then the round starts again on a new
   * mapping, a few times at most. */
  char *p, *q;
  int tries = 0;
  do {
    if (++tries > 20) {
      fprintf(stderr, "the address was taken in between, 20 times\n");
      exit(2);
    }
    p = map(0, 0);
    fill(p, 1);
    if (munmap(p, SIZE)) exit(2);
    q = (char *)syscall(SYS_mmap, p, SIZE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (q != p && q != MAP_FAILED) syscall(SYS_munmap, q, SIZE);
  } while (q != p);
  atomic_store_explicit(&ready[0], q, memory_order_relaxed);
  /* 1: MAP_FIXED over the mapping */
  p = map(0, 0);
  fill(p, 2);
  atomic_store_explicit(&ready[1], map(p, MAP_FIXED), memory_order_relaxed);
  /* 2: another mapping moved onto it */
  p = map(0, 0);
  fill(p, 3);
  q = map(0, 0);
  char *r = mremap(q, SIZE, SIZE, MREMAP_MAYMOVE | MREMAP_FIXED, p);
  if (r != p) exit(2);
  atomic_store_explicit(&ready[2], r, memory_order_relaxed);
  return NULL;
}

__attribute__((noinline)) static void reader_0(char *p) { fill(p, 10); }
__attribute__((noinline)) static void reader_1(char *p) { fill(p, 11); }
__attribute__((noinline)) static void reader_2(char *p) { fill(p, 12); }

static char *wait_for(int i) {
  char *p;
  while (!(p = atomic_load_explicit(&ready[i], memory_order_relaxed))) sched_yield();
  return p;
}

static void *reader(void *arg) {
  (void)arg;
  reader_0(wait_for(0));
  reader_1(wait_for(1));
  reader_2(wait_for(2));
  return NULL;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, reader, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  for (int i = 0; i < ROUNDS; i++) {
    long v;
    memcpy(&v, ready[i], sizeof v);
    if (v != 10 + i) {
      fprintf(stderr, "round %d: %ld\n", i, v);
      return 2;
    }
  }
  puts("ok");
  return 0;
}
