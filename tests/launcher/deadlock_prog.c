/* deadlock_prog.c: two threads take mutexes a and b in opposite orders
 * (one after the other: the run never deadlocks), each lock through four
 * inlined wrappers, so that a lock's stack has inlined frames that share a
 * pc.  Built with -DDEFAULT_OFF, the program's __tsan_default_options
 * turns deadlock detection off. */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;
static int turns;

#ifdef DEFAULT_OFF
const char *__tsan_default_options(void) { return "detect_deadlocks=0"; }
#endif

static inline __attribute__((always_inline)) void grab(pthread_mutex_t *m) {
  pthread_mutex_lock(m); /* @lock-call */
}
static inline __attribute__((always_inline)) void grab_checked(pthread_mutex_t *m) { grab(m); }
static inline __attribute__((always_inline)) void grab_logged(pthread_mutex_t *m) {
  grab_checked(m);
}
static inline __attribute__((always_inline)) void grab_traced(pthread_mutex_t *m) {
  grab_logged(m);
}

__attribute__((noinline)) void a_then_b(void) {
  grab_traced(&a); /* @a-first */
  grab_traced(&b); /* @b-second */
  turns++;
  pthread_mutex_unlock(&b);
  pthread_mutex_unlock(&a);
}

__attribute__((noinline)) void b_then_a(void) {
  grab_traced(&b); /* @b-first */
  grab_traced(&a); /* @a-second */
  turns++;
  pthread_mutex_unlock(&a);
  pthread_mutex_unlock(&b);
}

static void *forward(void *arg) {
  a_then_b();
  return arg;
}
static void *backward(void *arg) {
  b_then_a();
  return arg;
}

__attribute__((noinline)) void spawn_and_join(void *(*fn)(void *)) {
  pthread_t t;
  pthread_create(&t, 0, fn, 0); /* @spawn */
  pthread_join(t, 0);
}

int main(void) {
  spawn_and_join(forward);
  spawn_and_join(backward);
  printf("turns %d\n", turns);
  return 0;
}
