/* fork_threads.c: fork() while two threads churn through malloc, a mutex and
 * atomics.  The runtime must not hand the child a lock another thread held
 * (200 forks would hang), and the child, which sees a snapshot where all
 * earlier accesses are complete, must not report races against them.
 *
 * EXPECT: clean
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
static atomic_int stop;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long shared;
__attribute__((noinline)) void churn(void) {
  void *p = malloc(64); pthread_mutex_lock(&mu); shared++; pthread_mutex_unlock(&mu); free(p);
}
void *busy(void *a) { while (!atomic_load(&stop)) churn(); return a; }
int main(void) {
  pthread_t t[2];
  for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, busy, 0);
  for (int k = 0; k < 200; k++) {
    pid_t p = fork();
    if (p == 0) {
      /* only what the runtime locks internally: heap, shadow, sync objects */
      static pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;
      void *q = malloc(10); pthread_mutex_lock(&fresh); shared += 2; pthread_mutex_unlock(&fresh);
      atomic_fetch_add(&stop, 0); free(q); _exit(0);
    }
    int st; waitpid(p, &st, 0);
    if (!WIFEXITED(st)) { printf("child %d failed\n", k); return 1; }
  }
  atomic_store(&stop, 1);
  for (int i = 0; i < 2; i++) pthread_join(t[i], 0);
  puts("ok");
  return 0;
}
