/* prodcons.c: producers and consumers over a bounded buffer.
 *
 * Two producers each put `size` items into a 64-slot ring buffer guarded by
 * one mutex and two condition variables (not full, not empty); two consumers
 * take them out, hash each one and accumulate a per-consumer sum and count.
 * The main thread checks that every item was consumed exactly once (count,
 * sum of hashes, sum of values) and prints the totals.
 *
 * usage: prodcons [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NPROD 2
#define NCONS 2
#define CAP 64
#define STOP UINT64_MAX

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t not_full = PTHREAD_COND_INITIALIZER;
static pthread_cond_t not_empty = PTHREAD_COND_INITIALIZER;
static uint64_t ring[CAP];
static unsigned head, count;
static long size;

struct consumer_result {
  uint64_t n, sum, hsum;
};
static struct consumer_result cres[NCONS];

__attribute__((noinline)) static uint64_t hash(uint64_t x) {
  for (int i = 0; i < 8; i++) {
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
  }
  return x;
}

static void put(uint64_t v) {
  pthread_mutex_lock(&lock);
  while (count == CAP) pthread_cond_wait(&not_full, &lock);
  ring[(head + count) % CAP] = v;
  count++;
  pthread_cond_signal(&not_empty);
  pthread_mutex_unlock(&lock);
}

static uint64_t get(void) {
  pthread_mutex_lock(&lock);
  while (count == 0) pthread_cond_wait(&not_empty, &lock);
  uint64_t v = ring[head];
  head = (head + 1) % CAP;
  count--;
  pthread_cond_signal(&not_full);
  pthread_mutex_unlock(&lock);
  return v;
}

static uint64_t item(long p, long i) { return (uint64_t)p * (uint64_t)size + (uint64_t)i; }

static void *producer(void *arg) {
  long p = (long)arg;
  for (long i = 0; i < size; i++) put(item(p, i));
  return NULL;
}

static void *consumer(void *arg) {
  struct consumer_result *r = arg;
  for (;;) {
    uint64_t v = get();
    if (v == STOP) break;
    r->n++;
    r->sum += v;
    r->hsum += hash(v);
  }
  return NULL;
}

int main(int argc, char **argv) {
  size = argc > 1 ? atol(argv[1]) : 400000;
  if (size < 1) return 2;
  pthread_t pt[NPROD], ct[NCONS];
  for (int c = 0; c < NCONS; c++) pthread_create(&ct[c], NULL, consumer, &cres[c]);
  for (long p = 0; p < NPROD; p++) pthread_create(&pt[p], NULL, producer, (void *)p);
  for (int p = 0; p < NPROD; p++) pthread_join(pt[p], NULL);
  for (int c = 0; c < NCONS; c++) put(STOP);
  for (int c = 0; c < NCONS; c++) pthread_join(ct[c], NULL);
  uint64_t n = 0, sum = 0, hsum = 0, want_sum = 0, want_hsum = 0;
  for (int c = 0; c < NCONS; c++) {
    n += cres[c].n;
    sum += cres[c].sum;
    hsum += cres[c].hsum;
  }
  for (long p = 0; p < NPROD; p++)
    for (long i = 0; i < size; i++) {
      want_sum += item(p, i);
      want_hsum += hash(item(p, i));
    }
  printf("prodcons size %ld items %llu hash %016llx\n", size, (unsigned long long)n,
         (unsigned long long)hsum);
  if (n != (uint64_t)(NPROD * size) || sum != want_sum || hsum != want_hsum) {
    fprintf(stderr, "prodcons: wrong totals\n");
    return 1;
  }
  return 0;
}
