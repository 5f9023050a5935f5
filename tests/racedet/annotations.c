/* annotations.c: synchronisation the detector can only learn from
 * annotations.  Each section hands data between threads through a mechanism
 * invisible to it (a relaxed flag, or a custom lock built on relaxed atomics)
 * plus the matching annotation; a race would be reported for any annotation
 * that were ignored.
 *
 * EXPECT: clean
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>

void AnnotateHappensBefore(const char *f, int l, const volatile void *addr);
void AnnotateHappensAfter(const char *f, int l, const volatile void *addr);
void AnnotateBenignRaceSized(const char *f, int l, const volatile void *addr, size_t size,
                             const char *desc);
void AnnotateIgnoreReadsBegin(const char *f, int l);
void AnnotateIgnoreReadsEnd(const char *f, int l);
void AnnotateIgnoreWritesBegin(const char *f, int l);
void AnnotateIgnoreWritesEnd(const char *f, int l);
void AnnotateRWLockAcquired(const char *f, int l, const volatile void *m, long is_w);
void AnnotateRWLockReleased(const char *f, int l, const volatile void *m, long is_w);
void AnnotateThreadName(const char *f, int l, const char *name);
void __tsan_mutex_pre_lock(void *addr, unsigned flags);
void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void *addr, unsigned flags);
void __tsan_mutex_post_unlock(void *addr, unsigned flags);
void __tsan_acquire(void *addr);
void __tsan_release(void *addr);
void __tsan_ignore_thread_begin(void);
void __tsan_ignore_thread_end(void);

static atomic_int flag_hb, flag_tsan;
static long data_hb, data_tsan, data_lock, data_rw, stats_benign;
static long ignored_r, ignored_w, ignored_t; /* each hidden by one ignore annotation */

/* a spinlock on relaxed atomics: invisible to the detector but for annotations */
static atomic_int custom;
static void custom_lock(void) {
  __tsan_mutex_pre_lock(&custom, 0);
  while (atomic_exchange_explicit(&custom, 1, memory_order_relaxed)) sched_yield();
  __tsan_mutex_post_lock(&custom, 0, 0);
}
static void custom_unlock(void) {
  __tsan_mutex_pre_unlock(&custom, 0);
  atomic_store_explicit(&custom, 0, memory_order_relaxed);
  __tsan_mutex_post_unlock(&custom, 0);
}
static atomic_int rwword;
static void rw_lock(long is_w) {
  while (atomic_exchange_explicit(&rwword, 1, memory_order_relaxed)) sched_yield();
  AnnotateRWLockAcquired(__FILE__, __LINE__, &rwword, is_w);
}
static void rw_unlock(long is_w) {
  AnnotateRWLockReleased(__FILE__, __LINE__, &rwword, is_w);
  atomic_store_explicit(&rwword, 0, memory_order_relaxed);
}

__attribute__((noinline)) static void *consumer(void *arg) {
  AnnotateThreadName(__FILE__, __LINE__, "consumer");
  while (!atomic_load_explicit(&flag_hb, memory_order_relaxed)) sched_yield();
  AnnotateHappensAfter(__FILE__, __LINE__, &flag_hb);
  data_hb++;
  while (!atomic_load_explicit(&flag_tsan, memory_order_relaxed)) sched_yield();
  __tsan_acquire(&flag_tsan);
  data_tsan++;
  for (int i = 0; i < 100; i++) {
    custom_lock();
    data_lock++;
    custom_unlock();
    rw_lock(1);
    data_rw++;
    rw_unlock(1);
  }
  stats_benign++; /* declared benign below */
  AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
  long seen = ignored_r; /* races with main's plain write unless ignored */
  AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
  seen += ignored_w + ignored_t; /* plain reads: main's writes were ignored */
  return (void *)seen;
}

int main(void) {
  AnnotateBenignRaceSized(__FILE__, __LINE__, &stats_benign, sizeof stats_benign, "statistics");
  pthread_t t;
  pthread_create(&t, 0, consumer, 0);
  data_hb = 1;
  AnnotateHappensBefore(__FILE__, __LINE__, &flag_hb);
  atomic_store_explicit(&flag_hb, 1, memory_order_relaxed);
  data_tsan = 1;
  __tsan_release(&flag_tsan);
  atomic_store_explicit(&flag_tsan, 1, memory_order_relaxed);
  for (int i = 0; i < 100; i++) {
    custom_lock();
    data_lock++;
    custom_unlock();
    rw_lock(1);
    data_rw++;
    rw_unlock(1);
  }
  stats_benign++;
  ignored_r = 1;
  AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
  ignored_w = 5;
  AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
  __tsan_ignore_thread_begin();
  ignored_t++;
  __tsan_ignore_thread_end();
  pthread_join(t, 0);
  printf("%ld %ld %ld %ld\n", data_hb, data_tsan, data_lock, data_rw);
  return 0;
}
