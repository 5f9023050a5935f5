/* plugin_host.c: a C program that dlopens a C++ library (cxx_plugin.cc)
 * with RTLD_LOCAL and calls it: prints "plugin 45". */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  void *h = dlopen(argc > 1 ? argv[1] : "./libplugin.so", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen: %s\n", dlerror());
    return 2;
  }
  int (*f)(void) = (int (*)(void))dlsym(h, "plugin");
  printf("plugin %d\n", f ? f() : -1);
  return 0;
}
