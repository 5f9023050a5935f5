/* clean_primitives.c: correctly synchronised uses of every primitive the
 * detector models.  Must produce no report.  Each section hands data from one
 * thread to another through exactly one primitive, so a primitive that is not
 * modelled shows up as a (false) race on that section's data.
 *
 * EXPECT: clean
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 4
static long data_mutex, data_rec, data_timed, data_try, data_rw, data_spin, data_cond;
static long data_sem, data_once, data_barrier[N], data_join, data_detach, data_atomic;
static long data_fence, data_seqcst, data_rwread, data_exit;
static char buf_copy[64];

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t rec_mu;
static pthread_mutex_t timed_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_spinlock_t spin;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cv_ready;
static sem_t sem;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_barrier_t barrier;
static atomic_int flag_acqrel, flag_fence, flag_seqcst;

static __attribute__((noinline)) void init_once(void) { data_once = 42; }

static __attribute__((noinline)) void *worker(void *arg) {
  long id = (long)arg;
  /* mutex, recursive mutex, timed, try */
  pthread_mutex_lock(&mu);
  data_mutex++;
  memcpy(buf_copy, "hello", 6);
  pthread_mutex_unlock(&mu);
  pthread_mutex_lock(&rec_mu);
  pthread_mutex_lock(&rec_mu);
  data_rec++;
  pthread_mutex_unlock(&rec_mu);
  pthread_mutex_unlock(&rec_mu);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  ts.tv_sec += 5;
  if (pthread_mutex_timedlock(&timed_mu, &ts) == 0) {
    data_timed++;
    pthread_mutex_unlock(&timed_mu);
  }
  while (pthread_mutex_trylock(&mu) != 0) sched_yield();
  data_try++;
  pthread_mutex_unlock(&mu);
  /* rwlock: writers write, readers read */
  pthread_rwlock_wrlock(&rw);
  data_rw++;
  pthread_rwlock_unlock(&rw);
  pthread_rwlock_rdlock(&rw);
  volatile long r = data_rw + data_rwread;
  (void)r;
  pthread_rwlock_unlock(&rw);
  /* spinlock */
  pthread_spin_lock(&spin);
  data_spin++;
  pthread_spin_unlock(&spin);
  /* once */
  pthread_once(&once, init_once);
  if (data_once != 42) abort();
  /* barrier: each writes its slot, then reads all after the barrier */
  data_barrier[id] = id;
  pthread_barrier_wait(&barrier);
  long sum = 0;
  for (int i = 0; i < N; i++) sum += data_barrier[i];
  if (sum != N * (N - 1) / 2) abort();
  pthread_barrier_wait(&barrier);
  return 0;
}

static __attribute__((noinline)) void *cond_consumer(void *arg) {
  pthread_mutex_lock(&mu);
  while (!cv_ready) pthread_cond_wait(&cv, &mu);
  data_cond++;
  pthread_mutex_unlock(&mu);
  return arg;
}

static __attribute__((noinline)) void *sem_consumer(void *arg) {
  sem_wait(&sem);
  data_sem++;
  return arg;
}

static __attribute__((noinline)) void *join_child(void *arg) {
  data_join = 7;
  return arg;
}

static __attribute__((noinline)) void *detached(void *arg) {
  data_detach = 9;
  sem_post((sem_t *)arg);
  return 0;
}

static __attribute__((noinline)) void *exiting(void *arg) {
  data_exit = 5;
  pthread_exit(arg);
}

static __attribute__((noinline)) void *atomic_consumer(void *arg) {
  while (!atomic_load_explicit(&flag_acqrel, memory_order_acquire)) sched_yield();
  if (data_atomic != 1) abort();
  /* fence-based handoff: relaxed flag + fences */
  while (!atomic_load_explicit(&flag_fence, memory_order_relaxed)) sched_yield();
  atomic_thread_fence(memory_order_acquire);
  if (data_fence != 2) abort();
  while (!atomic_load(&flag_seqcst)) sched_yield();
  if (data_seqcst != 3) abort();
  return arg;
}

static __attribute__((noinline)) void heap_handoff(void) {
  /* ownership of a heap block passes through a mutex-protected pointer */
  static char *shared;
  pthread_t t;
  char *p = malloc(32);
  strcpy(p, "owned by main");
  pthread_mutex_lock(&mu);
  shared = p;
  pthread_mutex_unlock(&mu);
  void *(*reader)(void *) = 0;
  (void)reader;
  pthread_create(&t, 0, (void *(*)(void *))(void *)strlen, shared); /* reads it */
  pthread_join(t, 0);
  p = realloc(p, 64);
  free(p);
  void *q;
  if (posix_memalign(&q, 64, 128) == 0) {
    memset(q, 0, 128);
    free(q);
  }
}

int main(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&rec_mu, &a);
  pthread_spin_init(&spin, 0);
  sem_init(&sem, 0, 0);
  pthread_barrier_init(&barrier, 0, N);

  pthread_t t[N];
  for (long i = 0; i < N; i++) pthread_create(&t[i], 0, worker, (void *)i);
  for (int i = 0; i < N; i++) pthread_join(t[i], 0);

  pthread_t c;
  pthread_create(&c, 0, cond_consumer, 0);
  pthread_mutex_lock(&mu);
  cv_ready = 1;
  pthread_cond_signal(&cv);
  pthread_mutex_unlock(&mu);
  pthread_join(c, 0);

  pthread_create(&c, 0, sem_consumer, 0);
  sem_post(&sem);
  pthread_join(c, 0);

  pthread_create(&c, 0, join_child, 0);
  pthread_join(c, 0);
  data_join++;

  sem_t done;
  sem_init(&done, 0, 0);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_create(&c, &attr, detached, &done);
  sem_wait(&done);
  data_detach++;

  pthread_create(&c, 0, exiting, 0);
  pthread_join(c, 0);
  data_exit++;

  pthread_create(&c, 0, atomic_consumer, 0);
  data_atomic = 1;
  atomic_store_explicit(&flag_acqrel, 1, memory_order_release);
  data_fence = 2;
  atomic_thread_fence(memory_order_release);
  atomic_store_explicit(&flag_fence, 1, memory_order_relaxed);
  data_seqcst = 3;
  atomic_store(&flag_seqcst, 1);
  pthread_join(c, 0);

  heap_handoff();

  pid_t pid = fork();
  if (pid == 0) {
    data_mutex++; /* the child is its own process */
    _exit(0);
  }
  int st;
  waitpid(pid, &st, 0);
  data_mutex++;

  printf("clean: %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld %ld\n", data_mutex, data_rec,
         data_timed, data_try, data_rw, data_spin, data_cond, data_sem, data_join, data_detach,
         data_exit, data_once);
  return 0;
}
