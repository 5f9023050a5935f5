/* fd_close_race.c: a descriptor closed by one thread while another uses
 * it, with nothing ordering the two (the writer's flag is relaxed): after
 * the close the number may name another file, so the use and the close
 * race on the descriptor itself (gcc's fd_pipe_race.c, with our stacks:
 * the write's, the close's, and where the pipe was made).
 *
 * EXPECT: race
 * EXPECT-CURRENT: reader_work reader
 * EXPECT-PREVIOUS: writer_work writer
 * EXPECT-LOCATION: fd
 * EXPECT-ALLOCATION: make_pipe main
 * EXPECT-COUNT: 1
 */
#include <stdlib.h>
#include <unistd.h>

static int fds[2];

__attribute__((noinline)) static void make_pipe(void) {
  if (pipe(fds)) /* ALLOC-HERE */
    exit(2);
}
/* the previous access: the descriptor used */
__attribute__((noinline)) static void writer_work(void) {
  if (write(fds[1], "a", 1) != 1) exit(2);
}
/* the current one: it is closed */
__attribute__((noinline)) static int reader_work(void) {
  close(fds[0]);
  close(fds[1]);
  return 0;
}

#define HANDOFF_BEFORE make_pipe
#include "relaxed_handoff.h"
