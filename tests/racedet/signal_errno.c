/* signal_errno.c: a SIGUSR2 handler that closes a descriptor and does not
 * put errno back.  The code it interrupts (a loop that reads errno after
 * each failed call) would see the handler's EBADF.  Reported once, with
 * the handler, then where the signal arrived.  Before, the thread left a
 * raise() by siglongjmp from its handler: that raise is over, and the
 * SIGUSR2 from another thread is not taken for one it sent itself.
 *
 * EXPECT: signal-errno
 * EXPECT-COUNT: 1
 * EXPECT-SIGNAL: SIGUSR2
 * EXPECT-ERRNO: 0 9
 * EXPECT-CURRENT: on_usr2 poll_loop main
 * EXPECT-STDOUT: signals 2
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static int got; /* atomic: the sender thread reads it */

static sigjmp_buf back;
static void on_usr1(int sig) {
  (void)sig;
  siglongjmp(back, 1);
}

static void on_usr2(int sig) {
  (void)sig;
  close(-1); /* EBADF */
  __atomic_fetch_add(&got, 1, __ATOMIC_RELEASE);
}

__attribute__((noinline)) static void poll_loop(void) {
  while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) < 2) {
    errno = 0;
    for (volatile int i = 0; i < 10000; i++) {
    }
  }
}

static void *sender(void *arg) {
  pthread_t main_thread = *(pthread_t *)arg;
  for (int i = 0; i < 2; i++) {
    usleep(20000);
    pthread_kill(main_thread, SIGUSR2);
    while (__atomic_load_n(&got, __ATOMIC_ACQUIRE) <= i) usleep(1000);
  }
  return 0;
}

int main(void) {
  signal(SIGUSR1, on_usr1);
  if (!sigsetjmp(back, 1)) raise(SIGUSR1);
  signal(SIGUSR2, on_usr2);
  pthread_t self = pthread_self(), t;
  pthread_create(&t, 0, sender, &self);
  poll_loop();
  pthread_join(t, 0);
  printf("signals %d\n", got);
  return 0;
}
