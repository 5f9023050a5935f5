/* stack_reuse.c: glibc hands a joined thread's cached stack (and static TLS)
 * to a later thread that has no happens-before with the first.  The new
 * thread's writes to its own fresh frames are not races: the runtime resets
 * the shadow of a thread's stack when it starts.  (Found by the random
 * program generator, tests/gen.)
 *
 * EXPECT: clean
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

typedef struct Ctx { unsigned fuel, acc; } Ctx;
__attribute__((noinline)) static unsigned work(Ctx *c) { return c->fuel++ + c->acc; }

static void *body(void *arg) {
  Ctx c = {(unsigned)(unsigned long)arg, 0}; /* on this thread's stack */
  work(&c);
  fprintf(stderr, "thread %lu: &c = %p\n", (unsigned long)arg, (void *)&c);
  return NULL;
}

static void *q(void *arg) {
  usleep(200 * 1000);                          /* until P has been joined */
  pthread_t b;
  pthread_create(&b, NULL, body, (void *)2);   /* B: gets P's cached stack */
  pthread_join(b, NULL);
  return NULL;
}

int main(void) {
  pthread_t tq, tp;
  pthread_create(&tq, NULL, q, NULL);
  pthread_create(&tp, NULL, body, (void *)1);  /* P */
  pthread_join(tp, NULL);                      /* P's stack -> glibc's stack cache */
  pthread_join(tq, NULL);
  printf("done\n");
  return 0;
}
