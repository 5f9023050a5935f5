/* many_mutexes.c: a mutex per object, as a table with a lock per entry
 * has: every access holds a different mutex, so every one makes a held set
 * of its own, and a lock taken hand over hand makes a set of two per pair.
 * Such sets took 136 bytes each (room for 16 mutexes), each lock-order
 * edge 512 (room for 6 ways it was taken), and each lock's creation site
 * an entry of a global table: 100,000 objects, each locked by two threads
 * one at a time and then hand over hand, grew the resident set by 1,045
 * bytes per object (clang TSan: 532).  Sets of one or two mutexes now take
 * 16 bytes, an edge 128 with its first way (and with more, a block for 2,
 * 4 or 6 of 128 or 256), and creation sites live in the lock's sync
 * object: 568 bytes.
 *
 * The resident set may grow by at most 700 bytes per object over the two
 * walks.  Then a race on a counter between a thread holding two of the
 * mutexes and one holding three: the report names both sets (the two
 * tables of sets) and every mutex's creation (pthread_mutex_init in
 * make_objects, read without a lock from the locks' sync objects).
 *
 * EXPECT: race
 * EXPECT-CURRENT: bump_two|bump_three
 * EXPECT-PREVIOUS: bump_two|bump_three
 * EXPECT-MUTEXES: 2 3
 * EXPECT-MUTEX-CREATION: make_objects
 * EXPECT-STDOUT: memory ok
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "rss.h"

#define N 100000
#define PER_OBJECT 700 /* bytes */

typedef struct object {
  pthread_mutex_t m;
  long v;
} object;
static object *objs;
static long counter;

__attribute__((noinline)) static void make_objects(void) {
  objs = malloc(N * sizeof *objs);
  for (int i = 0; i < N; i++) {
    pthread_mutex_init(&objs[i].m, 0);
    objs[i].v = 0;
  }
}

static void *each(void *arg) {
  (void)arg;
  for (int i = 0; i < N; i++) {
    pthread_mutex_lock(&objs[i].m);
    objs[i].v++;
    pthread_mutex_unlock(&objs[i].m);
  }
  pthread_mutex_lock(&objs[0].m); /* hand over hand */
  for (int i = 1; i < N; i++) {
    pthread_mutex_lock(&objs[i].m);
    objs[i].v += objs[i - 1].v & 1;
    pthread_mutex_unlock(&objs[i - 1].m);
  }
  pthread_mutex_unlock(&objs[N - 1].m);
  return 0;
}

__attribute__((noinline)) static void bump_two(void) {
  pthread_mutex_lock(&objs[5].m);
  pthread_mutex_lock(&objs[6].m);
  counter++;
  pthread_mutex_unlock(&objs[6].m);
  pthread_mutex_unlock(&objs[5].m);
}
__attribute__((noinline)) static void bump_three(void) {
  pthread_mutex_lock(&objs[7].m);
  pthread_mutex_lock(&objs[8].m);
  pthread_mutex_lock(&objs[9].m);
  counter++;
  pthread_mutex_unlock(&objs[9].m);
  pthread_mutex_unlock(&objs[8].m);
  pthread_mutex_unlock(&objs[7].m);
}
static void *two(void *arg) {
  bump_two();
  return arg;
}
static void *three(void *arg) {
  bump_three();
  return arg;
}

int main(void) {
  make_objects();
  const long before = rss_kb();
  pthread_t a, b;
  pthread_create(&a, 0, each, 0);
  pthread_create(&b, 0, each, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  const long grown = rss_kb() - before;
  if (grown * 1024 > (long)N * PER_OBJECT) {
    printf("the resident set grew by %ld bytes per object\n", grown * 1024 / N);
    return 1;
  }
  printf("memory ok\n");
  pthread_create(&a, 0, two, 0);
  pthread_create(&b, 0, three, 0);
  pthread_join(a, 0);
  pthread_join(b, 0);
  for (int i = 0; i < N; i++) pthread_mutex_destroy(&objs[i].m);
  free(objs);
  printf("%ld\n", counter);
  return 0;
}
