/* work_queue.c: a fixed pool of workers takes jobs from a queue guarded by a
 * mutex and two condition variables.  The queue is correct; the statistics
 * counter that every worker bumps after finishing a job is not protected.
 * The jobs are queued before the workers start, so workers never wait for
 * the producer (a wait would order their updates through the mutex in this
 * run).  Each worker, holding its first job, waits until every worker holds
 * one (a rendezvous of relaxed atomics, which order nothing), so their first
 * updates are unordered whatever the schedule: without it, a worker that
 * drained the queue before the others started ordered every update through
 * the mutex, and a CI run reported nothing.
 *
 * EXPECT: race
 * EXPECT-CURRENT: record_done run_job worker_main
 * EXPECT-PREVIOUS: record_done run_job worker_main
 * EXPECT-LOCATION: global jobs_done
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>

#define WORKERS 4
#define JOBS 400
#define CAP 512

struct queue {
  pthread_mutex_t lock;
  pthread_cond_t not_empty, not_full;
  int items[CAP];
  int head, count, closed;
};
static struct queue q = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
                         PTHREAD_COND_INITIALIZER, {0}, 0, 0, 0};
long jobs_done; /* BUG: updated by every worker without the lock */
static long results[JOBS];

static void queue_push(int v) {
  pthread_mutex_lock(&q.lock);
  while (q.count == CAP) pthread_cond_wait(&q.not_full, &q.lock);
  q.items[(q.head + q.count++) % CAP] = v;
  pthread_cond_signal(&q.not_empty);
  pthread_mutex_unlock(&q.lock);
}

static int queue_pop(int *v) {
  pthread_mutex_lock(&q.lock);
  while (q.count == 0 && !q.closed) pthread_cond_wait(&q.not_empty, &q.lock);
  int ok = q.count > 0;
  if (ok) {
    *v = q.items[q.head];
    q.head = (q.head + 1) % CAP;
    q.count--;
    pthread_cond_signal(&q.not_full);
  }
  pthread_mutex_unlock(&q.lock);
  return ok;
}

__attribute__((noinline)) static void record_done(void) { jobs_done++; }

__attribute__((noinline)) static void run_job(int job) {
  volatile long x = job; /* the work: a few tens of microseconds */
  for (int i = 0; i < 20000; i++) x = x * 31 + i;
  results[job] = x;
  record_done();
}

static int holding; /* workers holding their first job (relaxed: no order) */

static void *worker_main(void *arg) {
  int job, first = 1;
  while (queue_pop(&job)) {
    if (first) {
      first = 0;
      __atomic_fetch_add(&holding, 1, __ATOMIC_RELAXED);
      while (__atomic_load_n(&holding, __ATOMIC_RELAXED) < WORKERS) sched_yield();
    }
    run_job(job);
  }
  return arg;
}

int main(void) {
  pthread_t w[WORKERS];
  for (int j = 0; j < JOBS; j++) queue_push(j);
  pthread_mutex_lock(&q.lock);
  q.closed = 1;
  pthread_cond_broadcast(&q.not_empty);
  pthread_mutex_unlock(&q.lock);
  for (int i = 0; i < WORKERS; i++) pthread_create(&w[i], 0, worker_main, 0);
  for (int i = 0; i < WORKERS; i++) pthread_join(w[i], 0);
  long sum = 0;
  for (int j = 0; j < JOBS; j++) sum += results[j] & 0xff;
  printf("jobs %ld checksum %ld\n", jobs_done, sum);
  return 0;
}
