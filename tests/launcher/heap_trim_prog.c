/* heap_trim_prog.c: 300 blocks of 2 KiB (past glibc's per-thread cache, so
 * each free merges into the heap's free top) made, then freed newest first;
 * prints the free top glibc kept (mallinfo2's keepcost), in KiB.  glibc's
 * own threshold (128 KiB) gives most of the 600 KiB back to the kernel;
 * the runtime's heap_trim_kb (1,024 KiB) keeps it (test_options.py).
 * Then the usable size of a 16-byte block: 16 from the runtime's own size
 * classes (small_heap=1), 24 from glibc's (small_heap=0). */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#define N 300

int main(void) {
  static char *b[N];
  for (int i = 0; i < N; i++) {
    b[i] = malloc(2048);
    b[i][0] = (char)i;
  }
  long sum = 0;
  for (int i = N - 1; i >= 0; i--) {
    sum += b[i][0];
    free(b[i]);
  }
  printf("top %zu KiB (%ld)\n", mallinfo2().keepcost >> 10, sum);
  char *volatile small = malloc(16);
  printf("small usable %zu\n", malloc_usable_size(small));
  free(small);
  return 0;
}
