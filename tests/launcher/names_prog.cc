// names_prog.cc: a race between functions of internal linkage, for
// test_names.py.  gcc gives such functions no DW_AT_linkage_name; their
// names in reports must still be qualified as clang's linkage names are.
#include <pthread.h>
#include <unistd.h>

namespace shop {
int stock; /* @global */
static int first_done;

// internal linkage: static
static __attribute__((noinline)) void restock(int n) {
  stock += n; /* @restock */
}

namespace {
// internal linkage: anonymous namespace; bump() is inlined into run()
struct Clerk {
  int n;
  void bump() { stock -= n; } /* @bump */
  __attribute__((noinline)) void run() { bump(); }
};
}  // namespace

static void *restocker(void *) {
  restock(3);
  __atomic_store_n(&first_done, 1, __ATOMIC_RELAXED);
  return nullptr;
}

static void *seller(void *) {
  while (!__atomic_load_n(&first_done, __ATOMIC_RELAXED)) usleep(1000);
  Clerk c{1};
  c.run();
  return nullptr;
}
}  // namespace shop

int main() {
  pthread_t a, b;
  pthread_create(&a, nullptr, shop::restocker, nullptr);
  pthread_create(&b, nullptr, shop::seller, nullptr);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  return 0;
}
