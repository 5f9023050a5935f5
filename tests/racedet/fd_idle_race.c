/* fd_idle_race.c: a non-blocking read that finds nothing (EAGAIN) uses
 * its descriptor as any read does, though it asks no fstat (the file last
 * seen at that number stands: intercept_fd.c, fd_use_idle).  A poller's
 * reads of an empty pipe and another thread's close of it, with nothing
 * ordering them, race on the descriptor; the poller sees errno EAGAIN
 * after each read, as without the runtime.
 *
 * EXPECT: race
 * EXPECT-CURRENT: reader_work reader
 * EXPECT-PREVIOUS: writer_work writer
 * EXPECT-LOCATION: fd
 * EXPECT-ALLOCATION: make_pipe main
 * EXPECT-COUNT: 1
 * EXPECT-STDOUT: EAGAIN 3
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fds[2];
static int eagain;

__attribute__((noinline)) static void make_pipe(void) {
  if (pipe2(fds, O_NONBLOCK)) /* ALLOC-HERE */
    exit(2);
}
/* the previous access: the descriptor used */
__attribute__((noinline)) static void writer_work(void) {
  char c;
  for (int i = 0; i < 3; i++)
    if (read(fds[0], &c, 1) < 0 && errno == EAGAIN) eagain++;
}
/* the current one: it is closed */
__attribute__((noinline)) static int reader_work(void) {
  close(fds[0]);
  close(fds[1]);
  return 0;
}

static void report_polls(void) { printf("EAGAIN %d\n", eagain); }

#define HANDOFF_BEFORE make_pipe
#define HANDOFF_AFTER report_polls
#include "relaxed_handoff.h"
