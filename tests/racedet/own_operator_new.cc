// own_operator_new.cc: a C++ program that replaces the global operator new
// and delete (counting its allocations, as memory-tracking code does).  The
// runtime's operators are weak (racedet/intercept_heap.c), so the program
// links and its own are the ones called, by its news and by libstdc++'s
// (std::string, std::vector).  Its operators call malloc and free, which
// are still the runtime's: a block made by a new of the program's is a heap
// block of the report, with the allocating function.  Before, the link
// failed with multiple definitions of operator new and delete.
//
// EXPECT: race
// EXPECT-CURRENT: deposit teller
// EXPECT-PREVIOUS: withdraw main
// EXPECT-LOCATION: heap
// EXPECT-ALLOCATION: open_account main
// EXPECT-STDOUT: own new: news ok, deletes ok, text hello world, sum 45
#include <pthread.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

static std::atomic<long> news, deletes;

void *operator new(std::size_t n) {
  news.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept {
  if (p) deletes.fetch_add(1, std::memory_order_relaxed);
  std::free(p);
}
void operator delete(void *p, std::size_t) noexcept { operator delete(p); }

struct Account {
  long balance;
};
static Account *account;

__attribute__((noinline)) Account *open_account() { return new Account(); }
__attribute__((noinline)) void deposit(long n) { account->balance += n; }
__attribute__((noinline)) void withdraw(long n) { account->balance -= n; }
static void *teller(void *) {
  deposit(5);
  return nullptr;
}

int main() {
  const long before = news.load();
  std::vector<long> v;
  for (long i = 0; i < 10; i++) v.push_back(i); // libstdc++'s news
  std::string s = "hello";
  s += std::string(" world, long enough for the heap");
  s.resize(11);
  long sum = 0;
  for (long x : v) sum += x;
  account = open_account();
  pthread_t t;
  pthread_create(&t, nullptr, teller, nullptr);
  withdraw(7);
  pthread_join(t, nullptr);
  const long made = news.load() - before;
  delete account;
  std::printf("own new: news %s, deletes %s, text %s, sum %ld\n", made >= 4 ? "ok" : "missing",
              deletes.load() >= 1 ? "ok" : "missing", s.c_str(), sum);
  return 0;
}
