// exception_base_refcount.cc: exception_refcount.cc's pattern, with the
// handlers catching by a base class that is not the object's first one, so
// that __cxa_begin_catch hands them a pointer into the object, not the
// object.  Dropping a reference is an acquire and a release on the object
// itself (intercept_pthread.c), so the handler's reference must be counted
// on the object too, whatever pointer the handler got: taken from the
// exception's header (its primary object; a rethrown exception_ptr's
// dependent header names it).  In each of two rounds a worker holds one
// reference and main's handler the other, the last main has: a thrown
// exception whose handler hands it to a new worker (a primary exception),
// and an exception_ptr moved into std::rethrow_exception (a dependent one,
// whose parameter lets go before the handler runs).  main's handler reads
// the object and ends; then, ordered by nothing but a relaxed turn, the
// worker lets the last reference go, which frees the object.  Before, the
// free raced with the handler's read.
//
// EXPECT: clean
// EXPECT-STDOUT: caught 6 7 6 7
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>

struct Tag {
  virtual ~Tag() {}
  int tag = 7;
};
/* std::exception is the second base: a handler for it gets this + 16 */
struct Broken : Tag, std::runtime_error {
  Broken() : std::runtime_error("broken") {}
};

static std::atomic<int> turn{0};

/* holds the other reference until main's turn says so */
static std::thread holder(std::exception_ptr p, int round) {
  return std::thread([mine = std::move(p), round]() mutable {
    while (turn.load(std::memory_order_relaxed) != round) std::this_thread::yield();
    mine = nullptr; /* the last reference: the object is freed here */
  });
}

static void report(const std::exception &e, size_t *len, int *tag) {
  *len = std::strlen(e.what());
  *tag = dynamic_cast<const Tag &>(e).tag;
}

int main() {
  size_t len1 = 0, len2 = 0;
  int tag1 = 0, tag2 = 0;
  std::thread t1, t2;
  /* round 1: a primary exception */
  try {
    throw Broken();
  } catch (const std::exception &e) {
    t1 = holder(std::current_exception(), 1);
    report(e, &len1, &tag1);
  }
  turn.store(1, std::memory_order_relaxed);
  t1.join();
  /* round 2: a dependent one */
  std::exception_ptr ep = std::make_exception_ptr(Broken());
  t2 = holder(ep, 2);
  try {
    std::rethrow_exception(std::move(ep));
  } catch (const std::exception &e) {
    report(e, &len2, &tag2);
  }
  turn.store(2, std::memory_order_relaxed);
  t2.join();
  std::printf("caught %zu %d %zu %d\n", len1, tag1, len2, tag2);
}
