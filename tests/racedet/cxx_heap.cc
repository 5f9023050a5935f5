// cxx_heap.cc: a block made by operator new races; the report's location
// names the line of the new (and the function that made it), not a pc in
// libstdc++ and its caller's first line: operator new and delete are
// intercepted (racedet/intercept_heap.c) and pass on their caller's pc.
// libstdc++'s semantics stay: a failed new throws std::bad_alloc through the
// interceptor, and the nothrow and array forms work.
//
// EXPECT: race
// EXPECT-CURRENT: deposit teller
// EXPECT-PREVIOUS: withdraw main
// EXPECT-LOCATION: heap
// EXPECT-ALLOCATION: open_account main
// EXPECT-STDOUT: bad_alloc caught, nothrow ok
#include <pthread.h>
#include <stdint.h>

#include <cstdio>
#include <new>

struct Account {
  long balance;
  long history[3];
};
static Account *account;
static char *volatile kept; // a new whose result is unused may be elided

__attribute__((noinline)) Account *open_account() {
  return new Account();  // ALLOC-HERE
}
__attribute__((noinline)) void deposit(long n) { account->balance += n; }
__attribute__((noinline)) void withdraw(long n) { account->balance -= n; }
void *teller(void *) {
  deposit(5);
  return nullptr;
}
int main() {
  account = open_account();
  pthread_t t;
  pthread_create(&t, nullptr, teller, nullptr);
  withdraw(7);
  pthread_join(t, nullptr);
  bool caught = false;
  try {
    volatile size_t huge = SIZE_MAX / 4;
    kept = new char[huge];
    delete[] kept;
  } catch (const std::bad_alloc &) {
    caught = true;
  }
  int *q = new (std::nothrow) int[4];
  std::printf("%s, %s\n", caught ? "bad_alloc caught" : "no exception", q ? "nothrow ok" : "nothrow null");
  delete[] q;
  delete account;
  return 0;
}
