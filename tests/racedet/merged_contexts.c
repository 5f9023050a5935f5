/* merged_contexts.c: the same function writes the two 4-byte fields of a
 * struct (one granule) from two different call paths, in one epoch: the
 * same instruction-level pattern as merged_fields.c, but two calling
 * contexts, which must not share a shadow cell.  The reader then reads the
 * second field after a relaxed flag (which orders nothing): the report's
 * previous access must be the write made through path_b, with an exact
 * line, not the one through path_a.
 *
 * EXPECT: race
 * EXPECT-CURRENT: read_b reader
 * EXPECT-PREVIOUS: set_field path_b writer
 * EXPECT-EXACT: set_field
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

struct pair {
  int a, b;
};
struct pair s __attribute__((aligned(8))); /* one granule; not static: not split */
static atomic_int ready;

__attribute__((noinline)) void set_field(int *f, int v) { *f = v; }
__attribute__((noinline)) void path_a(void) { set_field(&s.a, 1); }
__attribute__((noinline)) void path_b(void) { set_field(&s.b, 2); }
__attribute__((noinline)) int read_b(void) { return s.b; }

static void *writer(void *arg) {
  (void)arg;
  path_a();
  path_b();
  atomic_store_explicit(&ready, 1, memory_order_relaxed);
  return 0;
}

static void *reader(void *arg) {
  (void)arg;
  while (!atomic_load_explicit(&ready, memory_order_relaxed)) sched_yield();
  return (void *)(long)read_b();
}

int main(void) {
  pthread_t w, r;
  pthread_create(&w, 0, writer, 0);
  pthread_create(&r, 0, reader, 0);
  pthread_join(w, 0);
  pthread_join(r, 0);
  return 0;
}
