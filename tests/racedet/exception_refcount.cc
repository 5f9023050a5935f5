// exception_refcount.cc: an exception object is freed by whoever drops
// its last reference, in the C++ runtime, whose reference count is not
// instrumented.  main handles the exception (reads it through a virtual
// call), ends the handler and lets its exception_ptr go; then, ordered by
// nothing but relaxed turns, the worker lets the last exception_ptr go,
// which frees the object.  Each reference dropped is an acquire and a
// release on the object (intercept_pthread.c, __cxa_end_catch and
// exception_ptr::_M_release), so the free comes after main's reads: no
// report.  Without that, the free raced with the handler's read (libstdc++
// testsuite 30_threads/packaged_task/forced_unwind.cc, about one run in
// two).
//
// EXPECT: clean
// EXPECT-STDOUT: caught 6
#include <atomic>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

static std::atomic<int> turn{0};

int main() {
  std::exception_ptr ep = std::make_exception_ptr(std::runtime_error("broken"));
  std::thread t([mine = ep]() mutable {
    while (turn.load(std::memory_order_relaxed) != 1) std::this_thread::yield();
    mine = nullptr; /* the last reference: the object is freed here */
  });
  size_t len = 0;
  try {
    std::rethrow_exception(ep);
  } catch (const std::exception &e) {
    len = std::strlen(e.what());
  }
  ep = nullptr;
  turn.store(1, std::memory_order_relaxed);
  t.join();
  std::printf("caught %zu\n", len);
}
