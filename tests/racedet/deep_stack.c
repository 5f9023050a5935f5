/* deep_stack.c: a race at the bottom of a recursion 1,300,000 calls deep.
 * A thread's frame stack starts with room for 2^20 frames and grows as the
 * recursion passes that (encoder/thread.c); the call hook's fast path does
 * not check its size, which the slow path guarantees for the next 256 calls
 * at each sample (encoder/encoder.c).  The recursion must survive the
 * growth, and the context of the write at the bottom must still decode:
 * the innermost frames of its stack are the recursion's.
 *
 * EXPECT: race
 * EXPECT-CURRENT: bottom deep deep deep
 * EXPECT-PREVIOUS: main_write main
 * EXPECT-STDOUT: depth 1300000
 */
#include <pthread.h>
#include <stdio.h>

#define DEPTH 1300000u

int shared;

__attribute__((noinline)) static void bottom(void) { shared = 1; }

__attribute__((noinline)) static unsigned deep(unsigned n) {
  if (n == 0) {
    bottom();
    return 0;
  }
  return deep(n - 1) + 1; /* not a tail call: each level keeps its frame */
}

unsigned warmed; /* (a function that touches no memory gets no call hooks) */
__attribute__((noinline)) static unsigned warm(unsigned i) { return warmed += i; }

static void *body(void *arg) {
  (void)arg;
  /* a hundred calls first, each returning at once: they move the samples
   * (every 256th call) off the depths where the stack is exactly full, so
   * that the fast path must have been given its room ahead */
  for (unsigned i = 0; i < 100; i++) warm(i);
  if (warmed != 4950) return NULL;
  printf("depth %u\n", deep(DEPTH));
  return NULL;
}

__attribute__((noinline)) static void main_write(void) { shared = 2; }

int main(void) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, (size_t)1 << 30); /* ~100 bytes a level */
  pthread_t th;
  if (pthread_create(&th, &attr, body, NULL)) return 1;
  main_write();
  pthread_join(th, NULL);
  return 0;
}
