/* ro_mapping_mprotect.c: a read-only file mapping is read without being
 * recorded (nothing can write it), until mprotect makes it writable: from
 * then on its reads count again.  main reads the mapping, makes it
 * writable, and then a writer and a reader that never synchronise write
 * and read its first word: a race.  A runtime that kept the pages marked
 * read-only after the mprotect would not record or check the read, and
 * report nothing.
 *
 * EXPECT: race
 * EXPECT-CURRENT: reader_work
 * EXPECT-PREVIOUS: writer_work
 */
#include "ro_map.h"

#define SIZE (2 * 4096)
static long *map;

static void map_it(void) {
  map = ro_map(SIZE);
  long sum = 0;
  for (int i = 0; i < SIZE / 8; i++) sum += map[i];
  if (sum != (long)(SIZE / 8) * (SIZE / 8 - 1) / 2) exit(2);
  if (mprotect(map, SIZE, PROT_READ | PROT_WRITE)) {
    perror("mprotect");
    exit(2);
  }
}
#define HANDOFF_BEFORE map_it

__attribute__((noinline)) static void writer_work(void) { map[0] = 42; }
__attribute__((noinline)) static int reader_work(void) { return map[0] == 42; }

#include "relaxed_handoff.h"
