// lock_order_shared.cc: a C++ inversion through a reader: one thread reads
// a std::shared_timed_mutex (shared_lock) and then takes a std::mutex; another
// holds that std::mutex and then asks for the shared_mutex exclusively.
// The writer waits for the reader's shared hold and the reader for the
// writer's mutex: a potential deadlock, reported with the read lock marked
// (ThreadSanitizer reports this one too; two readers would not be).
//
// EXPECT: lock-order-inversion
// EXPECT-COUNT: 1
// EXPECT-CYCLE: 2
// EXPECT-WANTED: Registry::lookup_and_log Registry::rebuild
// EXPECT-HELD: Registry::lookup_and_log Registry::rebuild
// EXPECT-STDOUT: entries 2
#include <cstdio>
#include <mutex>
#include <shared_mutex>
#include <thread>
#include <vector>

class Registry {
  std::shared_timed_mutex table_lock_;
  std::mutex log_lock_;
  std::vector<int> table_{1};
  std::vector<int> log_;

 public:
  __attribute__((noinline)) void lookup_and_log() {
    std::shared_lock<std::shared_timed_mutex> r(table_lock_);
    std::lock_guard<std::mutex> g(log_lock_);
    log_.push_back(table_.back());
  }
  __attribute__((noinline)) void rebuild() {
    std::lock_guard<std::mutex> g(log_lock_);
    std::unique_lock<std::shared_timed_mutex> w(table_lock_);
    table_.push_back(static_cast<int>(log_.size()));
  }
  size_t entries() {
    std::lock_guard<std::mutex> g(log_lock_);
    std::shared_lock<std::shared_timed_mutex> r(table_lock_);
    return table_.size();
  }
};

int main() {
  Registry reg;
  std::thread reader([&] { reg.lookup_and_log(); });
  reader.join();
  std::thread writer([&] { reg.rebuild(); });
  writer.join();
  std::printf("entries %zu\n", reg.entries());
  return 0;
}
