/* object_lifetime.c: one thread initialises a rwlock, another takes it
 * after seeing a relaxed flag, which orders nothing: the lock's read of its
 * own memory races with the initialisation's write (a lock cannot order its
 * own creation).  The synchronisation objects' memory is modelled as
 * ThreadSanitizer does (racedet/intercept_pthread.c); clean_primitives.c is
 * the same objects with their lifetimes ordered, and reports nothing.
 *
 * EXPECT: race
 * EXPECT-CURRENT: use_table reader_thread
 * EXPECT-PREVIOUS: create_table main
 * EXPECT-LOCATION: global table_lock
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

pthread_rwlock_t table_lock;
static int table[4];
static atomic_int ready;

__attribute__((noinline)) void create_table(void) {
  pthread_rwlock_init(&table_lock, 0);
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
}
__attribute__((noinline)) int use_table(void) {
  pthread_rwlock_rdlock(&table_lock);
  int v = table[1];
  pthread_rwlock_unlock(&table_lock);
  return v;
}
void *reader_thread(void *a) {
  while (!atomic_load_explicit(&ready, memory_order_relaxed)) sched_yield();
  printf("value %d\n", use_table());
  return a;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, 0, reader_thread, 0);
  create_table();
  pthread_join(t, 0);
  pthread_rwlock_destroy(&table_lock);
  return 0;
}
