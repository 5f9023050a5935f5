// cxx_plugin.cc: a C++ library that plugin_host.c (a C program) dlopens
// with RTLD_LOCAL.  Its operator new and delete bind to the runtime's
// interceptors, which must find libstdc++'s own although it is not in the
// global scope (racedet/intercept_heap.c cxx_next).
#include <string>

extern "C" int plugin(void) {
  int *p = new int(5);
  std::string s(40, 'x');
  int v = *p + static_cast<int>(s.size());
  delete p;
  return v;
}
