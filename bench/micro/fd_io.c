/* fd_io.c: the cost of file I/O system calls under a race detector, whose
 * interceptors record each call's buffer and order it through the file's
 * sync object (racedet/intercept_fd.c).  Two threads, each N rounds on a
 * temporary file of its own: pwrite of 512 bytes at one of 64 offsets, then
 * pread of them back.  Prints "fd_io N ns-per-round checksum". */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  pthread_t t[2];
  pthread_create(&t[0], 0, run, 0);
  pthread_create(&t[1], 0, run, &n);
  void *s0, *s1;
  pthread_join(t[0], &s0);
  pthread_join(t[1], &s1);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / n;
  printf("fd_io %ld %.0f %ld\n", n, ns, (long)s0 + (long)s1);
  return 0;
}
