/* mmap_sync_gone.c: a release clock kept for memory that was unmapped.  The
 * writer writes data, then does a release store to a word of a mapping,
 * unmaps the mapping and maps fresh memory at the same address with the raw
 * system call (unseen by the runtime).  The reader, which waits on a
 * relaxed flag (no happens-before; relaxed_handoff.h), does an acquire
 * load of that word: it reads the fresh mapping's zero, not the writer's
 * store, so it synchronises with nothing, and its read of data races with
 * the writer's write.  A
 * runtime that kept the word's release clock past the munmap would let the
 * acquire take it, and report nothing.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_data reader_work reader
 * EXPECT-PREVIOUS: write_data writer_work writer
 * EXPECT-LOCATION: global data
 * EXPECT-COUNT: 1
 */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SIZE 4096

long data;
static _Atomic(_Atomic long *) word; /* the word of the fresh mapping */

__attribute__((noinline)) static void write_data(void) { data = 42; }
__attribute__((noinline)) static long read_data(void) { return data; }

__attribute__((noinline)) static void writer_work(void) {
  char *p = mmap(0, SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) exit(2);
  write_data();
  atomic_store_explicit((_Atomic long *)p, 1, memory_order_release);
  if (munmap(p, SIZE)) exit(2);
  char *q = (char *)syscall(SYS_mmap, p, SIZE, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (q != p) {
    fprintf(stderr, "the address was taken in between\n");
    exit(2);
  }
  atomic_store_explicit(&word, (_Atomic long *)q, memory_order_relaxed);
}

__attribute__((noinline)) static long reader_work(void) {
  _Atomic long *w = atomic_load_explicit(&word, memory_order_relaxed);
  if (!w || atomic_load_explicit(w, memory_order_acquire) != 0) exit(2);
  return read_data();
}

/* the reader starts after the writer, through a relaxed flag */
#include "relaxed_handoff.h"
