// cxx_alloc_via.cc: a std::string's buffer races.  libstdc++ makes it
// (basic_string::_M_mutate, compiled into libstdc++.so, uninstrumented, calls
// operator new), so the allocator's caller is no instrumented function: the
// report's allocation stack names libstdc++'s frame, then build() at the
// line of its call into libstdc++, found on the stack when the block was
// made (racedet/intercept_heap.c, alloc_via).  Before, build() showed its
// first line.  The thread creations go through libstdc++ too
// (_M_start_thread): their lines are main's own (CREATE-HERE).
//
// EXPECT: race
// EXPECT-CURRENT: reader|writer
// EXPECT-PREVIOUS: reader|writer
// EXPECT-LOCATION: heap
// EXPECT-ALLOCATION: build main
#include <cstdio>
#include <string>
#include <thread>

static std::string log_line;

__attribute__((noinline)) void build(int n) {
  int pad = 0;
  for (int i = 0; i < n; i++) pad += i;  // lines between the entry and the call
  log_line.assign(40 + pad, 'a');  // ALLOC-HERE
}
__attribute__((noinline)) void reader(char *out) { *out = log_line.data()[3]; }
__attribute__((noinline)) void writer() { log_line[3] = 'X'; }

int main() {
  build(3);
  char c = 0;
  std::thread a(reader, &c);  // CREATE-HERE
  std::thread b(writer);      // CREATE-HERE
  a.join();
  b.join();
  std::printf("%c\n", c);
  return 0;
}
