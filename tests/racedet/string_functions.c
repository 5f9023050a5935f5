/* string_functions.c: races through the common string and memory
 * functions beyond memcpy, memset and the str* basics: each of use_0 ..
 * use_18 in main calls one of them (strnlen, strrchr, strchrnul, memchr,
 * memrchr, strstr, strspn, strcspn, strpbrk, strcasecmp, strncasecmp,
 * bcmp, strndup, strncat, stpcpy, stpncpy, mempcpy, bzero,
 * explicit_bzero) on a buffer of its own that the writer thread wrote,
 * after a relaxed flag that orders nothing: 19 races, each found at its
 * function's call.  Without these functions' interceptors 17 of them went
 * unseen (the compilers turn gcc's bcmp into memcmp, bzero into memset and
 * clang's mempcpy into memcpy, which were intercepted).  Constant
 * arguments go through volatile pointers, so that each stays a call.
 *
 * EXPECT: race
 * EXPECT-EVERY: 19 use
 * EXPECT-STDOUT: strings done
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#define N 19
static char buf[N][32] __attribute__((aligned(64)));
static int ready; /* atomic, relaxed */
static volatile size_t eight = 8; /* lengths the compiler does not know */
static volatile int x_c = 'x';
/* the constant arguments, through volatile pointers: calls, not code the
 * compiler expands in place */
static const char *volatile zz = "zz", *volatile digits = "0123456789", *volatile xy = "xy",
                                 *volatile abcd = "abcd", *volatile def = "def",
                                 *volatile upper = "ABCDEFGHIJKLMNOP", *volatile e = "e",
                                 *volatile fg = "fg";

static void *writer(void *arg) {
  (void)arg;
  for (int k = 0; k < N; k++) {
    for (int i = 0; i < 16; i++) buf[k][i] = (char)('a' + i);
    buf[k][16] = 0;
  }
  __atomic_store_n(&ready, 1, __ATOMIC_RELAXED);
  return 0;
}

static volatile size_t sink;
#define USE(k, expr) \
  __attribute__((noinline)) static void use_##k(void) { sink += (size_t)(expr); }
USE(0, strnlen(buf[0], 20))
USE(1, strrchr(buf[1], 'b'))
USE(2, strchrnul(buf[2], x_c))
USE(3, memchr(buf[3], 'h', 16))
USE(4, memrchr(buf[4], 'c', 16))
USE(5, strstr(buf[5], def))
USE(6, strspn(buf[6], abcd))
USE(7, strcspn(buf[7], e))
USE(8, strpbrk(buf[8], fg))
USE(9, strcasecmp(buf[9], upper))
USE(10, strncasecmp(buf[10], upper, eight))
USE(11, bcmp(buf[11], upper, eight))
__attribute__((noinline)) static void use_12(void) { /* (a copy unused is no call at all) */
  char *p = strndup(buf[12], eight);
  sink += p ? (size_t)p[1] : 0;
  free(p);
}
USE(13, strncat(buf[13], xy, eight))
USE(14, stpcpy(buf[14], zz))
USE(15, stpncpy(buf[15], zz, eight))
USE(16, mempcpy(buf[16], digits, eight))
USE(17, (bzero(buf[17], eight), 1))
USE(18, (explicit_bzero(buf[18], eight), 1))

int main(void) {
  pthread_t t;
  pthread_create(&t, 0, writer, 0);
  while (!__atomic_load_n(&ready, __ATOMIC_RELAXED)) usleep(1000);
  use_0(); use_1(); use_2(); use_3(); use_4(); use_5(); use_6(); use_7(); use_8(); use_9();
  use_10(); use_11(); use_12(); use_13(); use_14(); use_15(); use_16(); use_17(); use_18();
  pthread_join(t, 0);
  puts("strings done");
  return 0;
}
