/* aload_object_gone.c: a thread's memory of an atomic's object (racedet/
 * access.c, rd_aload) must not outlive the object.  A block holds a flag
 * and data.  Writer 1 writes the data and releases the flag; the reader
 * acquires it (and so remembers the object at its version) and reads the
 * data.  Main frees the block and allocates one of the same size, which is
 * the same memory (asserted), and clears its flag with a plain store (no
 * object).  Writer 2, made before the free so that no new runtime object
 * takes the freed one's memory first, writes the new block's data and
 * releases its flag: a new object at the same address, very likely in the
 * old one's memory and at the same version.  The reader's acquire must
 * join writer 2's clock, so its read of the data is no race.  A runtime
 * that trusted the remembered object by address and version (no uid)
 * would take the new object for the old one and report that read.
 *
 * EXPECT: clean
 * EXPECT-STDOUT: aload_object_gone 3
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct box {
  atomic_int flag;
  long data;
};

static struct box *box;
static pthread_barrier_t phase;
static long sum;

static void *writer1(void *arg) {
  (void)arg;
  box->data = 1;
  atomic_store_explicit(&box->flag, 1, memory_order_release);
  return NULL;
}

static void *writer2(void *arg) {
  (void)arg;
  pthread_barrier_wait(&phase); /* phase 1 done */
  pthread_barrier_wait(&phase); /* the new block is there */
  box->data = 2;
  atomic_store_explicit(&box->flag, 1, memory_order_release);
  return NULL;
}

static void *reader(void *arg) {
  (void)arg;
  while (atomic_load_explicit(&box->flag, memory_order_acquire) != 1) {
  }
  sum = box->data;
  pthread_barrier_wait(&phase);
  pthread_barrier_wait(&phase);
  while (atomic_load_explicit(&box->flag, memory_order_acquire) != 1) {
  }
  sum += box->data;
  return NULL;
}

int main(void) {
  box = calloc(1, sizeof *box);
  pthread_barrier_init(&phase, NULL, 3);
  pthread_t w1, w2, r;
  pthread_create(&r, NULL, reader, NULL);
  pthread_create(&w1, NULL, writer1, NULL);
  pthread_create(&w2, NULL, writer2, NULL);
  pthread_join(w1, NULL);
  pthread_barrier_wait(&phase);
  struct box *old = box;
  free(old);
  struct box *again = malloc(sizeof *again);
  if (again != old) {
    fprintf(stderr, "aload_object_gone: the block was not reused\n");
    return 2;
  }
  again->data = 0;
  *(int *)&again->flag = 0; /* plain: no object yet */
  box = again;
  pthread_barrier_wait(&phase);
  pthread_join(w2, NULL);
  pthread_join(r, NULL);
  printf("aload_object_gone %ld\n", sum);
  free(box);
  return 0;
}
