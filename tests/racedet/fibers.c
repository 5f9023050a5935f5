/* fibers.c: coroutines (ucontext) told to the runtime through
 * ThreadSanitizer's fiber interface, as coroutine libraries do.
 *
 * 1. Churn: 9,000 fibers, more than there are thread slots (8,192), each
 *    created, entered and left with synchronising switches, and destroyed:
 *    a destroyed fiber's slot must come back, or the fibers made later are
 *    not checked at all (and the race below is missed).
 * 2. Synchronised: main writes shared_ok, switches to a fiber that reads
 *    and writes it and switches back, then main reads it: the switches
 *    order everything, no report.
 * 3. The race: main makes a fiber, writes shared, switches to it without
 *    synchronisation (__tsan_switch_to_fiber_no_sync); the fiber reads
 *    shared: a race between the two, reported with the fiber's own calling
 *    context (its entry function, not main's frames under it) and the
 *    fiber's creation in main, under the name the fiber was given.
 *
 * EXPECT: race
 * EXPECT-CURRENT: fiber_read fiber_racy
 * EXPECT-PREVIOUS: main_write run_racy main
 * EXPECT-ABSENT: churn_body ordered_body
 * EXPECT-CREATION: run_racy
 * EXPECT-NAMES: racy-fiber main
 * EXPECT-LOCATION: global shared
 * EXPECT-COUNT: 1
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

void *__tsan_get_current_fiber(void);
void *__tsan_create_fiber(unsigned flags);
void __tsan_destroy_fiber(void *fiber);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);
void __tsan_set_fiber_name(void *fiber, const char *name);
#define NO_SYNC 1u

#define CHURN 9000
#define STACK (64 * 1024)

long shared, shared_ok, sink, churned[CHURN];
static ucontext_t main_uc, fiber_uc;
static void *main_fiber, *fiber;
static int churn_i;

/* leave the running fiber for main */
static void back_to_main(unsigned flags) {
  __tsan_switch_to_fiber(main_fiber, flags);
  swapcontext(&fiber_uc, &main_uc);
}

/* run the fiber (made with entry) until it switches back */
static void enter(void *f, void (*entry)(void), char *stack, unsigned flags) {
  getcontext(&fiber_uc);
  fiber_uc.uc_stack.ss_sp = stack;
  fiber_uc.uc_stack.ss_size = STACK;
  fiber_uc.uc_link = 0;
  makecontext(&fiber_uc, entry, 0);
  __tsan_switch_to_fiber(f, flags);
  swapcontext(&main_uc, &fiber_uc);
}

__attribute__((noinline)) static void churn_body(void) {
  churned[churn_i] = churn_i;
  back_to_main(0);
}

__attribute__((noinline)) static void ordered_body(void) {
  shared_ok += 1;
  back_to_main(0);
}

__attribute__((noinline)) static long fiber_read(void) { return shared; }

__attribute__((noinline)) static void fiber_racy(void) {
  if (fiber_read() == 42) abort(); /* (nothing written that main reads) */
  back_to_main(NO_SYNC);
}

__attribute__((noinline)) static void main_write(void) { shared = 1; }

__attribute__((noinline)) static void run_racy(char *stack) {
  fiber = __tsan_create_fiber(0);
  __tsan_set_fiber_name(fiber, "racy-fiber");
  main_write();
  enter(fiber, fiber_racy, stack, NO_SYNC);
  __tsan_destroy_fiber(fiber);
}

int main(void) {
  char *stack = malloc(STACK);
  pthread_setname_np(pthread_self(), "main");
  main_fiber = __tsan_get_current_fiber();
  for (churn_i = 0; churn_i < CHURN; churn_i++) {
    void *f = __tsan_create_fiber(0);
    enter(f, churn_body, stack, 0);
    __tsan_destroy_fiber(f);
  }
  shared_ok = 1;
  void *f = __tsan_create_fiber(0);
  enter(f, ordered_body, stack, 0);
  __tsan_destroy_fiber(f);
  sink += shared_ok;
  run_racy(stack);
  long sum = 0;
  for (int i = 0; i < CHURN; i++) sum += churned[i];
  printf("%ld %ld\n", sink, sum);
  free(stack);
  return 0;
}
