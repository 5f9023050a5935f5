// static_local_init.cc: a function-local static (a "Meyers singleton"),
// initialised once under the C++ runtime's guard.  Four threads ask for it
// at once: one runs the (slow) constructor, the others wait inside
// __cxa_guard_acquire; a fifth thread, which waits on a relaxed flag (no
// happens-before with anyone), asks for it after that and finds it through
// the compiler's inline guard check.  Every read of what the constructor
// wrote comes after the constructor, through the guard: no report there.
// The four workers then each store their number in it without a lock: that
// race (one pair of contexts), and only it, is reported.
//
// EXPECT: race
// EXPECT-CURRENT: set_last worker
// EXPECT-PREVIOUS: set_last worker
// EXPECT-LOCATION: global
// EXPECT-COUNT: 1
// EXPECT-STDOUT: made 1
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

static std::atomic<int> made{0}, go{0};

struct Registry {
  long table[64];
  long last = -1;
  Registry() {
    for (int i = 0; i < 64; i++) table[i] = (long)i * i;
    usleep(20000);  // long enough for the others to wait in the guard
    made.fetch_add(1, std::memory_order_relaxed);
  }
};

__attribute__((noinline)) Registry &registry() {
  static Registry r;
  return r;
}
__attribute__((noinline)) long lookup(int i) { return registry().table[i]; }
__attribute__((noinline)) void set_last(long id) { registry().last = id; }

static long sums[5];

static void sum(long id) {
  long s = 0;
  for (int i = 0; i < 64; i++) s += lookup(i);
  sums[id] = s;
}

static void *worker(void *arg) {
  sum((long)arg);
  set_last((long)arg);
  return nullptr;
}

static void *late(void *arg) {
  while (!go.load(std::memory_order_relaxed)) sched_yield();
  sum((long)arg);
  return nullptr;
}

int main() {
  pthread_t t[5];
  pthread_create(&t[4], nullptr, late, (void *)4L);
  for (long i = 0; i < 4; i++) pthread_create(&t[i], nullptr, worker, (void *)i);
  for (int i = 0; i < 4; i++) pthread_join(t[i], nullptr);
  go.store(1, std::memory_order_relaxed);
  pthread_join(t[4], nullptr);
  for (int i = 1; i < 5; i++)
    if (sums[i] != sums[0]) return 2;
  std::printf("made %d\n", made.load());
  return 0;
}
