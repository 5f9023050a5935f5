/* signal_after_sync_free.c: a signal is handled at once after the memory
 * of a synchronisation object was freed.  Freeing a block forgets the
 * detector's objects in it (a mutex's clock), and that took the object's
 * lock to wait for its last user but never let go of it in the thread's
 * count of runtime locks held: from then on the thread looked as if it
 * held one, and every asynchronous signal it got was deferred until it
 * held none, which never came (a raise() whose handler did not run before
 * raise returned; a program's SIGALRM or SIGINT handler never run).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: handled 2 of 2
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

static volatile sig_atomic_t handled;
static void on_usr2(int sig) {
  (void)sig;
  handled++;
}

int main(void) {
  signal(SIGUSR2, on_usr2);
  pthread_mutex_t *m = malloc(sizeof *m);
  pthread_mutex_init(m, 0);
  pthread_mutex_lock(m); /* the detector's object for m */
  pthread_mutex_unlock(m);
  pthread_mutex_destroy(m);
  raise(SIGUSR2);
  pthread_mutex_init(m, 0); /* again, and forgotten by free this time */
  pthread_mutex_lock(m);
  pthread_mutex_unlock(m);
  free(m);
  raise(SIGUSR2);
  printf("handled %d of 2\n", (int)handled);
  return handled == 2 ? 0 : 1;
}
