/* signal_storm.h: a thread that sends the thread that started it SIGUSR1
 * as fast as it can (after `gap` turns of an empty loop each time), for
 * tests of signals that land anywhere, the hooks included.
 * storm_begin(handler, gap) installs the handler and starts the sender;
 * storm_end() stops it; storm_now() is a monotonic clock in seconds. */
#include <pthread.h>
#include <signal.h>
#include <time.h>

static pthread_t storm_target, storm_sender;
static _Atomic int storm_stop;
static int storm_gap;

static void *storm_send(void *arg) {
  (void)arg;
  while (!storm_stop) {
    pthread_kill(storm_target, SIGUSR1);
    for (volatile int i = 0; i < storm_gap; i++) {
    }
  }
  return 0;
}

static void storm_begin(void (*handler)(int), int gap) {
  struct sigaction sa = {0};
  sa.sa_handler = handler;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, 0);
  storm_target = pthread_self();
  storm_gap = gap;
  pthread_create(&storm_sender, 0, storm_send, 0);
}

static void storm_end(void) {
  storm_stop = 1;
  pthread_join(storm_sender, 0);
}

static double storm_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}
