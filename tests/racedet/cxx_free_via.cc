// cxx_free_via.cc: a std::string's old buffer is read after the string grew.
// libstdc++ frees it (basic_string::_M_mutate, compiled into libstdc++.so,
// uninstrumented, calls operator delete), so the free's caller is no
// instrumented function: the free's stack names libstdc++'s frame, then
// grow() at the line of its call into libstdc++, found on the stack when
// the block was freed (racedet/intercept_heap.c, alloc_via at the free,
// rd_heap_freed_via).  Before, grow() showed its first line.
//
// EXPECT: heap-use-after-free
// EXPECT-CURRENT: late_reader
// EXPECT-PREVIOUS: grow main
// EXPECT-LOCATION: heap
#include <cstdio>
#include <string>
#include <thread>

static std::string log_line;
static const char *old_data;

__attribute__((noinline)) void grow(int n) {
  int pad = 0;
  for (int i = 0; i < n; i++) pad += i;  // lines between the entry and the call
  log_line.assign(4000 + pad, 'b');      // FREE-HERE
}
__attribute__((noinline)) void late_reader(char *out) { *out = old_data[9]; }

int main() {
  log_line.assign(40, 'a');
  old_data = log_line.data();
  grow(3);
  char c = 0;
  std::thread a(late_reader, &c);
  a.join();
  std::printf("%d\n", c != 0);
  return 0;
}
