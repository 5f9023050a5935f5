/* fd_reuse.c: descriptor numbers handed out again.  A thread closes a
 * descriptor and another, which never synchronises with it (relaxed
 * flags), gets the same number for a new file and uses it: the number is
 * the same location only while it names the same file, so nothing may be
 * reported.
 *   1: the new descriptor comes from dup, which the runtime sees (a new
 *      descriptor starts without history), of the pipe's other end: the
 *      same file as before under that number, so only the creation can
 *      tell the two apart;
 *   2: the first thread opens, uses and closes the number again (it is
 *      the lowest free one), and the second gets it from fopen, whose
 *      open the runtime does not see (glibc makes the system call itself):
 *      the descriptor refers to another file than the number did, which
 *      drops its history at its first use.
 * Then a descriptor closed after a join: ordered, no report.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: reused 3
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int fds[2];
static atomic_int stage;
static int reused_first, reused_second; /* one per thread */

static void wait_stage(int s) {
  while (atomic_load_explicit(&stage, memory_order_relaxed) < s) sched_yield();
}

static void *first(void *arg) {
  (void)arg;
  /* round 1: use, then close, the pipe's write end */
  if (write(fds[1], "a", 1) != 1) exit(2);
  close(fds[1]);
  atomic_store_explicit(&stage, 1, memory_order_relaxed);
  /* round 2: open, use and close another file (the lowest number free:
   * the one the second thread closed) */
  wait_stage(2);
  int fd = open("/dev/zero", O_RDONLY);
  reused_first += fd == fds[1];
  char c;
  if (read(fd, &c, 1) != 1) exit(2);
  close(fd);
  atomic_store_explicit(&stage, 3, memory_order_relaxed);
  return NULL;
}

static void *second(void *arg) {
  (void)arg;
  wait_stage(1);
  int fd = dup(fds[0]);
  reused_second += fd == fds[1];
  char c;
  if (read(fd, &c, 1) != 1) exit(2);
  close(fd);
  atomic_store_explicit(&stage, 2, memory_order_relaxed);
  wait_stage(3);
  FILE *f = fopen("/proc/self/stat", "r");
  if (!f) exit(2);
  reused_second += fileno(f) == fds[1];
  if (read(fileno(f), &c, 1) != 1) exit(2);
  fclose(f);
  return NULL;
}

int main(void) {
  if (pipe(fds)) return 2;
  pthread_t a, b;
  pthread_create(&a, NULL, first, NULL);
  pthread_create(&b, NULL, second, NULL);
  pthread_join(a, NULL);
  pthread_join(b, NULL);
  close(fds[0]); /* after the joins: ordered with every use */
  printf("reused %d\n", reused_first + reused_second);
  return 0;
}
