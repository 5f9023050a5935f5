/* fd_close_race.c: a descriptor closed by one thread while another uses
 * it, with nothing ordering the two (the writer's flag is relaxed): after
 * the close the number may name another file, so the use and the close
 * race on the descriptor itself (gcc's fd_pipe_race.c, with our stacks:
 * the write's, the close's, and where the pipe was made).
 *
 * EXPECT: race
 * EXPECT-CURRENT: close_pipe closer
 * EXPECT-PREVIOUS: write_pipe writer
 * EXPECT-LOCATION: fd
 * EXPECT-ALLOCATION: make_pipe main
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fds[2];
static atomic_int written;

__attribute__((noinline)) static void make_pipe(void) {
  if (pipe(fds)) /* ALLOC-HERE */
    exit(2);
}
__attribute__((noinline)) static void write_pipe(void) {
  if (write(fds[1], "a", 1) != 1) exit(2);
}
__attribute__((noinline)) static void close_pipe(void) {
  close(fds[0]);
  close(fds[1]);
}

static void *writer(void *arg) {
  (void)arg;
  write_pipe();
  atomic_store_explicit(&written, 1, memory_order_relaxed);
  return NULL;
}

static void *closer(void *arg) {
  (void)arg;
  while (!atomic_load_explicit(&written, memory_order_relaxed)) sched_yield();
  close_pipe();
  return NULL;
}

int main(void) {
  make_pipe();
  pthread_t a, b;
  pthread_create(&a, NULL, writer, NULL);
  pthread_create(&b, NULL, closer, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  puts("done");
  return 0;
}
