/* join_key_reuse.c: a thread's pthread_t is reused at once after its join,
 * and the join of the next thread there must still order that thread.
 *
 * main joins X; glibc puts X's stack, and with it the address that is X's
 * pthread_t, back in its cache when the real join returns.  The shim
 * (shims/join_delay.c) holds main there for 300 ms, in the window where the
 * runtime has not yet finished its own part of the join.  Meanwhile Q
 * creates C, which gets X's stack and so X's pthread_t, C writes its result
 * and ends, and Q joins C and reads the result: ordered by the join.
 *
 * Regression: the end of a thread was released into an object keyed by its
 * pthread_t, and main's late cleanup of X's object threw away C's release,
 * so Q's join ordered nothing and Q's read was reported as racing with C's
 * write (seen about once in a few hundred runs of tests/gen's programs; 3 of
 * 3 runs with the shim).  The program prints whether C really got X's
 * pthread_t: without that, it would test nothing.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: result 42 same-pthread_t 1
 * EXPECT-PRELOAD: shims/join_delay.c
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

typedef struct Job { unsigned result; } Job;
static pthread_t x_id;

static void *x_body(void *p) { return p; }
static void *c_body(void *p) {
  ((Job *)p)->result = 42;
  return NULL;
}

static void *q_body(void *p) {
  (void)p;
  usleep(100 * 1000); /* main is inside its join of X by now */
  Job job = {0};
  pthread_t c;
  pthread_create(&c, NULL, c_body, &job);
  pthread_join(c, NULL);
  printf("result %u same-pthread_t %d\n", job.result, pthread_equal(c, x_id) != 0);
  return NULL;
}

int main(void) {
  pthread_t q;
  pthread_create(&q, NULL, q_body, NULL);
  pthread_create(&x_id, NULL, x_body, NULL);
  pthread_join(x_id, NULL);
  pthread_join(q, NULL);
  return 0;
}
