// exercise_abi.cc: C++ events: virtual calls (vptr reads and updates in
// constructors and destructors), exceptions, std::atomic.  Must exit 0 and
// report nothing.
//
// EXPECT: clean
#include <atomic>
#include <cstdio>
#include <memory>
#include <stdexcept>

struct Base {
  virtual ~Base() {}
  virtual int f() { return 1; }
};
struct Derived : Base {
  int f() override { return 2; }
};

__attribute__((noinline)) int thrower(int x) {
  if (x) throw std::runtime_error("x");
  return 0;
}

int main() {
  std::unique_ptr<Base> b(new Derived);
  std::atomic<long> a{0};
  a.fetch_add(b->f(), std::memory_order_acq_rel);
  int caught = 0;
  try {
    thrower(1);
  } catch (const std::exception &) {
    caught = 1;
  }
  std::printf("abi %ld %d\n", a.load(), caught);
  return 0;
}
