/* lazy_init_wrong.c: double-checked locking with a plain pointer.  The first
 * check reads `instance` without the lock while another thread writes it
 * under the lock, and the object's fields are read through an unsynchronised
 * pointer.
 *
 * EXPECT: race
 * EXPECT-CURRENT: get_config handle_request
 * EXPECT-PREVIOUS: get_config handle_request
 * EXPECT-LOCATION: global instance
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct config {
  int verbose;
  int retries;
};
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;
struct config *instance;

__attribute__((noinline)) static struct config *load_config(void) {
  struct config *c = malloc(sizeof *c);
  c->verbose = 1;
  c->retries = 3;
  return c;
}

__attribute__((noinline)) struct config *get_config(void) {
  if (!instance) { /* BUG: unsynchronised read */
    pthread_mutex_lock(&init_lock);
    if (!instance) instance = load_config();
    pthread_mutex_unlock(&init_lock);
  }
  return instance;
}

__attribute__((noinline)) static int handle_request(int n) { return n * get_config()->retries; }

static void *server(void *arg) {
  long sum = 0;
  for (int i = 0; i < 1000; i++) sum += handle_request(i);
  return (void *)sum;
}

int main(void) {
  pthread_t t[4];
  for (int i = 0; i < 4; i++) pthread_create(&t[i], 0, server, 0);
  for (int i = 0; i < 4; i++) pthread_join(t[i], 0);
  printf("verbose %d\n", instance->verbose);
  free(instance);
  return 0;
}
