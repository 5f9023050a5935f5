/* fd_buffers.c: the buffers of read-like and write-like calls are the
 * caller's memory, read or filled inside the kernel, where no
 * instrumentation sees them.
 *  - use_0 (a thread) reads 16 bytes from a pipe into `in`, then raises a
 *    relaxed flag; main reads in[3] after it: a race with the read's fill
 *    (the pipe orders main's write before the thread's read, not the other
 *    way).
 *  - main writes out[5], then raises a relaxed flag; use_1 (a thread) then
 *    writes `out` into a pipe: a race with the write's read of it.
 *  - use_2 (a thread) reads with readv into two buffers; main reads the
 *    second one's byte 2: a race with the fill of the second iovec.
 * Three races; before, none was found (the calls ordered, but their
 * buffers were not accesses).
 *
 * EXPECT: race
 * EXPECT-COUNT: 3
 * EXPECT-EVERY: 3 use
 * EXPECT-STDOUT: buffers 3 5 a
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/uio.h>
#include <unistd.h>

static int p_in[2], p_out[2], p_v[2];
static char in[16], out[16], va[8], vb[8];
static int filled, written, vfilled, out_ready; /* atomic, relaxed: order nothing */

static void wait_flag(int *f) {
  while (!__atomic_load_n(f, __ATOMIC_RELAXED)) usleep(1000);
}

__attribute__((noinline)) static void use_0(void) {
  if (read(p_in[0], in, sizeof in) != (ssize_t)sizeof in) return;
  __atomic_store_n(&filled, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static void use_1(void) {
  wait_flag(&out_ready);
  if (write(p_out[1], out, sizeof out) != (ssize_t)sizeof out) return;
  __atomic_store_n(&written, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static void use_2(void) {
  struct iovec v[2] = {{va, sizeof va}, {vb, sizeof vb}};
  if (readv(p_v[0], v, 2) != 16) return;
  __atomic_store_n(&vfilled, 1, __ATOMIC_RELAXED);
}
static void *reader(void *arg) {
  (void)arg;
  use_0();
  return 0;
}
static void *sender(void *arg) {
  (void)arg;
  use_1();
  return 0;
}
static void *vreader(void *arg) {
  (void)arg;
  use_2();
  return 0;
}

int main(void) {
  if (pipe(p_in) || pipe(p_out) || pipe(p_v)) return 1;
  pthread_t t[3];
  pthread_create(&t[0], 0, reader, 0);
  pthread_create(&t[1], 0, sender, 0);
  pthread_create(&t[2], 0, vreader, 0);
  if (write(p_in[1], "0123456789abcdef", 16) != 16) return 1;
  if (write(p_v[1], "0123456789abcdef", 16) != 16) return 1;
  out[5] = '5';
  __atomic_store_n(&out_ready, 1, __ATOMIC_RELAXED);
  wait_flag(&filled);
  const char a = in[3];
  wait_flag(&vfilled);
  const char c = vb[2];
  wait_flag(&written);
  char got[16];
  if (read(p_out[0], got, sizeof got) != (ssize_t)sizeof got) return 1;
  for (int i = 0; i < 3; i++) pthread_join(t[i], 0);
  printf("buffers %c %c %c\n", a, got[5], c);
  return 0;
}
