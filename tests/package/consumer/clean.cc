// clean.cc: C++ threads sharing a map under a std::mutex and a std::atomic
// counter: no race, dacce-race exits 0.
#include <atomic>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

static std::mutex lock;
static std::map<int, int> seen;
static std::atomic<long> done{0};

static void work(int id) {
  for (int i = 0; i < 200; i++) {
    std::lock_guard<std::mutex> g(lock);
    seen[i % 17] += id;
  }
  done.fetch_add(1, std::memory_order_release);
}

int main() {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; i++) threads.emplace_back(work, i);
  for (auto &t : threads) t.join();
  std::printf("keys %zu done %ld\n", seen.size(), done.load(std::memory_order_acquire));
  return done.load() == 4 ? 0 : 1;
}
