// vptr_race.cc: one thread calls a virtual function of an object another
// thread then destroys; the derived destructor rewrites the vptr with the
// base class's, unordered with the virtual call's read of it: reported as
// "data race on vptr (ctor/dtor vs virtual call)", as ThreadSanitizer
// names it.  The flag orders nothing (relaxed), so the destructor comes
// second and is the current access.
//
// EXPECT: race
// EXPECT-CURRENT: ~Task|Task::~Task
// EXPECT-PREVIOUS: use_worker
// EXPECT-VPTR: yes
#include <pthread.h>

#include <atomic>
#include <cstdio>

__attribute__((noinline)) void task_done() { std::printf("task done\n"); }
struct Task {
  virtual int run() { return 1; }
  virtual ~Task() { task_done(); } // runs with the vptr set back to Task's
};
struct Worker : Task {
  int run() override { return 2; }
  ~Worker() override { std::printf("worker gone\n"); }
};

static Task *task = new Worker;
static std::atomic<int> called;

__attribute__((noinline)) int use_worker() { return task->run(); }

static void *caller(void *) {
  int r = use_worker();
  called.store(1, std::memory_order_relaxed);
  return reinterpret_cast<void *>(static_cast<long>(r));
}
int main() {
  pthread_t t;
  pthread_create(&t, nullptr, caller, nullptr);
  while (!called.load(std::memory_order_relaxed)) {
  }
  delete task;
  pthread_join(t, nullptr);
  return 0;
}
