/* lazy_init_right.c: the same lazy initialisation done right, twice: with an
 * acquire/release atomic pointer, and with pthread_once.
 *
 * EXPECT: clean
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

struct config {
  int verbose;
  int retries;
};
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic(struct config *) instance;
static struct config *once_instance;
static pthread_once_t once = PTHREAD_ONCE_INIT;

__attribute__((noinline)) static struct config *load_config(int retries) {
  struct config *c = malloc(sizeof *c);
  c->verbose = 1;
  c->retries = retries;
  return c;
}

__attribute__((noinline)) static struct config *get_config(void) {
  struct config *c = atomic_load_explicit(&instance, memory_order_acquire);
  if (!c) {
    pthread_mutex_lock(&init_lock);
    c = atomic_load_explicit(&instance, memory_order_relaxed);
    if (!c) {
      c = load_config(3);
      atomic_store_explicit(&instance, c, memory_order_release);
    }
    pthread_mutex_unlock(&init_lock);
  }
  return c;
}

static void init_once(void) { once_instance = load_config(5); }
__attribute__((noinline)) static struct config *get_once_config(void) {
  pthread_once(&once, init_once);
  return once_instance;
}

static void *server(void *arg) {
  long sum = 0;
  for (int i = 0; i < 1000; i++) sum += i * get_config()->retries + get_once_config()->retries;
  return (void *)sum;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, server, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  printf("verbose %d %d\n", get_config()->verbose, get_once_config()->verbose);
  free(atomic_load(&instance));
  free(once_instance);
  return 0;
}
