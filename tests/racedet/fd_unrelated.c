/* fd_unrelated.c: the writer writes to one pipe; main waits on another,
 * fed by a third thread that only saw a relaxed flag from the writer (which
 * orders nothing).  A write to one pipe orders nothing for a read of
 * another, so main's read of the data still races with the writer's write
 * (fd happens-before is per file, racedet/intercept_fd.c; one object for
 * every descriptor would hide this race).
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_data|write_data
 * EXPECT-PREVIOUS: read_data|write_data
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <unistd.h>

static int data;
static int pipe1[2], pipe2[2];
static atomic_int written;

__attribute__((noinline)) void write_data(void) { data = 7; }
__attribute__((noinline)) int read_data(void) { return data; }

static void *writer(void *arg) {
  write_data();
  char c = 1;
  if (write(pipe1[1], &c, 1) != 1) return arg; /* nobody reads this one */
  atomic_store_explicit(&written, 1, memory_order_relaxed);
  return arg;
}
static void *relay(void *arg) {
  while (!atomic_load_explicit(&written, memory_order_relaxed)) {}
  char c = 2;
  if (write(pipe2[1], &c, 1) != 1) return arg;
  return arg;
}
int main(void) {
  if (pipe(pipe1) || pipe(pipe2)) return 2;
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, relay, 0);
  char c;
  if (read(pipe2[0], &c, 1) != 1) return 2;
  printf("%d\n", read_data());
  pthread_join(w, 0);
  pthread_join(r, 0);
  return 0;
}
