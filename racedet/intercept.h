/* intercept.h: what the interceptors (intercept_*.c) share. */
#ifndef DACCE_INTERCEPT_H
#define DACCE_INTERCEPT_H
#include <dlfcn.h>

#include "racedet.h"

/* The interceptors of libc's leaf functions (memory, string and number
 * functions, stdio, descriptors: intercept_libc.c, intercept_stdio.c,
 * intercept_fd.c) are weak, as ThreadSanitizer's interceptors are, so that
 * a program that defines one itself (its own strlen, a compatibility
 * daemon() or closefrom()) links, with its own definition, which is then
 * not watched; strong, the runtime's made the link fail with a multiple
 * definition (tests/racedet/own_libc_functions.c).  The interceptors that
 * the runtime needs to work at all (threads, synchronisation, the heap,
 * mappings, signals) stay strong: a program's own pthread_create or
 * malloc is a link error, not a runtime that silently sees nothing (a
 * program's own malloc, tried weak, ran inside the runtime's thread start:
 * glibc's pthread_getattr_np calls realloc, and the instrumented allocator
 * then started the thread's state again, which waited for itself). */
#define DC_EXPORT_LEAF __attribute__((visibility("default"), weak))

/* the call instruction in the caller (its return address - 1): the line of
 * the call, not of the statement after it */
#define PC() ((uintptr_t)__builtin_return_address(0) - 1)

/* Are the calling thread's accesses recorded here: a thread of the
 * program's, not inside the runtime, not ignoring accesses? */
static inline int watching(void) {
  dc_thread *t = dc_self();
  return t && !t->in_runtime && !t->rd.ignore_accesses;
}

/* A range of the caller's memory that an intercepted call read or wrote,
 * recorded at pc (the caller checks watching()); an empty one is nothing. */
static inline void read_range(const void *p, size_t n, uintptr_t pc) {
  if (n) rd_range((uintptr_t)p, n, 0, pc);
}
static inline void write_range(const void *p, size_t n, uintptr_t pc) {
  if (n) rd_range((uintptr_t)p, n, 1, pc);
}

/* real_NAME: the function this interceptor hides, found on first use */
#define REAL(ret, name, ...)                                                      \
  static ret (*real_##name)(__VA_ARGS__);                                         \
  if (dc_unlikely(!real_##name)) {                                                \
    real_##name = (ret(*)(__VA_ARGS__))dlsym(RTLD_NEXT, #name);                   \
    if (!real_##name) dc_die("dacce: cannot find the real %s\n", #name);          \
  }

#endif
