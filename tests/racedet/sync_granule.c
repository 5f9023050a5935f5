/* sync_granule.c: synchronisation objects are keyed by their exact
 * address, several to an 8-byte granule (racedet/sync.c, the meta map), and
 * go with the memory that held them, whatever their alignment.  The writer
 * writes data_0, then data_1 and ok, then data_2, each before releases the
 * reader then acquires at some address, in that order; the reader waits on
 * a relaxed flag (relaxed_handoff.h), so only those acquires could order the
 * writes, and a wrong one orders only the writes before it, so each case
 * fails on its own:
 *  - data_0: releases (annotations) at bytes 1, 5 and 6 of a heap block,
 *    one granule's three objects, data_0's at byte 5; the block is freed and
 *    allocated again (the same memory, asserted).  The reader acquires at
 *    byte 5 of it: the object went with the free, so data_0 races.  A free
 *    that looked only at 4-byte steps would keep byte 5's object and its
 *    clock, and hide the race.
 *  - data_1 and ok: a granule of a global with an object at its byte 3,
 *    made before the threads start, and one at its byte 1 that the writer
 *    releases into after writing both.  The reader acquires at byte 3 and
 *    reads data_1 (a race: byte 3's object holds nothing of the writer's),
 *    and, after everything else, at byte 1 and reads ok (ordered: no
 *    report).  A lookup by granule
 *    would find byte 1's object first (the newer, at the head of the
 *    granule's chain) and hide the race; one that missed the object further
 *    down the chain would report ok.
 *  - data_2: release stores at offsets 0 and 40,000 of a 64 KiB mapping
 *    (in different 8 KiB spans), which is unmapped and mapped again at the
 *    same address with the raw system call (unseen by the runtime).  The
 *    reader's acquire load at 40,000 reads the fresh zero: data_2 races.
 *
 * EXPECT: race
 * EXPECT-COUNT: 3
 * EXPECT-EVERY: 3 read_data
 * EXPECT-PREVIOUS: writer_work writer
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

void __tsan_acquire(void *addr);
void __tsan_release(void *addr);

#define MAP_SIZE 65536
#define FAR 40000

long data_0, data_1, data_2, ok;
static _Alignas(8) char gran[8];
static _Atomic(char *) block, mapping; /* relaxed: they order nothing */

__attribute__((noinline)) static void write_0(void) { data_0 = 1; }
__attribute__((noinline)) static void write_1(void) { data_1 = ok = 1; }
__attribute__((noinline)) static void write_2(void) { data_2 = 1; }
__attribute__((noinline)) static long read_data_0(void) { return data_0; }
__attribute__((noinline)) static long read_data_1(void) { return data_1; }
__attribute__((noinline)) static long read_data_2(void) { return data_2; }
__attribute__((noinline)) static long read_ok(void) { return ok; }

static void made_before(void) { __tsan_release(&gran[3]); }
#define HANDOFF_BEFORE made_before

__attribute__((noinline)) static void writer_work(void) {
  write_0();
  char *b = malloc(64);
  if (!b) exit(2);
  __tsan_release(b + 1);
  __tsan_release(b + 5);
  __tsan_release(b + 6);
  free(b);
  char *again = malloc(64);
  if (again != b) {
    fprintf(stderr, "sync_granule: the block was not reused\n");
    exit(2);
  }
  atomic_store_explicit(&block, again, memory_order_relaxed);

  write_1();
  __tsan_release(&gran[1]);

  write_2();
  char *p = mmap(0, MAP_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) exit(2);
  atomic_store_explicit((_Atomic long *)p, 1, memory_order_release);
  atomic_store_explicit((_Atomic long *)(p + FAR), 1, memory_order_release);
  if (munmap(p, MAP_SIZE)) exit(2);
  char *q = (char *)syscall(SYS_mmap, p, MAP_SIZE, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (q != p) {
    fprintf(stderr, "sync_granule: the address was taken in between\n");
    exit(2);
  }
  atomic_store_explicit(&mapping, q, memory_order_relaxed);
}

__attribute__((noinline)) static int reader_work(void) {
  char *b = atomic_load_explicit(&block, memory_order_relaxed);
  __tsan_acquire(b + 5);
  long v = read_data_0();
  __tsan_acquire(&gran[3]);
  v += read_data_1();
  char *q = atomic_load_explicit(&mapping, memory_order_relaxed);
  v += atomic_load_explicit((_Atomic long *)(q + FAR), memory_order_acquire);
  v += read_data_2();
  __tsan_acquire(&gran[1]); /* (last: it orders all the writes) */
  v += read_ok();
  free(b);
  munmap(q, MAP_SIZE);
  return (int)v;
}

#include "relaxed_handoff.h"
