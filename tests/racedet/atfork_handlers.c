/* atfork_handlers.c: pthread_atfork handlers are the program's code,
 * instrumented: the prepare handler locks a mutex and writes a counter
 * the parent and child handlers update after the fork, as a library that
 * keeps its state consistent across fork does.  They must run outside the
 * runtime's own locks (until encoder/thread.c registered its fork handlers
 * before the program's, every fork here hung).
 *
 * EXPECT: clean
 * EXPECT-STDOUT: forks 3 parent 3 child status 0
 */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int forks, parents, children;

static void prepare(void) {
  pthread_mutex_lock(&state_lock);
  forks++;
}
static void parent(void) {
  parents++;
  pthread_mutex_unlock(&state_lock);
}
static void child(void) {
  children++;
  pthread_mutex_unlock(&state_lock);
}

static void *worker(void *arg) {
  pthread_mutex_lock(&state_lock);
  pthread_mutex_unlock(&state_lock);
  return arg;
}

int main(void) {
  pthread_atfork(prepare, parent, child);
  int status = 0;
  for (int i = 0; i < 3; i++) {
    pthread_t t;
    pthread_create(&t, 0, worker, 0);
    pid_t p = fork();
    if (p == 0) _exit(children == 1 && forks == i + 1 ? 0 : 1);
    int st = 1;
    waitpid(p, &st, 0);
    status |= WEXITSTATUS(st);
    pthread_join(t, 0);
  }
  printf("forks %d parent %d child status %d\n", forks, parents, status);
  return 0;
}
