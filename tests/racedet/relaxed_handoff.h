/* relaxed_handoff.h: the two threads of a race in a known order.  The
 * writer runs writer_work() and then sets a relaxed flag, which orders
 * nothing; the reader waits for the flag and runs reader_work().  What
 * both touch races, the writer's access being the previous one.  A test
 * defines writer_work and reader_work (noinline, so they are frames of
 * their own) and includes this after them.  It may define HANDOFF_BEFORE
 * and HANDOFF_AFTER as functions that main calls before it starts the two
 * threads and after it joined them. */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

static atomic_int ready, reader_up;

/* The writer waits until the reader runs: starting a thread maps its stack
 * and the runtime's state for it, and mmap_sync_gone.c's writer unmaps a
 * page and maps it again at the same address, which a thread started in
 * between could take (seen once in a CI run: "the address was taken in
 * between"). */
static void *writer(void *arg) {
  (void)arg;
  while (!atomic_load_explicit(&reader_up, memory_order_relaxed)) sched_yield();
  writer_work();
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
  return 0;
}

static void *reader(void *arg) {
  (void)arg;
  atomic_store_explicit(&reader_up, 1, memory_order_relaxed);
  while (!atomic_load_explicit(&ready, memory_order_relaxed)) sched_yield();
  return (void *)(long)reader_work();
}

int main(void) {
#ifdef HANDOFF_BEFORE
  HANDOFF_BEFORE();
#endif
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r, 0);
#ifdef HANDOFF_AFTER
  HANDOFF_AFTER();
#endif
  return 0;
}
