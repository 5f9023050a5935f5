/* longjmp_deep.c: the racing access comes right after a longjmp out of 500
 * recursive frames, repeated 100 times.  Thread B writes `jump_state` first;
 * thread A then dives, longjmps back to land(), and writes it: A's access is
 * the current one, and its context must be land's, with none of the frames
 * the longjmp skipped (a detector that misses the longjmp keeps them).
 *
 * EXPECT: race
 * EXPECT-CURRENT: touch_after_jump land thread_a
 * EXPECT-PREVIOUS: other_writer thread_b
 * EXPECT-ABSENT: dive jump_from_bottom
 * EXPECT-LOCATION: global jump_state
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>

long jump_state;
static int b_wrote;
static jmp_buf env;
static volatile unsigned long sink;

__attribute__((noinline)) void jump_from_bottom(int round) { longjmp(env, round + 1); }

__attribute__((noinline)) void dive(int n, int round) {
  if (n == 0) jump_from_bottom(round);
  dive(n - 1, round);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
  sink += (unsigned long)n;
}

__attribute__((noinline)) void touch_after_jump(void) { jump_state = 2; }

__attribute__((noinline)) void land(void) {
  for (volatile int round = 0; round < 100; round++) {
    if (setjmp(env) == 0) dive(500, round);
  }
  touch_after_jump();
}

void *thread_a(void *arg) {
  while (!__atomic_load_n(&b_wrote, __ATOMIC_RELAXED)) sched_yield();
  land();
  return arg;
}

__attribute__((noinline)) void other_writer(void) { jump_state = 1; }

void *thread_b(void *arg) {
  other_writer();
  __atomic_store_n(&b_wrote, 1, __ATOMIC_RELAXED); /* orders nothing */
  return arg;
}

int main(void) {
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%ld\n", jump_state);
  return 0;
}
