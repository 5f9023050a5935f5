/* stdio.c: the cost of the printf and scanf families under a race
 * detector, whose interceptors walk each format (racedet/intercept_stdio.c).
 * Two threads, each N rounds on its own buffers: snprintf of an int, a
 * string and a double, sscanf of two ints back out of it, and fputs of the
 * line into /dev/null.  Prints "stdio N ns-per-round checksum". */
#include <stdio.h>
#include <stdlib.h>

#include "two_threads.h"

static long n;
static FILE *sink;

static void *run(void *arg) {
  const char *name = arg;
  char line[96];
  long sum = 0;
  for (long i = 0; i < n; i++) {
    snprintf(line, sizeof line, "%ld %d %s %.2f\n", i, (int)(i & 1023), name, (double)i / 7);
    long a;
    int b;
    if (sscanf(line, "%ld %d", &a, &b) != 2 || a != i) abort();
    sum += b;
    fputs(line, sink);
  }
  return (void *)sum;
}

int main(int argc, char **argv) {
  n = argc > 1 ? atol(argv[1]) : 1000000;
  sink = fopen("/dev/null", "w");
  if (!sink || n <= 0) return 2;
  long sum;
  const double ns = two_threads_ns(run, "alpha", "beta", n, &sum);
  printf("stdio %ld %.0f %ld\n", n, ns, sum);
  return 0;
}
