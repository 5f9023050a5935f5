/* threadpool.c: a thread pool with a mutex/condition-variable task queue.
 *
 * Four workers take heap-allocated tasks from a FIFO protected by one mutex
 * (condition variable "not empty"); the main thread submits `size` small
 * tasks in batches and waits on a second condition variable until every task
 * of the batch is done.  Each task mixes a seed for a few hundred rounds and
 * stores the result in its own slot.  The main thread recomputes every 13th
 * result and prints a checksum.
 *
 * usage: threadpool [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NWORKERS 4
#define BATCH 512
#define ROUNDS 300

typedef struct task {
  struct task *next;
  long index;
  uint64_t seed;
} task;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static pthread_cond_t all_done = PTHREAD_COND_INITIALIZER;
static task *head, *tail;
static long pending;  /* submitted and not yet finished, under lock */
static int shutting_down;
static uint64_t *results;

__attribute__((noinline)) static uint64_t work(uint64_t s) {
  for (int i = 0; i < ROUNDS; i++) {
    s ^= s >> 33;
    s *= 0xff51afd7ed558ccdull;
    s ^= s >> 29;
    s += (uint64_t)i;
  }
  return s;
}

static void submit(long index, uint64_t seed) {
  task *t = malloc(sizeof *t);
  if (!t) exit(2);
  t->next = NULL;
  t->index = index;
  t->seed = seed;
  pthread_mutex_lock(&lock);
  if (tail)
    tail->next = t;
  else
    head = t;
  tail = t;
  pending++;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&lock);
}

static task *take(void) {
  pthread_mutex_lock(&lock);
  while (!head && !shutting_down) pthread_cond_wait(&not_empty, &lock);
  task *t = head;
  if (t) {
    head = t->next;
    if (!head) tail = NULL;
  }
  pthread_mutex_unlock(&lock);
  return t;
}

static void finish(void) {
  pthread_mutex_lock(&lock);
  if (--pending == 0) pthread_cond_signal(&all_done);
  pthread_mutex_unlock(&lock);
}

static void *worker(void *arg) {
  (void)arg;
  task *t;
  while ((t = take())) {
    results[t->index] = work(t->seed);
    free(t);
    finish();
  }
  return NULL;
}

static void wait_all(void) {
  pthread_mutex_lock(&lock);
  while (pending) pthread_cond_wait(&all_done, &lock);
  pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv) {
  long size = argc > 1 ? atol(argv[1]) : 1000000;
  if (size < 1) return 2;
  results = calloc((size_t)size, sizeof *results);
  if (!results) return 2;
  pthread_t th[NWORKERS];
  for (int i = 0; i < NWORKERS; i++) pthread_create(&th[i], NULL, worker, NULL);
  for (long i = 0; i < size; i += BATCH) {
    for (long j = i; j < size && j < i + BATCH; j++) submit(j, (uint64_t)j * 0x9e3779b97f4a7c15ull + 1);
    wait_all();
  }
  pthread_mutex_lock(&lock);
  shutting_down = 1;
  pthread_cond_broadcast(&not_empty);
  pthread_mutex_unlock(&lock);
  for (int i = 0; i < NWORKERS; i++) pthread_join(th[i], NULL);
  uint64_t sum = 0;
  long bad = 0;
  for (long i = 0; i < size; i++) {
    sum = sum * 31 + results[i];
    if (i % 13 == 0 && results[i] != work((uint64_t)i * 0x9e3779b97f4a7c15ull + 1)) bad++;
  }
  printf("threadpool size %ld checksum %016llx\n", size, (unsigned long long)sum);
  free(results);
  if (bad) {
    fprintf(stderr, "threadpool: %ld wrong results\n", bad);
    return 1;
  }
  return 0;
}
