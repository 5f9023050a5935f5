/* lock_order_cycle4.c: four threads, each holding one lock while it takes
 * the next, around a cycle of four kinds of lock: a pthread mutex, a
 * spinlock, a C11 mtx_t and a custom lock annotated with the
 * __tsan_mutex_* API.  They run one at a time (no deadlock in this run);
 * all four at once would deadlock: one report, a cycle of four edges.
 *
 * EXPECT: lock-order-inversion
 * EXPECT-COUNT: 1
 * EXPECT-CYCLE: 4
 * EXPECT-WANTED: spin_under_mutex mtx_under_spin custom_under_mtx mutex_under_custom
 * EXPECT-HELD: spin_under_mutex mtx_under_spin custom_under_mtx mutex_under_custom
 * EXPECT-THREADS: 4
 * EXPECT-STDOUT: done 4
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <threads.h>

/* ThreadSanitizer's annotation interface (sanitizer/tsan_interface.h) */
void __tsan_mutex_create(void *addr, unsigned flags);
void __tsan_mutex_pre_lock(void *addr, unsigned flags);
void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion);
int __tsan_mutex_pre_unlock(void *addr, unsigned flags);
void __tsan_mutex_post_unlock(void *addr, unsigned flags);

static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_spinlock_t spin;
static mtx_t cmtx;
static atomic_int custom;
static int done;

static void custom_lock(void) {
  __tsan_mutex_pre_lock(&custom, 0);
  while (atomic_exchange_explicit(&custom, 1, memory_order_acquire)) {
  }
  __tsan_mutex_post_lock(&custom, 0, 0);
}
static void custom_unlock(void) {
  __tsan_mutex_pre_unlock(&custom, 0);
  atomic_store_explicit(&custom, 0, memory_order_release);
  __tsan_mutex_post_unlock(&custom, 0);
}

__attribute__((noinline)) static void spin_under_mutex(void) {
  pthread_mutex_lock(&mutex);
  pthread_spin_lock(&spin);
  done++;
  pthread_spin_unlock(&spin);
  pthread_mutex_unlock(&mutex);
}
__attribute__((noinline)) static void mtx_under_spin(void) {
  pthread_spin_lock(&spin);
  mtx_lock(&cmtx);
  mtx_unlock(&cmtx);
  pthread_spin_unlock(&spin);
}
__attribute__((noinline)) static void custom_under_mtx(void) {
  mtx_lock(&cmtx);
  custom_lock();
  custom_unlock();
  mtx_unlock(&cmtx);
}
__attribute__((noinline)) static void mutex_under_custom(void) {
  custom_lock();
  pthread_mutex_lock(&mutex);
  pthread_mutex_unlock(&mutex);
  custom_unlock();
}

static void *t1(void *a) { spin_under_mutex(); return a; }
static void *t2(void *a) { mtx_under_spin(); done++; return a; }
static void *t3(void *a) { custom_under_mtx(); done++; return a; }
static void *t4(void *a) { mutex_under_custom(); done++; return a; }

int main(void) {
  pthread_spin_init(&spin, 0);
  mtx_init(&cmtx, mtx_plain);
  __tsan_mutex_create(&custom, 0);
  void *(*fn[4])(void *) = {t1, t2, t3, t4};
  for (int i = 0; i < 4; i++) {
    pthread_t t;
    pthread_create(&t, 0, fn[i], 0);
    pthread_join(t, 0);
  }
  printf("done %d\n", done);
  return 0;
}
