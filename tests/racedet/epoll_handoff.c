/* epoll_handoff.c: an event loop's hand-over of an object through epoll.
 * main fills a connection object and registers a ready eventfd with the
 * object's address in the event's data (epoll_ctl); the worker, already
 * waiting in epoll_wait, gets the address back and reads the object.  The
 * registration comes before the wait's return (as ThreadSanitizer models
 * it): no report.  Then the one race: main writes the object's counter
 * again after the hand-over, unordered with the worker's read of it.
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump main|worker
 * EXPECT-PREVIOUS: serve worker|main
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct conn {
  int id;
  char name[32];
  long counter;
} conn;

static int ep;
static atomic_int waiting, served;
static long got;

__attribute__((noinline)) static void serve(conn *c) {
  got = c->id + c->name[0] + c->counter; /* fields written before epoll_ctl */
}
__attribute__((noinline)) static void bump(conn *c) { c->counter++; }

static void *worker(void *arg) {
  (void)arg;
  struct epoll_event ev;
  atomic_store_explicit(&waiting, 1, memory_order_relaxed);
  int n;
  while ((n = epoll_wait(ep, &ev, 1, 10000)) == 0) {
  }
  if (n != 1) exit(2);
  serve(ev.data.ptr);
  atomic_store_explicit(&served, 1, memory_order_relaxed);
  return NULL;
}

int main(void) {
  ep = epoll_create1(0);
  int efd = eventfd(1, 0); /* readable at once */
  if (ep < 0 || efd < 0) return 2;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  while (!atomic_load_explicit(&waiting, memory_order_relaxed)) sched_yield();
  conn *c = malloc(sizeof *c);
  c->id = 7;
  snprintf(c->name, sizeof c->name, "conn-%d", c->id);
  c->counter = 1;
  struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
  if (epoll_ctl(ep, EPOLL_CTL_ADD, efd, &ev)) return 2;
  while (!atomic_load_explicit(&served, memory_order_relaxed)) sched_yield();
  bump(c); /* after the hand-over, unordered with serve's read */
  pthread_join(t, NULL);
  printf("%ld\n", got);
  free(c);
  close(efd);
  close(ep);
  return 0;
}
