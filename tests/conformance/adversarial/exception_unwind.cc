/* exception_unwind.cc: the racing access comes right after a C++ exception
 * thrown 200 recursive frames below and caught several frames up, in the
 * handler; on the way up, destructors of instrumented objects run and make
 * calls of their own.  Repeated 50 times.  Thread B writes `catch_state`
 * first; thread A's write in the handler is the current access, and its
 * context must be the handler's, without the unwound frames.
 *
 * EXPECT: race
 * EXPECT-CURRENT: touch_after_catch catcher thread_a
 * EXPECT-PREVIOUS: other_writer thread_b
 * EXPECT-ABSENT: thrower level1 level2 level3 Guard::~Guard note_unwind
 * EXPECT-LOCATION: global catch_state
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

long catch_state;
static int b_wrote;
static volatile unsigned long unwound;

struct Boom {
  int round;
};

__attribute__((noinline)) void note_unwind(int n) { unwound += (unsigned long)n; }

struct Guard {
  int n;
  explicit Guard(int v) : n(v) {}
  ~Guard() { note_unwind(n); }
};

__attribute__((noinline)) void thrower(int n, int round) {
  Guard g(n);
  if (n == 0) throw Boom{round};
  thrower(n - 1, round);
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}
__attribute__((noinline)) void level3(int round) { thrower(200, round); }
__attribute__((noinline)) void level2(int round) {
  Guard g(-1);
  level3(round);
}
__attribute__((noinline)) void level1(int round) { level2(round); }

__attribute__((noinline)) void touch_after_catch(void) { catch_state = 2; }

__attribute__((noinline)) void catcher(void) {
  for (int round = 0; round < 50; round++) {
    try {
      level1(round);
    } catch (const Boom &b) {
      if (b.round == 49) touch_after_catch();
    }
  }
}

void *thread_a(void *arg) {
  while (!__atomic_load_n(&b_wrote, __ATOMIC_RELAXED)) sched_yield();
  catcher();
  return arg;
}

__attribute__((noinline)) void other_writer(void) { catch_state = 1; }

void *thread_b(void *arg) {
  other_writer();
  __atomic_store_n(&b_wrote, 1, __ATOMIC_RELAXED); /* orders nothing */
  return arg;
}

int main() {
  pthread_t a, b;
  pthread_create(&a, 0, thread_a, 0);
  pthread_create(&b, 0, thread_b, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  printf("%ld %lu\n", catch_state, unwound);
  return 0;
}
