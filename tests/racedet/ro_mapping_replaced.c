/* ro_mapping_replaced.c: the pages of a read-only file mapping stop being
 * read-only when memory that can be written takes their place: page 0 by
 * mmap with MAP_FIXED over it, page 1 by munmap and then a mapping made by
 * the raw system call (which the runtime does not see, so that only the
 * munmap can have taken the mark away).  Then a writer and a reader that
 * never synchronise write and read each page: two races.  A runtime that
 * kept a page marked read-only would not record or check its read, and
 * report one race or none.
 *
 * EXPECT: race
 * EXPECT-COUNT: 2
 */
#define _GNU_SOURCE
#include <sys/syscall.h>

#include "ro_map.h"

static long *map;

static void replace_them(void) {
  map = ro_map(2 * 4096);
  if (map[0] != 0 || map[4096 / 8] != 4096 / 8) exit(2);
  long *p = mmap(map, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  long *q = map + 4096 / 8;
  if (p != map || munmap(q, 4096)) exit(2);
  if ((long *)syscall(SYS_mmap, q, 4096, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) != q) {
    fprintf(stderr, "the address was taken in between\n");
    exit(2);
  }
}
#define HANDOFF_BEFORE replace_them

__attribute__((noinline)) static void write_page0(void) { map[0] = 1; }
__attribute__((noinline)) static void write_page1(void) { map[4096 / 8] = 1; }
__attribute__((noinline)) static int read_page0(void) { return (int)map[0]; }
__attribute__((noinline)) static int read_page1(void) { return (int)map[4096 / 8]; }

__attribute__((noinline)) static void writer_work(void) {
  write_page0();
  write_page1();
}
__attribute__((noinline)) static int reader_work(void) { return read_page0() + read_page1(); }

#include "relaxed_handoff.h"
