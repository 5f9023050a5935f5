/* many_threads.c: 5,000 threads in batches of 500, all synchronised by a
 * mutex and by join (the increments of `racy` in threads 1500 and 2500 are
 * ordered by the joins between their batches).  Must report nothing, and
 * per-thread memory must not pile up (clocks are freed when no longer needed).
 *
 * EXPECT: clean
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long total; int racy;
__attribute__((noinline)) void work(long i) { pthread_mutex_lock(&mu); total += i; pthread_mutex_unlock(&mu); }
void *w(void *p) { work((long)p); if ((long)p == 1500) racy++; return 0; }
void *w2(void *p) { if ((long)p == 2500) racy++; return w(p); }
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5000, batch = 500;
  pthread_t *t = malloc(sizeof *t * batch);
  for (int base = 0; base < n; base += batch) {
    for (int i = 0; i < batch; i++) pthread_create(&t[i], 0, (base + i) % 2 ? w : w2, (void *)(long)(base + i));
    for (int i = 0; i < batch; i++) pthread_join(t[i], 0);
  }
  printf("%ld\n", total);
  return 0;
}
