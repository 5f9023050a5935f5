/* join_key_reuse_leak.c: as join_key_reuse.c, but Q never joins C, a leak.
 *
 * C gets X's stack and pthread_t while main is still inside its join of X
 * (shims/join_delay.c holds it there), and ends unjoined.  Regression: the
 * leak table was keyed by pthread_t, and main's late bookkeeping of X's
 * join removed C's entry, so the leak went unreported.
 *
 * EXPECT: thread-leak
 * EXPECT-COUNT: 1
 * EXPECT-CREATION: q_body main
 * EXPECT-STDOUT: same-pthread_t 1
 * EXPECT-PRELOAD: shims/join_delay.c
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static pthread_t x_id;

static void *x_body(void *p) { return p; }
static void *c_body(void *p) { return p; }

static void *q_body(void *p) {
  (void)p;
  usleep(100 * 1000); /* main is inside its join of X by now */
  pthread_t c;
  pthread_create(&c, NULL, c_body, NULL);
  usleep(50 * 1000); /* C has ended */
  printf("same-pthread_t %d\n", pthread_equal(c, x_id) != 0);
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
