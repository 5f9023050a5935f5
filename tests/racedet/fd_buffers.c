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
 *  - use_3 (a thread) receives two datagrams with recvmmsg; main reads
 *    the second one's byte 1: a race with that message's fill.
 *  - main writes m1[2], then raises a relaxed flag; use_4 (a thread) then
 *    sends two datagrams with sendmmsg, the second from m1: a race with
 *    the send's read of it.
 * Five races; before, none was found (the calls ordered, but their
 * buffers were not accesses; the last two: until recvmmsg was intercepted
 * and sendmmsg's messages were read).
 *
 * EXPECT: race
 * EXPECT-COUNT: 5
 * EXPECT-EVERY: 5 use
 * EXPECT-STDOUT: buffers 3 5 a y Q
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static int p_in[2], p_out[2], p_v[2], s_in[2], s_out[2];
static char in[16], out[16], va[8], vb[8], r0[4], r1[4], m0[4] = "abc", m1[4] = "pqr";
static int filled, written, vfilled, out_ready, mfilled, msent, m_ready; /* relaxed */

static void wait_flag(int *f) {
  while (!__atomic_load_n(f, __ATOMIC_RELAXED)) usleep(1000);
}

__attribute__((noinline)) static void use_0(void) {
  if (read(p_in[0], in, sizeof in) != (ssize_t)sizeof in) abort();
  __atomic_store_n(&filled, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static void use_1(void) {
  wait_flag(&out_ready);
  if (write(p_out[1], out, sizeof out) != (ssize_t)sizeof out) abort();
  __atomic_store_n(&written, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static void use_2(void) {
  struct iovec v[2] = {{va, sizeof va}, {vb, sizeof vb}};
  if (readv(p_v[0], v, 2) != 16) abort();
  __atomic_store_n(&vfilled, 1, __ATOMIC_RELAXED);
}
/* two messages, from or into a and b */
static void two(struct mmsghdr m[2], struct iovec v[2], char *a, char *b) {
  v[0] = (struct iovec){a, 4}, v[1] = (struct iovec){b, 4};
  for (int i = 0; i < 2; i++)
    m[i] = (struct mmsghdr){.msg_hdr = {.msg_iov = &v[i], .msg_iovlen = 1}};
}
__attribute__((noinline)) static void use_3(void) {
  struct mmsghdr m[2];
  struct iovec v[2];
  two(m, v, r0, r1);
  if (recvmmsg(s_in[0], m, 2, 0, 0) != 2) abort(); /* (waits for both) */
  __atomic_store_n(&mfilled, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static void use_4(void) {
  struct mmsghdr m[2];
  struct iovec v[2];
  two(m, v, m0, m1);
  wait_flag(&m_ready);
  if (sendmmsg(s_out[1], m, 2, 0) != 2) abort();
  __atomic_store_n(&msent, 1, __ATOMIC_RELAXED);
}
static void (*const uses[])(void) = {use_0, use_1, use_2, use_3, use_4};
static void *run(void *use) {
  uses[(long)use]();
  return 0;
}

int main(void) {
  if (pipe(p_in) || pipe(p_out) || pipe(p_v)) return 1;
  if (socketpair(AF_UNIX, SOCK_DGRAM, 0, s_in) || socketpair(AF_UNIX, SOCK_DGRAM, 0, s_out))
    return 1;
  pthread_t t[5];
  for (long k = 0; k < 5; k++) pthread_create(&t[k], 0, run, (void *)k);
  if (write(p_in[1], "0123456789abcdef", 16) != 16) return 1;
  if (write(p_v[1], "0123456789abcdef", 16) != 16) return 1;
  if (send(s_in[1], "wxy", 4, 0) != 4 || send(s_in[1], "xyz", 4, 0) != 4) return 1;
  out[5] = '5';
  __atomic_store_n(&out_ready, 1, __ATOMIC_RELAXED);
  m1[1] = 'Q';
  __atomic_store_n(&m_ready, 1, __ATOMIC_RELAXED);
  wait_flag(&filled);
  const char a = in[3];
  wait_flag(&vfilled);
  const char c = vb[2];
  wait_flag(&mfilled);
  const char d = r1[1];
  wait_flag(&written);
  char got[16];
  if (read(p_out[0], got, sizeof got) != (ssize_t)sizeof got) return 1;
  wait_flag(&msent);
  char g0[4], g1[4];
  if (recv(s_out[0], g0, 4, 0) != 4 || recv(s_out[0], g1, 4, 0) != 4) return 1;
  for (int i = 0; i < 5; i++) pthread_join(t[i], 0);
  printf("buffers %c %c %c %c %c\n", a, got[5], c, d, g1[1]);
  return 0;
}
