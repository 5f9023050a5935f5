/* mutex_misuse_destroy.c: a thread destroys a mutex it holds (a cleanup
 * path that forgot its unlock), and an rwlock it read-locked: each is
 * reported with where the thread took it.
 *
 * EXPECT: mutex-misuse
 * EXPECT-MISUSE: destroy-held
 * EXPECT-COUNT: 2
 * EXPECT-CURRENT: close_session
 * EXPECT-HELD: open_session
 * EXPECT-MUTEX-CREATION: open_session
 * EXPECT-STDOUT: closed 2
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct session {
  pthread_mutex_t lock;
  pthread_rwlock_t table;
  int open;
};

__attribute__((noinline)) static struct session *open_session(void) {
  struct session *s = malloc(sizeof *s);
  pthread_mutex_init(&s->lock, 0);
  pthread_rwlock_init(&s->table, 0);
  pthread_mutex_lock(&s->lock);
  pthread_rwlock_rdlock(&s->table);
  s->open = 1;
  return s;
}

__attribute__((noinline)) static int close_session(struct session *s) {
  s->open = 0;
  pthread_rwlock_destroy(&s->table); /* still read-locked */
  pthread_mutex_destroy(&s->lock);   /* still locked */
  free(s);
  return 1;
}

int main(void) {
  int closed = close_session(open_session());
  /* unlocked first: nothing to report */
  struct session *s = open_session();
  pthread_rwlock_unlock(&s->table);
  pthread_mutex_unlock(&s->lock);
  closed += close_session(s);
  printf("closed %d\n", closed);
  return 0;
}
