/* signal_clean.c: signal handlers that are not reported.
 *  - an asynchronous SIGUSR1 (from another thread) whose handler changes
 *    errno but puts it back, and writes with write(2) (async-signal-safe);
 *  - a SIGUSR2 the thread raises itself (raise, pthread_kill of itself),
 *    whose handler leaves errno changed: the raising call's errno is
 *    meaningless after it succeeds;
 *  - a SIGTERM from another thread whose handler leaves errno changed
 *    (handlers that re-raise it do);
 *  - a synchronous SIGSEGV (a read of a PROT_NONE page) whose handler
 *    changes errno and leaves with siglongjmp, on an alternate signal
 *    stack; then malloc and free, which are no longer inside a handler;
 *  - a synchronous SIGSEGV whose handler makes the page readable, changes
 *    errno and returns (the read is made again, and succeeds);
 *  - a SIGUSR1 handler on the thread's own stack that leaves with
 *    siglongjmp, then malloc and free.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: clean 7
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int got; /* atomic: other threads read it */
static sigjmp_buf back;
static volatile int jump_out;

static void on_usr1(int sig) {
  (void)sig;
  const int saved = errno;
  (void)write(-1, "x", 1); /* EBADF */
  errno = saved;
  if (jump_out) siglongjmp(back, 1);
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}
static void on_usr2(int sig) {
  (void)sig;
  close(-1);
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}
static void on_term(int sig) {
  (void)sig;
  close(-1);
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}
static char *page;
static volatile int fix_page;
static void on_segv(int sig) {
  (void)sig;
  close(-1);
  if (fix_page) {
    mprotect(page, 4096, PROT_READ);
    return;
  }
  siglongjmp(back, 1);
}

static void wait_got(int n) {
  while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) < n) usleep(1000);
}

static void *sender(void *arg) {
  pthread_t to = *(pthread_t *)arg;
  pthread_kill(to, SIGUSR1);
  wait_got(1);
  pthread_kill(to, SIGTERM);
  wait_got(2);
  return 0;
}

__attribute__((noinline)) static void allocate_after(void) {
  char *volatile p = malloc(100);
  free(p);
}

int main(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_usr1;
  sigaction(SIGUSR1, &sa, 0);
  sa.sa_handler = on_usr2;
  sigaction(SIGUSR2, &sa, 0);
  sa.sa_handler = on_term;
  sigaction(SIGTERM, &sa, 0);
  sa.sa_handler = on_segv;
  sa.sa_flags = SA_ONSTACK;
  sigaction(SIGSEGV, &sa, 0);

  pthread_t self = pthread_self(), t;
  pthread_create(&t, 0, sender, &self);
  wait_got(2); /* SIGUSR1, SIGTERM */
  pthread_join(t, 0);

  raise(SIGUSR2);
  pthread_kill(pthread_self(), SIGUSR2);
  wait_got(4);

  static char alt[1 << 16];
  stack_t ss = {.ss_sp = alt, .ss_size = sizeof alt};
  sigaltstack(&ss, 0);
  page = mmap(0, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!sigsetjmp(back, 1)) {
    (void)*(volatile char *)page;
    puts("no fault");
    return 1;
  }
  allocate_after();
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);

  fix_page = 1;
  errno = 0;
  if (*(volatile char *)page == 0) __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);

  jump_out = 1;
  if (!sigsetjmp(back, 1)) {
    raise(SIGUSR1);
    puts("no jump");
    return 1;
  }
  allocate_after();
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
  printf("clean %d\n", __atomic_load_n(&got, __ATOMIC_ACQUIRE));
  return 0;
}
