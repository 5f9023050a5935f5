/* fiber_thread_exit.c: a thread that ends while it runs a fiber.  The
 * worker makes a fiber and switches to it (synchronising); the fiber
 * writes data and ends the thread with pthread_exit, never switching back.
 * main joins the worker and reads data: the thread's end comes after
 * everything it ran, its fiber's code included, so nothing may be
 * reported.  (Had the end released only the worker's own state, whose clock
 * never took the fiber's, the read would be reported as racing with the
 * fiber's write.)
 *
 * EXPECT: clean
 * EXPECT-STDOUT: 42
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

void *__tsan_create_fiber(unsigned flags);
void __tsan_switch_to_fiber(void *fiber, unsigned flags);

#define STACK (64 * 1024)

long data;
static ucontext_t worker_uc, fiber_uc;

__attribute__((noinline)) static void fiber_body(void) {
  data = 42;
  pthread_exit(NULL);
}

static void *worker(void *arg) {
  (void)arg;
  void *f = __tsan_create_fiber(0);
  getcontext(&fiber_uc);
  fiber_uc.uc_stack.ss_sp = malloc(STACK);
  fiber_uc.uc_stack.ss_size = STACK;
  fiber_uc.uc_link = 0;
  makecontext(&fiber_uc, fiber_body, 0);
  __tsan_switch_to_fiber(f, 0);
  swapcontext(&worker_uc, &fiber_uc);
  abort(); /* never back */
}

int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  printf("%ld\n", data);
  return 0;
}
