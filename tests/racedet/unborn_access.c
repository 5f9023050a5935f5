/* unborn_access.c: accesses of a thread that has no state yet, and a
 * runtime that starts before libc has set up the environment.
 *
 * A thread's state is made at its first call hook (or its start); until
 * then its dc_tls is dc_unborn_thread, which the inline checks do not test
 * for: its flags make them ignore the access.  Here the main thread
 * accesses memory from a .preinit_array function, which runs before every
 * constructor (the runtime's and libc's), through the instrumentation's
 * entry points called directly: one access per path (the inline check,
 * an access to cells already there, one spanning two granules, ranges, and
 * the memset interceptor).  gcc emits no call hook in a no_sanitize
 * function, so these are the unborn thread's.  clang does emit its call
 * hooks, and the first one starts the runtime there, while environ is still
 * 0: the runtime must still find DACCE_OPTIONS (the launcher's report pipe;
 * without it, no report reached the launcher).  Then the program runs as
 * usual: its race on `tally` must be reported, and nothing about the early
 * accesses.
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump racer
 * EXPECT-PREVIOUS: bump racer
 * EXPECT-COUNT: 1
 * EXPECT-STDOUT: early 3
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

void __tsan_read1(void *);
void __tsan_read4(void *);
void __tsan_write8(void *);
void __tsan_unaligned_read8(void *);
void __tsan_read_range(void *, unsigned long);
void __tsan_write_range(void *, unsigned long);

_Alignas(16) long early[4];
char block[256];
int tally;

#define UNINSTRUMENTED __attribute__((no_sanitize("thread"), noinline))

UNINSTRUMENTED static void before_everything(void) {
  __tsan_write8(&early[0]);
  __tsan_write8(&early[0]); /* the same again: the inline check's question */
  __tsan_read4(&early[1]);
  __tsan_read1((char *)&early[1] + 5);
  __tsan_unaligned_read8((char *)&early[2] + 4);
  __tsan_write_range(block, sizeof block);
  __tsan_read_range(block + 3, 100);
  memset(block, 1, sizeof block); /* the interceptor */
  early[0] = 3;
}
__attribute__((section(".preinit_array"), used)) static void (*const run_early)(void) =
    before_everything;

__attribute__((noinline)) void bump(void) { tally = 1; } /* one write: one report */
void *racer(void *a) {
  bump();
  return a;
}
int main(void) {
  printf("early %ld\n", early[0]);
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, racer, 0);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  return block[0] == 1 ? 0 : 1;
}
