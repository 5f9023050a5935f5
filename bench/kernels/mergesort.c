/* mergesort.c: parallel merge sort.
 *
 * Sorts `size` pseudo-random 32-bit keys.  The top two levels of the
 * recursion run in new threads (four leaf threads, each merge done by the
 * thread that created the two halves after joining them); below that the
 * sort is an ordinary recursive merge sort with insertion sort under 24
 * elements.  The main thread checks that the result is sorted and is a
 * permutation of the input (sum and xor of the keys and of their hashes).
 *
 * usage: mergesort [size]     exit 1 on a wrong result
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAR_DEPTH 2

static uint32_t *a, *tmp;

__attribute__((noinline)) static void insertion(uint32_t *v, long n) {
  for (long i = 1; i < n; i++) {
    uint32_t x = v[i];
    long j = i - 1;
    while (j >= 0 && v[j] > x) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = x;
  }
}

__attribute__((noinline)) static void merge(uint32_t *v, uint32_t *t, long n, long mid) {
  long i = 0, j = mid, k = 0;
  while (i < mid && j < n) t[k++] = v[i] <= v[j] ? v[i++] : v[j++];
  while (i < mid) t[k++] = v[i++];
  while (j < n) t[k++] = v[j++];
  memcpy(v, t, (size_t)n * sizeof *v);
}

static void msort(uint32_t *v, uint32_t *t, long n) {
  if (n < 24) {
    insertion(v, n);
    return;
  }
  long mid = n / 2;
  msort(v, t, mid);
  msort(v + mid, t + mid, n - mid);
  merge(v, t, n, mid);
}

struct job {
  long lo, n;
  int depth;
};

static void *psort(void *arg) {
  struct job *j = arg;
  if (j->depth >= PAR_DEPTH || j->n < 1024) {
    msort(a + j->lo, tmp + j->lo, j->n);
    return NULL;
  }
  long mid = j->n / 2;
  struct job l = {j->lo, mid, j->depth + 1}, r = {j->lo + mid, j->n - mid, j->depth + 1};
  pthread_t tl, tr;
  pthread_create(&tl, NULL, psort, &l);
  pthread_create(&tr, NULL, psort, &r);
  pthread_join(tl, NULL);
  pthread_join(tr, NULL);
  merge(a + j->lo, tmp + j->lo, j->n, mid);
  return NULL;
}

static uint32_t mix(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  return x;
}

int main(int argc, char **argv) {
  long size = argc > 1 ? atol(argv[1]) : 16000000;
  if (size < 1) return 2;
  a = malloc((size_t)size * sizeof *a);
  tmp = malloc((size_t)size * sizeof *tmp);
  if (!a || !tmp) return 2;
  uint64_t s = 88172645463325252ull, sum0 = 0, hs0 = 0;
  uint32_t x0 = 0;
  for (long i = 0; i < size; i++) {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    a[i] = (uint32_t)(s >> 32);
    sum0 += a[i];
    x0 ^= a[i];
    hs0 += mix(a[i]);
  }
  struct job root = {0, size, 0};
  psort(&root);
  uint64_t sum = 0, hs = 0, chk = 0;
  uint32_t x = 0;
  long unsorted = 0;
  for (long i = 0; i < size; i++) {
    if (i && a[i - 1] > a[i]) unsorted++;
    sum += a[i];
    x ^= a[i];
    hs += mix(a[i]);
    chk = chk * 31 + a[i];
  }
  printf("mergesort size %ld checksum %016llx\n", size, (unsigned long long)chk);
  free(a);
  free(tmp);
  if (unsorted || sum != sum0 || x != x0 || hs != hs0) {
    fprintf(stderr, "mergesort: wrong result (%ld out of order)\n", unsorted);
    return 1;
  }
  return 0;
}
