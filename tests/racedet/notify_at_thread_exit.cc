// notify_at_thread_exit.cc: std::notify_all_at_thread_exit keeps the
// thread's lock until the thread exits, and libstdc++ unlocks it and
// notifies in a thread-specific-data destructor, after the runtime's own
// destructor had ended the thread: the waiter's reads of what the thread
// wrote under the lock (here in a thread_local's destructor, as in
// libstdc++'s testsuite 30_threads/condition_variable/members/3.cc) were
// reported as racing with those writes (key_destructor_sync.c).
//
// EXPECT: clean
// EXPECT-STDOUT: counter 2
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

static std::mutex mx;
static std::condition_variable cv;
static int counter = 0;

struct Inc {
  Inc() { ++counter; }
  ~Inc() { ++counter; }
};

static void func() {
  std::unique_lock<std::mutex> lock{mx};
  std::notify_all_at_thread_exit(cv, std::move(lock));
  static thread_local Inc inc;
}

int main() {
  std::unique_lock<std::mutex> lock{mx};
  std::thread t{func};
  cv.wait(lock, [] { return counter == 2; });
  std::printf("counter %d\n", counter);
  lock.unlock();
  t.join();
}
