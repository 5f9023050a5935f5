/* own_libc_functions.c: a program that defines functions of libc's that the
 * runtime intercepts (its own strlen; compatibility versions of daemon and
 * closefrom, as portable programs carry for systems without them).  Their
 * interceptors are weak (racedet/intercept.h), so the program links with
 * its own definitions, which it then calls: its strlen is instrumented code
 * like the rest, and its read of a buffer that another thread writes,
 * unordered, is one race.  With strong interceptors the link failed with a
 * multiple definition.
 *
 * EXPECT: race
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: strlen
 * EXPECT-STDOUT: own 3 5 7
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int closed_from = -1;

__attribute__((noinline)) size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n]) n++;
  return n;
}
int daemon(int nochdir, int noclose) { return nochdir + noclose + 2; }
void closefrom(int lo) { closed_from = lo; }

static char buf[16] = "abcde";
static int written; /* relaxed: orders nothing */

static void *writer(void *arg) {
  (void)arg;
  buf[2] = 'C';
  __atomic_store_n(&written, 1, __ATOMIC_RELAXED);
  return 0;
}

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  while (!__atomic_load_n(&written, __ATOMIC_RELAXED)) usleep(1000);
  const size_t n = strlen(buf);
  pthread_join(t, 0);
  closefrom(7);
  printf("own %d %zu %d\n", daemon(0, 1), n, closed_from);
  return 0;
}
