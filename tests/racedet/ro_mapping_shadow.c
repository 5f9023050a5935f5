/* ro_mapping_shadow.c: reads of a read-only file mapping are neither
 * checked nor recorded (racedet/intercept_mmap.c), so they cost no shadow.
 * Four threads each read all of a 16 MiB mapping, and the peak resident
 * size may grow by the file's own pages (16 MiB, in the page cache and
 * mapped) and the threads' stacks and runtime state, not by the shadow
 * that recording the reads would commit: 32 MiB for one cell per granule
 * in plane A, 64 MiB with the threads' cells spilling into plane B.  The
 * program checks its sum and its growth (getrusage), and says "shadow ok".
 *
 * EXPECT: clean
 * EXPECT-STDOUT: shadow ok
 */
#include <pthread.h>
#include <sys/resource.h>

#include "ro_map.h"

#define SIZE (16l << 20)
#define WORDS (SIZE / 8)
static long *map;

static long max_rss_kb(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

static void *reader(void *arg) {
  long sum = 0;
  for (long i = 0; i < WORDS; i++) sum += map[i];
  *(long *)arg = sum;
  return 0;
}

int main(void) {
  pthread_t t[4];
  long sums[4];
  /* (the threads' stacks and the runtime's state for them before the
   * baseline: only the reads' cost is measured) */
  const long before = max_rss_kb();
  map = ro_map(SIZE);
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, reader, &sums[i]);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  const long grew = max_rss_kb() - before;
  for (int i = 0; i < 4; i++)
    if (sums[i] != WORDS * (WORDS - 1) / 2) {
      fprintf(stderr, "reader %d: wrong sum\n", i);
      return 1;
    }
  /* the file's 16 MiB and at most 8 MiB more */
  if (grew > (SIZE >> 10) + 8192) {
    fprintf(stderr, "peak resident size grew by %ld KiB for a %ld KiB mapping\n", grew, SIZE >> 10);
    return 1;
  }
  printf("shadow ok (grew %ld KiB)\n", grew);
  return 0;
}
