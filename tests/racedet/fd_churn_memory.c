/* fd_churn_memory.c: what a pipe costs after it was closed.
 *
 * A program that makes, uses and closes pipes, socket pairs and eventfds
 * all run long (a pipe per child process, a socket pair per request) must
 * not grow with each one.  A call that writes to a descriptor releases into
 * its file's sync object, keyed by the file (racedet/intercept_fd.c).  The
 * key was a hash of the file's device and inode, an address anywhere, so
 * each new pipe's object took a region of the meta map (sync.c) of its
 * own, and stayed: 8 KB a pipe for good (tests of 100,000 pipes, socket
 * pairs, opens and fopens: 820 MB, against clang TSan's flat 19 MB).
 *
 * 2,000 rounds first (the runtime's tables settle), then the resident set
 * is read, 20,000 more rounds, and it is read again: the growth per round
 * must stay under 64 bytes (about 8,300 before).
 *
 * Then the ordering a pipe gives must still be there when one end was
 * closed first: the writer writes its data and a byte, closes its end, and
 * says so through a relaxed flag (which orders nothing); main then reads
 * the byte and the data.  A key forgotten at the first close (instead of
 * the last) made main's read of the data a race.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: per-round memory ok, handoff 42
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "rss.h"

#define WARMUP 2000
#define MEASURED 20000

static long total;

static void round_trip(long i) {
  int p[2], sv[2];
  char c = (char)i;
  if (pipe(p) || write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1) exit(1);
  close(p[0]);
  close(p[1]);
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) || send(sv[0], &c, 1, 0) != 1 ||
      recv(sv[1], &c, 1, 0) != 1)
    exit(1);
  close(sv[0]);
  close(sv[1]);
  const int e = eventfd(0, 0);
  eventfd_t v;
  if (e < 0 || eventfd_write(e, 1) || eventfd_read(e, &v)) exit(1);
  close(e);
  total += c + (long)v;
}

static int handoff[2];
static int data;
static atomic_int closed;

static void *writer(void *arg) {
  data = 42;
  char c = 1;
  if (write(handoff[1], &c, 1) != 1) exit(1);
  close(handoff[1]);
  atomic_store_explicit(&closed, 1, memory_order_relaxed);
  return arg;
}

int main(void) {
  for (long i = 0; i < WARMUP; i++) round_trip(i);
  const long before = rss_kb();
  for (long i = 0; i < MEASURED; i++) round_trip(i);
  const long after = rss_kb();
  const long per = (after - before) * 1024 / MEASURED;
  printf("rss %ld -> %ld KB, %ld bytes per round, total %ld\n", before, after, per, total);

  if (pipe(handoff)) return 1;
  pthread_t t;
  if (pthread_create(&t, 0, writer, 0)) return 1;
  while (!atomic_load_explicit(&closed, memory_order_relaxed)) sched_yield();
  char c;
  if (read(handoff[0], &c, 1) != 1) return 1;
  const int got = data;
  close(handoff[0]);
  pthread_join(t, 0);
  if (before > 0 && after > 0 && per < 64) printf("per-round memory ok, handoff %d\n", got);
  return 0;
}
