/* refcount_relaxed.c: a shared buffer with a reference count decremented
 * with memory_order_relaxed.  The thread that drops the last reference frees
 * the buffer, but a relaxed decrement does not order the other holders'
 * writes before that free.
 *
 * EXPECT: race
 * EXPECT-CURRENT: buffer_release
 * EXPECT-PREVIOUS: buffer_fill holder
 * EXPECT-LOCATION: heap
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct buffer {
  atomic_int refs;
  int data[64];
};

__attribute__((noinline)) static void buffer_release(struct buffer *b) {
  if (atomic_fetch_sub_explicit(&b->refs, 1, memory_order_relaxed) == 1) free(b);
}

__attribute__((noinline)) static void buffer_fill(struct buffer *b, int id) {
  for (int i = 0; i < 64; i += 4) b->data[i + id] = id;
}

static void *holder(void *arg) {
  static atomic_int next_id;
  int id = atomic_fetch_add(&next_id, 1);
  buffer_fill(arg, id);
  buffer_release(arg);
  return 0;
}

int main(void) {
  struct buffer *b = calloc(1, sizeof *b);
  atomic_store(&b->refs, 4);
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, holder, b);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  puts("done");
  return 0;
}
