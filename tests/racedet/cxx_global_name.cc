// cxx_global_name.cc: a race on a C++ global whose symbol is mangled (a
// static in a namespace: `_ZN7billingL4hitsE`).  The report's location
// names it as the source does, `billing::hits`, in the text, the JSON and
// suppressions alike: the runtime finds the symbol's raw name, and the
// launcher demangles it (racedet/tools/symreport.c, sym_location).  Before,
// reports said `global '_ZN7billingL4hitsE'`.
//
// EXPECT: race
// EXPECT-CURRENT: billing::count worker
// EXPECT-PREVIOUS: billing::count worker|main
// EXPECT-LOCATION: global billing::hits
#include <pthread.h>

namespace billing {
static long hits;
__attribute__((noinline)) void count() { hits++; }
}  // namespace billing

static void *worker(void *) {
  billing::count();
  return nullptr;
}

int main() {
  pthread_t a, b;
  pthread_create(&a, nullptr, worker, nullptr);
  pthread_create(&b, nullptr, worker, nullptr);
  pthread_join(a, nullptr);
  pthread_join(b, nullptr);
  return billing::hits == 2 ? 0 : 0;
}
