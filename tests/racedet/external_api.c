/* external_api.c: a library that reports the use of its own objects
 * through ThreadSanitizer's external-race API (__tsan_external_read for a
 * read-only operation, __tsan_external_write for a modifying one), as
 * Apple's and some C++ container libraries do.  main fills the table
 * before it makes the threads (ordered); two finders' lookups are
 * read-only and race with nothing but the inserter's insert, which nothing
 * orders with them: the one race (one pair of contexts), reported with the
 * library functions and their callers, and the table's type as its library
 * tagged it.
 *
 * EXPECT: race
 * EXPECT-CURRENT: table_insert inserter
 * EXPECT-PREVIOUS: table_find finder
 * EXPECT-OBJECT-TYPE: demo::table
 * EXPECT-COUNT: 1
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>

void *__tsan_external_register_tag(const char *object_type);
void __tsan_external_register_header(void *tag, const char *header);
void __tsan_external_assign_tag(void *addr, void *tag);
void __tsan_external_read(void *addr, void *caller_pc, void *tag);
void __tsan_external_write(void *addr, void *caller_pc, void *tag);

/* the "library": its operations tell the runtime what they do */
typedef struct table {
  char impl[64]; /* stands for the library's own, uninstrumented state */
} table;
static void *table_tag;

__attribute__((noinline)) static int table_find(table *t, int k) {
  __tsan_external_read(t, __builtin_return_address(0), table_tag);
  return k & 1;
}
__attribute__((noinline)) static void table_insert(table *t, int k) {
  __tsan_external_write(t, __builtin_return_address(0), table_tag);
  (void)k;
}

static table tab;
static atomic_int found_done;
static long hits[2];

static void *finder(void *arg) {
  long h = 0;
  for (int i = 0; i < 64; i++) h += table_find(&tab, i); /* reads only */
  hits[(long)arg] = h;
  atomic_fetch_add_explicit(&found_done, 1, memory_order_relaxed);
  return NULL;
}

static void *inserter(void *arg) {
  (void)arg;
  while (atomic_load_explicit(&found_done, memory_order_relaxed) < 2) sched_yield();
  table_insert(&tab, 5); /* unordered with the finder's lookups */
  return NULL;
}

int main(void) {
  table_tag = __tsan_external_register_tag("demo::table");
  __tsan_external_register_header(table_tag, "demo table");
  __tsan_external_assign_tag(&tab, table_tag);
  for (int i = 0; i < 64; i += 2) table_insert(&tab, i); /* before the threads */
  pthread_t a, b, c;
  pthread_create(&a, NULL, finder, (void *)0L);
  pthread_create(&c, NULL, finder, (void *)1L);
  pthread_create(&b, NULL, inserter, NULL);
  pthread_join(a, NULL);
  pthread_join(c, NULL);
  pthread_join(b, NULL);
  printf("%ld\n", hits[0] + hits[1]);
  return 0;
}
