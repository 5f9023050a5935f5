/* fd_idle_race.c: a non-blocking read that finds nothing (EAGAIN) uses
 * its descriptor as any read does, though it asks no fstat (the file last
 * seen at that number stands: intercept_fd.c, fd_use_idle).  A poller's
 * reads of an empty pipe and another thread's close of it, with nothing
 * ordering them, race on the descriptor; the poller sees errno EAGAIN
 * after each read, as without the runtime.
 *
 * EXPECT: race
 * EXPECT-CURRENT: close_pipe closer
 * EXPECT-PREVIOUS: poll_pipe poller
 * EXPECT-LOCATION: fd
 * EXPECT-ALLOCATION: make_pipe main
 * EXPECT-COUNT: 1
 * EXPECT-STDOUT: EAGAIN 3
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fds[2];
static atomic_int polled;
static int eagain;

__attribute__((noinline)) static void make_pipe(void) {
  if (pipe2(fds, O_NONBLOCK)) /* ALLOC-HERE */
    exit(2);
}
__attribute__((noinline)) static void poll_pipe(void) {
  char c;
  for (int i = 0; i < 3; i++)
    if (read(fds[0], &c, 1) < 0 && errno == EAGAIN) eagain++;
}
__attribute__((noinline)) static void close_pipe(void) {
  close(fds[0]);
  close(fds[1]);
}

static void *poller(void *arg) {
  poll_pipe();
  atomic_store_explicit(&polled, 1, memory_order_relaxed);
  return arg;
}

static void *closer(void *arg) {
  while (!atomic_load_explicit(&polled, memory_order_relaxed)) sched_yield();
  close_pipe();
  return arg;
}

int main(void) {
  make_pipe();
  pthread_t a, b;
  pthread_create(&a, NULL, poller, NULL);
  pthread_create(&b, NULL, closer, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  printf("EAGAIN %d\n", eagain);
  return 0;
}
