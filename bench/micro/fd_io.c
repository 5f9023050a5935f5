/* fd_io.c: the cost of file I/O system calls under a race detector, whose
 * interceptors record each call's buffer and order it through the file's
 * sync object (racedet/intercept_fd.c).  Two threads, each N rounds on a
 * temporary file of its own: pwrite of 512 bytes at one of 64 offsets, then
 * pread of them back.  Prints "fd_io N ns-per-round checksum". */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "two_threads.h"

static long n;

static void *run(void *arg) {
  FILE *f = tmpfile();
  if (!f) abort();
  const int fd = fileno(f);
  char out[512], in[512];
  long sum = 0;
  for (long i = 0; i < n; i++) {
    const off_t at = (off_t)(i & 63) * (off_t)sizeof out;
    out[i & 511] = (char)i;
    if (pwrite(fd, out, sizeof out, at) != (ssize_t)sizeof out) abort();
    if (pread(fd, in, sizeof in, at) != (ssize_t)sizeof in) abort();
    sum += in[i & 511];
  }
  fclose(f);
  return (void *)(sum + (long)(arg != 0));
}

int main(int argc, char **argv) {
  n = argc > 1 ? atol(argv[1]) : 200000;
  if (n <= 0) return 2;
  long sum;
  const double ns = two_threads_ns(run, 0, &n, n, &sum);
  printf("fd_io %ld %.0f %ld\n", n, ns, sum);
  return 0;
}
