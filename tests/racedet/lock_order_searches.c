/* lock_order_searches.c: locks always taken in one order make the
 * lock-order graph search for no cycle (racedet/deadlock.c: an edge or
 * instance added while every edge goes up the nodes' order cannot close
 * one).  The runtime's statistics at exit count the edges made, those
 * made against the order, and the searches run; here all are taken in one
 * order, each way the order grows:
 *  - two threads walk 300 mutexes hand over hand, one after the other (a
 *    new lock wanted under an old one goes on top; the second thread adds
 *    instances to the first one's edges);
 *  - 100 new objects' locks, each taken before a global lock that is in
 *    the graph already (a new lock as an edge's `from` goes at the
 *    bottom);
 *  - X then Y, V then W, then W then Y: both are there and Y is below W,
 *    but nothing was taken under Y, so Y moves to the top.
 * (Checked: with a new `from` put on top, 100 of the edges went against
 * the order and 100 searches ran; with no move to the top, 1 and 1; with
 * every new instance searching, as before 2026-12-02, 702 searches.)
 *
 * EXPECT: clean
 * EXPECT-OPTIONS: --stats=1
 * EXPECT-STDERR: lock-order edges 403 (against the order 0), searches 0
 * EXPECT-STDOUT: done 89804
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define N 300
#define OBJECTS 100
static pthread_mutex_t chain[N], global = PTHREAD_MUTEX_INITIALIZER, first = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t X = PTHREAD_MUTEX_INITIALIZER, Y = PTHREAD_MUTEX_INITIALIZER,
                       V = PTHREAD_MUTEX_INITIALIZER, W = PTHREAD_MUTEX_INITIALIZER;
static long done;

static void *walk(void *arg) {
  pthread_mutex_lock(&chain[0]);
  for (int i = 1; i < N; i++) {
    pthread_mutex_lock(&chain[i]);
    done += i;
    pthread_mutex_unlock(&chain[i - 1]);
  }
  pthread_mutex_unlock(&chain[N - 1]);
  return arg;
}

static void two(pthread_mutex_t *a, pthread_mutex_t *b) {
  pthread_mutex_lock(a);
  pthread_mutex_lock(b);
  done++;
  pthread_mutex_unlock(b);
  pthread_mutex_unlock(a);
}

int main(void) {
  for (int i = 0; i < N; i++) pthread_mutex_init(&chain[i], 0);
  for (int k = 0; k < 2; k++) {
    pthread_t t;
    pthread_create(&t, 0, walk, 0);
    pthread_join(t, 0);
  }
  two(&first, &global); /* (the global lock in the graph) */
  for (int i = 0; i < OBJECTS; i++) {
    pthread_mutex_t *m = malloc(sizeof *m);
    if (!m) return 1;
    pthread_mutex_init(m, 0);
    two(m, &global);
    pthread_mutex_destroy(m);
    free(m);
  }
  two(&X, &Y);
  two(&V, &W);
  two(&W, &Y);
  printf("done %ld\n", done);
  return 0;
}
