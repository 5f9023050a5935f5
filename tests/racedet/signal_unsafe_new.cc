// signal_unsafe_new.cc: a SIGALRM handler that makes a std::vector with
// new and deletes it: four calls (the vector and its storage, each made and
// freed), each reported once as operator new or operator delete (not the
// malloc and free they call), at its own line: the handler's, or the
// allocator's inlined into it.
//
// EXPECT: signal-unsafe-call
// EXPECT-COUNT: 4
// EXPECT-SIGNAL: SIGALRM
// EXPECT-CALLED: operator new|operator delete
// EXPECT-CURRENT: on_alarm spin main
// EXPECT-STDOUT: alarms 1
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include <vector>

static volatile sig_atomic_t alarms;
static std::vector<int> *volatile made;

static void on_alarm(int) {
  made = new std::vector<int>(4);
  alarms = alarms + 1;
  delete made;
}

__attribute__((noinline)) static void spin() {
  while (!alarms) {
    for (volatile int i = 0; i < 10000; i++) {
    }
  }
}

int main() {
  signal(SIGALRM, on_alarm);
  alarm(1);
  spin();
  printf("alarms %d\n", (int)alarms);
  return 0;
}
