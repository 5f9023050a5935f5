/* sparse_block.c: the shadow of a large block touched here and there.
 *
 * A large block's plane A used to be advised huge pages when it was
 * allocated (its sweep then faults once per 2 MiB of shadow, not 512
 * times).  A block that is not swept but touched sparsely (a large table,
 * an arena) then committed a 2 MiB huge page of shadow for every MiB of
 * the block that saw one access: 1,024 bytes written, one per MiB of a
 * 1 GiB block, took the resident set from about 5 MB to 2.1 GB (clang
 * TSan: 0.55 GB).  Huge pages are now advised only ahead of a dense sweep
 * (shadow/shadow.c, sh_huge_ahead).
 *
 * Two threads write one byte per MiB of their half of a 1 GiB block; the
 * resident set may grow by at most 256 MB over it.  Then a dense sweep
 * over 64 MiB of another block: where the kernel has transparent huge
 * pages, some mapping of the process must now ask for them (VmFlags "hg"
 * in /proc/self/smaps), else dense sweeps lost them.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: sparse ok
 * EXPECT-STDOUT: dense ok
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rss.h"

#define MIB ((size_t)1 << 20)
#define SPARSE (1024 * MIB)
#define DENSE (64 * MIB)

static char *sparse;

/* Does some mapping of the process ask for huge pages? */
static int some_mapping_huge(void) {
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  int hg = 0;
  while (f && fgets(line, sizeof line, f))
    if (!strncmp(line, "VmFlags:", 8) && strstr(line, " hg")) hg = 1;
  if (f) fclose(f);
  return hg;
}

static int have_thp(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[128] = "";
  if (f) {
    if (!fgets(line, sizeof line, f)) line[0] = 0;
    fclose(f);
  }
  return f && !strstr(line, "[never]");
}

static void *touch(void *arg) {
  const size_t half = (size_t)arg;
  for (size_t o = half * (SPARSE / 2); o < (half + 1) * (SPARSE / 2); o += MIB)
    sparse[o + 64 * half] = (char)(o >> 20);
  return 0;
}

int main(void) {
  sparse = malloc(SPARSE);
  if (!sparse) return 2;
  const long before = rss_kb();
  pthread_t a, b;
  pthread_create(&a, 0, touch, (void *)0);
  pthread_create(&b, 0, touch, (void *)1);
  pthread_join(a, 0);
  pthread_join(b, 0);
  long sum = 0;
  for (size_t o = 0; o < SPARSE; o += MIB) sum += sparse[o];
  const long grown = rss_kb() - before;
  if (grown > 256 * 1024) {
    printf("sparse: the resident set grew by %ld MB for 1024 bytes written\n", grown / 1024);
    return 1;
  }
  printf("sparse ok\n");
  free(sparse);

  if (have_thp() && some_mapping_huge()) {
    printf("dense: a mapping asks for huge pages before the sweep\n");
    return 1;
  }
  char *dense = malloc(DENSE);
  if (!dense) return 2;
  for (size_t i = 0; i < DENSE; i += 8) *(volatile long *)(dense + i) = (long)i;
  if (have_thp() && !some_mapping_huge()) {
    printf("dense: no mapping asks for huge pages after a sweep of 64 MiB\n");
    return 1;
  }
  printf("dense ok\n");
  free(dense);
  return sum == -1;
}
