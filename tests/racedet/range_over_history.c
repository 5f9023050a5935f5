/* range_over_history.c: a range access over granules that hold the
 * thread's own history of several kinds, in both planes (racedet/access.c,
 * range_store: SQLite's pread into a page buffer, its pwrite of one).  The
 * owner thread leaves three cells in each granule of two buffers, each in
 * an epoch of its own (a release between them): a write of the whole
 * granule, a read of its first half, an atomic read of its second half;
 * the third goes to plane B.  Then it fills `in` from a pipe (a range
 * write, which subsumes the first two cells but not the atomic one) and
 * sends `out` down a pipe (a range read, which subsumes only the read).
 * The other thread, ordered after the owner's history (an acquire of its
 * flag) but with the range accesses only by a relaxed flag, then reads a
 * byte of each granule of `in` (use_0) and writes one of each granule of
 * `out` (use_1): each races with the owner's range access, which must
 * have been stored.  Two races (one report each: the same stacks in every
 * granule); a range access lost gives fewer, a cell kept that the history
 * orders gives more.
 *
 * EXPECT: race
 * EXPECT-COUNT: 2
 * EXPECT-EVERY: 2 use
 * EXPECT-STDOUT: history 1
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define GRANULES 8
static _Alignas(64) char in[8 * GRANULES], out[8 * GRANULES];
static int p_in[2], p_out[2];
static _Atomic int epoch_flag; /* each release store begins an epoch */
static _Atomic int history_done; /* release and acquire: orders */
static int owner_done;           /* relaxed: orders nothing */
static long sum;

static void next_epoch(void) { atomic_fetch_add_explicit(&epoch_flag, 1, memory_order_release); }

__attribute__((noinline)) static void history(char *b) {
  for (int g = 0; g < GRANULES; g++) ((volatile long *)b)[g] = g + 1;
  next_epoch();
  for (int g = 0; g < GRANULES; g++) sum += ((volatile int *)b)[2 * g];
  next_epoch();
  for (int g = 0; g < GRANULES; g++) sum += __atomic_load_n((int *)b + 2 * g + 1, __ATOMIC_RELAXED);
  next_epoch();
}
__attribute__((noinline)) static void fill(void) {
  if (read(p_in[0], in, sizeof in) != (ssize_t)sizeof in) abort();
}
__attribute__((noinline)) static void send(void) {
  if (write(p_out[1], out, sizeof out) != (ssize_t)sizeof out) abort();
}
static void *owner(void *arg) {
  (void)arg;
  history(in);
  history(out);
  atomic_store_explicit(&history_done, 1, memory_order_release);
  fill();
  send();
  __atomic_store_n(&owner_done, 1, __ATOMIC_RELAXED);
  return 0;
}

/* one byte a call, from one call site: the same stacks in every granule
 * (an unrolled loop would give each granule a report of its own) */
#ifdef __clang__
#define NO_UNROLL _Pragma("clang loop unroll(disable)")
#else
#define NO_UNROLL _Pragma("GCC unroll 1")
#endif
__attribute__((noinline)) static long use_0(const char *p) { return *(volatile const char *)p; }
__attribute__((noinline)) static void use_1(char *p) { *(volatile char *)p = 'x'; }
static void *other(void *arg) {
  while (!atomic_load_explicit(&history_done, memory_order_acquire)) usleep(1000);
  while (!__atomic_load_n(&owner_done, __ATOMIC_RELAXED)) usleep(1000);
  long s = 0;
  NO_UNROLL for (int g = 0; g < GRANULES; g++) s += use_0(&in[8 * g + 5]);
  NO_UNROLL for (int g = 0; g < GRANULES; g++) use_1(&out[8 * g + 6]);
  *(long *)arg = s;
  return 0;
}

int main(void) {
  char src[sizeof in], got[sizeof out];
  for (size_t i = 0; i < sizeof src; i++) src[i] = 'a' + (char)(i % 26);
  if (pipe(p_in) || pipe(p_out) || write(p_in[1], src, sizeof src) != (ssize_t)sizeof src)
    return 1;
  long seen = 0;
  pthread_t a, b;
  pthread_create(&a, 0, owner, 0);
  pthread_create(&b, 0, other, &seen);
  pthread_join(a, 0);
  pthread_join(b, 0);
  if (read(p_out[0], got, sizeof got) != (ssize_t)sizeof got) return 1;
  long want = 0;
  for (int g = 0; g < GRANULES; g++) want += src[8 * g + 5];
  printf("history %d\n", seen == want && sum > 0);
  return 0;
}
