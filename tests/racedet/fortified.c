/* fortified.c: a program built with -D_FORTIFY_SOURCE=2, as Debian's and
 * Ubuntu's packages are: a copy or a read into an object whose size the
 * compiler knows, of a length it does not, calls the checked variant
 * (__memcpy_chk, __memset_chk, __strcpy_chk, __read_chk) instead.
 *  - The filler thread copies into `table` with memcpy, then clears and
 *    names `other` (memset, strcpy, and a plain store) and writes one byte
 *    into a pipe; main reads that byte into `got` (gcc: __read_chk) and
 *    then reads `other`: ordered by the pipe (the write releases, the read
 *    acquires), no race.  Before, the read of the pipe went unseen, and
 *    main's read of other[2] was reported racing with the filler's store.
 *  - main reads table[5] without waiting for anything: a race with the
 *    filler's memcpy, reported once (before, the copy went unseen and the
 *    race was lost).
 *
 * EXPECT: race
 * EXPECT-CFLAGS: -D_FORTIFY_SOURCE=2
 * EXPECT-COUNT: 1
 * EXPECT-CURRENT: fill|peek
 * EXPECT-PREVIOUS: fill|peek
 * EXPECT-STDOUT: fortified 5 x y
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char table[64];
static char other[32];
static char got[16];
static int fds[2];
static volatile size_t len = 16, name_len = 1; /* not known to the compiler */
static const char src[64] = "0123456789abcdefghijklmnopqrstuvwxyz";
static int copied; /* atomic, relaxed: orders nothing for the detector */

__attribute__((noinline)) static void fill(void) {
  memcpy(table, src, len);
  __atomic_store_n(&copied, 1, __ATOMIC_RELAXED);
}
__attribute__((noinline)) static char peek(void) { return table[5]; }

static void *filler(void *arg) {
  (void)arg;
  fill();
  memset(other, 0, len);
  char name[8] = "x";
  name[name_len] = 0;
  strcpy(other, name);
  other[2] = 'y';
  if (write(fds[1], "!", 1) != 1) return 0;
  return 0;
}

int main(void) {
  if (pipe(fds)) return 1;
  pthread_t t;
  pthread_create(&t, 0, filler, 0);
  while (!__atomic_load_n(&copied, __ATOMIC_RELAXED)) usleep(1000);
  char c = peek();
  if (read(fds[0], got, len) != 1) return 1;
  const char o = other[2];
  printf("fortified %c %s %c\n", c, other, o);
  pthread_join(t, 0);
  return 0;
}
