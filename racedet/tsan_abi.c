/* tsan_abi.c: the -fsanitize=thread instrumentation ABI (gcc 12, clang 14).
 *
 * Function entry/exit live in encoder/hooks_x86_64.S.  Here: memory accesses,
 * ranges, vptr, atomics (which must really perform the operation), fences and
 * the annotation entry points.  Every event is forwarded to racedet.h. */
#include <stdint.h>
#include <string.h>

#include "../encoder/internal.h"
#include "racedet.h"

#define PC() ((uintptr_t)__builtin_return_address(0))

/* Weak, as a shared libtsan's are in effect: a program may define some of
 * these itself (gcc's volatile.c counts its __tsan_volatile_* calls), and
 * its definitions then win instead of failing the link with the static
 * runtime.  Calls from the program still bind directly to ours. */
#undef DC_EXPORT
#define DC_EXPORT __attribute__((visibility("default"), weak))

DC_EXPORT void __tsan_init(void) { dc_cur(); }
DC_EXPORT void __tsan_flush_memory(void) {}

/* ------------------------------------------------------------ plain accesses */
#define ACCESS(size)                                                                     \
  DC_EXPORT void __tsan_read##size(void *a) { rd_access_fast((uintptr_t)a, size, 0, PC()); }  \
  DC_EXPORT void __tsan_write##size(void *a) { rd_access_fast((uintptr_t)a, size, 1, PC()); } \
  DC_EXPORT void __tsan_read##size##_pc(void *a, void *pc) {                             \
    rd_access_fast((uintptr_t)a, size, 0, (uintptr_t)pc);                                     \
  }                                                                                      \
  DC_EXPORT void __tsan_write##size##_pc(void *a, void *pc) {                            \
    rd_access_fast((uintptr_t)a, size, 1, (uintptr_t)pc);                                     \
  }                                                                                      \
  DC_EXPORT void __tsan_volatile_read##size(void *a) { rd_access_fast((uintptr_t)a, size, 0, PC()); } \
  DC_EXPORT void __tsan_volatile_write##size(void *a) { rd_access_fast((uintptr_t)a, size, 1, PC()); }
ACCESS(1)
ACCESS(2)
ACCESS(4)
ACCESS(8)
ACCESS(16)

#define UNALIGNED(size)                                                                  \
  DC_EXPORT void __tsan_unaligned_read##size(void *a) {                                  \
    rd_access_fast_unaligned((uintptr_t)a, size, 0, PC());                               \
  }                                                                                      \
  DC_EXPORT void __tsan_unaligned_write##size(void *a) {                                 \
    rd_access_fast_unaligned((uintptr_t)a, size, 1, PC());                               \
  }                                                                                      \
  DC_EXPORT void __tsan_unaligned_volatile_read##size(void *a) {                         \
    rd_access_fast_unaligned((uintptr_t)a, size, 0, PC());                               \
  }                                                                                      \
  DC_EXPORT void __tsan_unaligned_volatile_write##size(void *a) {                        \
    rd_access_fast_unaligned((uintptr_t)a, size, 1, PC());                               \
  }
UNALIGNED(2)
UNALIGNED(4)
UNALIGNED(8)
UNALIGNED(16)

DC_EXPORT void __tsan_read_range(void *a, unsigned long n) { rd_range((uintptr_t)a, n, 0, PC()); }
DC_EXPORT void __tsan_write_range(void *a, unsigned long n) { rd_range((uintptr_t)a, n, 1, PC()); }
DC_EXPORT void __tsan_read_range_pc(void *a, unsigned long n, void *pc) {
  rd_range((uintptr_t)a, n, 0, (uintptr_t)pc);
}
DC_EXPORT void __tsan_write_range_pc(void *a, unsigned long n, void *pc) {
  rd_range((uintptr_t)a, n, 1, (uintptr_t)pc);
}

DC_EXPORT void __tsan_vptr_update(void **p, void *v) {
  if (*p != v) rd_vptr_access((uintptr_t)p, sizeof(void *), 1, PC());
}
DC_EXPORT void __tsan_vptr_read(void **p) {
  rd_access_fast_to((uintptr_t)p, sizeof(void *), 0, PC(), rd_vptr_more, rd_vptr_access);
}

/* ------------------------------------------------------------ atomics */
/* Memory orders as the compilers pass them (== __ATOMIC_*).  gcc may set
 * HLE bits above the low 16; mask them. */
#define MO(m) ((m) & 0xffff)
typedef unsigned __int128 u128;

/* Each operation is performed with the matching builtin at seq_cst strength
 * (correct for every order the program asked for) between rd_atomic_pre and
 * rd_atomic_post, which model the order the program asked for. */
#define ATOMICS(bits, T)                                                                     \
  DC_EXPORT T __tsan_atomic##bits##_load(const volatile T *a, int mo) {                     \
    for (int locked = 0;; locked = 1) { /* (rd_atomic_load_pre) */                         \
      rd_sync *s = rd_atomic_load_pre((uintptr_t)a, MO(mo), locked);                        \
      T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                            \
      if (rd_atomic_post(s, (uintptr_t)a, bits / 8, RD_LOAD, MO(mo), PC())) return v;        \
    }                                                                                        \
  }                                                                                          \
  DC_EXPORT void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) {                  \
    rd_sync *s = rd_atomic_pre((uintptr_t)a);                                                \
    __atomic_store_n(a, v, __ATOMIC_SEQ_CST);                                                \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, RD_STORE, MO(mo), PC());                       \
  }                                                                                          \
  RMW(bits, T, exchange, __atomic_exchange_n)                                                \
  RMW(bits, T, fetch_add, __atomic_fetch_add)                                                \
  RMW(bits, T, fetch_sub, __atomic_fetch_sub)                                                \
  RMW(bits, T, fetch_and, __atomic_fetch_and)                                                \
  RMW(bits, T, fetch_or, __atomic_fetch_or)                                                  \
  RMW(bits, T, fetch_xor, __atomic_fetch_xor)                                                \
  RMW(bits, T, fetch_nand, __atomic_fetch_nand)                                              \
  DC_EXPORT int __tsan_atomic##bits##_compare_exchange_strong(volatile T *a, T *c, T v, int mo, \
                                                              int fmo) {                     \
    rd_sync *s = rd_atomic_pre((uintptr_t)a);                                                \
    int ok = __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC()); \
    return ok;                                                                               \
  }                                                                                          \
  DC_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo,   \
                                                            int fmo) {                       \
    rd_sync *s = rd_atomic_pre((uintptr_t)a);                                                \
    int ok = __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC()); \
    return ok;                                                                               \
  }                                                                                          \
  DC_EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo,      \
                                                         int fmo) {                          \
    rd_sync *s = rd_atomic_pre((uintptr_t)a);                                                \
    int ok = __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC()); \
    return c;                                                                                \
  }

#define RMW(bits, T, op, builtin)                                                           \
  DC_EXPORT T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo) {                      \
    rd_sync *s = rd_atomic_pre((uintptr_t)a);                                                \
    T old = builtin(a, v, __ATOMIC_SEQ_CST);                                                 \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, RD_RMW, MO(mo), PC());                         \
    return old;                                                                              \
  }

ATOMICS(8, uint8_t)
ATOMICS(16, uint16_t)
ATOMICS(32, uint32_t)
ATOMICS(64, uint64_t)
#undef RMW

/* 16 bytes: gcc would route __atomic_*_n on __int128 to libatomic; build
 * every operation on the cmpxchg16b compare-and-swap instead (-mcx16). */
static inline u128 cas128(volatile u128 *a, u128 expect, u128 want) {
  return __sync_val_compare_and_swap(a, expect, want);
}
static inline u128 load128(volatile u128 *a) { return cas128(a, 0, 0); }
/* One implementation per operation, shared by __tsan_atomic128_* and the
 * libatomic entry points below; pc is the program's call site. */
enum { OP_XCHG, OP_ADD, OP_SUB, OP_AND, OP_OR, OP_XOR, OP_NAND };
static u128 apply_op(int op, u128 old, u128 v) {
  switch (op) {
  case OP_ADD: return old + v;
  case OP_SUB: return old - v;
  case OP_AND: return old & v;
  case OP_OR: return old | v;
  case OP_XOR: return old ^ v;
  case OP_NAND: return ~(old & v);
  default: return v;
  }
}
/* returns the old value, or the new one with ret_new */
static u128 rmw128(volatile void *p, u128 v, int op, int ret_new, int mo, uintptr_t pc) {
  volatile u128 *a = p;
  rd_sync *s = rd_atomic_pre((uintptr_t)a);
  u128 old = load128(a), seen, nv;
  while ((seen = cas128(a, old, nv = apply_op(op, old, v))) != old) old = seen;
  rd_atomic_post(s, (uintptr_t)a, 16, RD_RMW, MO(mo), pc);
  return ret_new ? nv : old;
}
static u128 ld128(const volatile void *p, int mo, uintptr_t pc) {
  u128 v;
  for (int locked = 0;; locked = 1) { /* (rd_atomic_load_pre) */
    rd_sync *s = rd_atomic_load_pre((uintptr_t)p, MO(mo), locked);
    v = load128((volatile u128 *)p);
    if (rd_atomic_post(s, (uintptr_t)p, 16, RD_LOAD, MO(mo), pc)) return v;
  }
}
static void st128(volatile void *p, u128 v, int mo, uintptr_t pc) {
  volatile u128 *a = p;
  rd_sync *s = rd_atomic_pre((uintptr_t)a);
  u128 old = load128(a), seen;
  while ((seen = cas128(a, old, v)) != old) old = seen;
  rd_atomic_post(s, (uintptr_t)a, 16, RD_STORE, MO(mo), pc);
}

#define RMW128(name, op)                                                         \
  DC_EXPORT u128 __tsan_atomic128_##name(volatile u128 *a, u128 v, int mo) {     \
    return rmw128(a, v, op, 0, mo, PC());                                        \
  }
RMW128(exchange, OP_XCHG)
RMW128(fetch_add, OP_ADD)
RMW128(fetch_sub, OP_SUB)
RMW128(fetch_and, OP_AND)
RMW128(fetch_or, OP_OR)
RMW128(fetch_xor, OP_XOR)
RMW128(fetch_nand, OP_NAND)
#undef RMW128
DC_EXPORT u128 __tsan_atomic128_load(const volatile u128 *a, int mo) { return ld128(a, mo, PC()); }
DC_EXPORT void __tsan_atomic128_store(volatile u128 *a, u128 v, int mo) { st128(a, v, mo, PC()); }
static int cmpxchg128(volatile u128 *a, u128 *c, u128 v, int mo, int fmo, uintptr_t pc) {
  rd_sync *s = rd_atomic_pre((uintptr_t)a);
  u128 seen = cas128(a, *c, v);
  int ok = seen == *c;
  *c = seen;
  rd_atomic_post(s, (uintptr_t)a, 16, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), pc);
  return ok;
}
DC_EXPORT int __tsan_atomic128_compare_exchange_strong(volatile u128 *a, u128 *c, u128 v, int mo,
                                                       int fmo) {
  return cmpxchg128(a, c, v, mo, fmo, PC());
}
DC_EXPORT int __tsan_atomic128_compare_exchange_weak(volatile u128 *a, u128 *c, u128 v, int mo,
                                                     int fmo) {
  return cmpxchg128(a, c, v, mo, fmo, PC());
}
DC_EXPORT u128 __tsan_atomic128_compare_exchange_val(volatile u128 *a, u128 c, u128 v, int mo,
                                                     int fmo) {
  cmpxchg128(a, &c, v, mo, fmo, PC());
  return c;
}

/* ------------------------------------------------------------ libatomic, 16 bytes */
/* Without -mcx16, compilers lower 16-byte atomics to libatomic calls that the
 * instrumentation does not see.  The runtime provides them (the executable's
 * definitions win over libatomic's) and models them like __tsan_atomic128_*. */
#define LIBATOMIC_RMW(name, op, ret_new)                                          \
  DC_EXPORT u128 __atomic_##name##_16(volatile void *p, u128 v, int mo) {         \
    return rmw128(p, v, op, ret_new, mo, PC());                                   \
  }
LIBATOMIC_RMW(exchange, OP_XCHG, 0)
LIBATOMIC_RMW(fetch_add, OP_ADD, 0)
LIBATOMIC_RMW(fetch_sub, OP_SUB, 0)
LIBATOMIC_RMW(fetch_and, OP_AND, 0)
LIBATOMIC_RMW(fetch_or, OP_OR, 0)
LIBATOMIC_RMW(fetch_xor, OP_XOR, 0)
LIBATOMIC_RMW(fetch_nand, OP_NAND, 0)
LIBATOMIC_RMW(add_fetch, OP_ADD, 1)
LIBATOMIC_RMW(sub_fetch, OP_SUB, 1)
LIBATOMIC_RMW(and_fetch, OP_AND, 1)
LIBATOMIC_RMW(or_fetch, OP_OR, 1)
LIBATOMIC_RMW(xor_fetch, OP_XOR, 1)
LIBATOMIC_RMW(nand_fetch, OP_NAND, 1)
#undef LIBATOMIC_RMW
DC_EXPORT u128 __atomic_load_16(const volatile void *p, int mo) { return ld128(p, mo, PC()); }
DC_EXPORT void __atomic_store_16(volatile void *p, u128 v, int mo) { st128(p, v, mo, PC()); }
/* libatomic's ABI has no "weak" argument, unlike gcc's builtin of the same
 * name, hence the assembler label */
DC_EXPORT _Bool dc_atomic_cmpxchg16(volatile void *p, void *expected, u128 desired, int mo,
                                    int fmo) __asm__("__atomic_compare_exchange_16");
DC_EXPORT _Bool dc_atomic_cmpxchg16(volatile void *p, void *expected, u128 desired, int mo,
                                    int fmo) {
  u128 e;
  __builtin_memcpy(&e, expected, sizeof e);
  int ok = cmpxchg128((volatile u128 *)p, &e, desired, mo, fmo, PC());
  __builtin_memcpy(expected, &e, sizeof e);
  return ok;
}

/* libatomic's generic entry points (any size; clang uses them for 16-byte
 * loads, stores, exchanges and compare-exchanges).  Naturally aligned sizes
 * up to 16 are lock-free through cmpxchg; others take a striped lock, as
 * libatomic does.  Assembler labels: gcc's builtins of these names differ. */
static _Atomic int generic_locks[64];
static _Atomic int *glock_of(const volatile void *p) {
  return &generic_locks[((uintptr_t)p >> 4) & 63];
}
static void glock(const volatile void *p) { dc_lock(glock_of(p)); }
static void gunlock(const volatile void *p) { dc_unlock(glock_of(p)); }
static int lock_free(size_t n, const volatile void *p) {
  return (n == 1 || n == 2 || n == 4 || n == 8 || n == 16) && !((uintptr_t)p & (n - 1));
}
/* value-level helpers on naturally aligned 1..16-byte objects */
static u128 gload(size_t n, const volatile void *p) {
  switch (n) {
  case 1: return __atomic_load_n((const volatile uint8_t *)p, __ATOMIC_SEQ_CST);
  case 2: return __atomic_load_n((const volatile uint16_t *)p, __ATOMIC_SEQ_CST);
  case 4: return __atomic_load_n((const volatile uint32_t *)p, __ATOMIC_SEQ_CST);
  case 8: return __atomic_load_n((const volatile uint64_t *)p, __ATOMIC_SEQ_CST);
  default: return load128((volatile u128 *)p);
  }
}
static int gcas(size_t n, volatile void *p, u128 *expect, u128 want) {
  switch (n) {
#define GCAS(T)                                                                       \
  {                                                                                   \
    T e = (T)*expect;                                                                 \
    int ok = __atomic_compare_exchange_n((volatile T *)p, &e, (T)want, 0, __ATOMIC_SEQ_CST, \
                                         __ATOMIC_SEQ_CST);                           \
    *expect = e;                                                                      \
    return ok;                                                                        \
  }
  case 1: GCAS(uint8_t)
  case 2: GCAS(uint16_t)
  case 4: GCAS(uint32_t)
  case 8: GCAS(uint64_t)
#undef GCAS
  default: {
    u128 seen = cas128((volatile u128 *)p, *expect, want);
    int ok = seen == *expect;
    *expect = seen;
    return ok;
  }
  }
}

DC_EXPORT void dc_atomic_load_generic(size_t n, const volatile void *mem, void *ret, int mo)
    __asm__("__atomic_load");
DC_EXPORT void dc_atomic_load_generic(size_t n, const volatile void *mem, void *ret, int mo) {
  for (int locked = 0;; locked = 1) { /* (rd_atomic_load_pre) */
    rd_sync *s = rd_atomic_load_pre((uintptr_t)mem, MO(mo), locked);
    if (lock_free(n, mem)) {
      u128 v = gload(n, mem);
      dc_memcpy(ret, &v, n);
    } else {
      glock(mem);
      for (size_t i = 0; i < n; i++) ((char *)ret)[i] = ((const volatile char *)mem)[i];
      gunlock(mem);
    }
    if (rd_atomic_post(s, (uintptr_t)mem, (unsigned)n, RD_LOAD, MO(mo), PC())) break;
  }
}
DC_EXPORT void dc_atomic_store_generic(size_t n, volatile void *mem, void *val, int mo)
    __asm__("__atomic_store");
DC_EXPORT void dc_atomic_store_generic(size_t n, volatile void *mem, void *val, int mo) {
  rd_sync *s = rd_atomic_pre((uintptr_t)mem);
  if (lock_free(n, mem)) {
    u128 want = 0, old = gload(n, mem);
    dc_memcpy(&want, val, n);
    while (!gcas(n, mem, &old, want)) {
    }
  } else {
    glock(mem);
    for (size_t i = 0; i < n; i++) ((volatile char *)mem)[i] = ((char *)val)[i];
    gunlock(mem);
  }
  rd_atomic_post(s, (uintptr_t)mem, (unsigned)n, RD_STORE, MO(mo), PC());
}
DC_EXPORT void dc_atomic_exchange_generic(size_t n, volatile void *mem, void *val, void *ret,
                                          int mo) __asm__("__atomic_exchange");
DC_EXPORT void dc_atomic_exchange_generic(size_t n, volatile void *mem, void *val, void *ret,
                                          int mo) {
  rd_sync *s = rd_atomic_pre((uintptr_t)mem);
  if (lock_free(n, mem)) {
    u128 want = 0, old = gload(n, mem);
    dc_memcpy(&want, val, n);
    while (!gcas(n, mem, &old, want)) {
    }
    dc_memcpy(ret, &old, n);
  } else {
    glock(mem);
    for (size_t i = 0; i < n; i++) {
      char c = ((volatile char *)mem)[i];
      ((volatile char *)mem)[i] = ((char *)val)[i];
      ((char *)ret)[i] = c;
    }
    gunlock(mem);
  }
  rd_atomic_post(s, (uintptr_t)mem, (unsigned)n, RD_RMW, MO(mo), PC());
}
DC_EXPORT _Bool dc_atomic_cmpxchg_generic(size_t n, volatile void *mem, void *expected,
                                          void *desired, int mo, int fmo)
    __asm__("__atomic_compare_exchange");
DC_EXPORT _Bool dc_atomic_cmpxchg_generic(size_t n, volatile void *mem, void *expected,
                                          void *desired, int mo, int fmo) {
  rd_sync *s = rd_atomic_pre((uintptr_t)mem);
  int ok;
  if (lock_free(n, mem)) {
    u128 e = 0, want = 0;
    dc_memcpy(&e, expected, n);
    dc_memcpy(&want, desired, n);
    ok = gcas(n, mem, &e, want);
    dc_memcpy(expected, &e, n);
  } else {
    glock(mem);
    ok = 1;
    for (size_t i = 0; i < n && ok; i++) ok = ((volatile char *)mem)[i] == ((char *)expected)[i];
    for (size_t i = 0; i < n; i++) {
      if (ok)
        ((volatile char *)mem)[i] = ((char *)desired)[i];
      else
        ((char *)expected)[i] = ((volatile char *)mem)[i];
    }
    gunlock(mem);
  }
  rd_atomic_post(s, (uintptr_t)mem, (unsigned)n, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC());
  return ok;
}

DC_EXPORT void __tsan_atomic_thread_fence(int mo) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
  rd_fence(MO(mo));
}
DC_EXPORT void __tsan_atomic_signal_fence(int mo) {
  (void)mo;
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------ annotations */
DC_EXPORT void __tsan_acquire(void *a) { rd_sync_acquire((uintptr_t)a); }
DC_EXPORT void __tsan_release(void *a) { rd_sync_release((uintptr_t)a); }
/* ignore regions, __tsan_mutex_* and Annotate*: annotations.c */

__attribute__((constructor)) static void atomic_locks(void) {
  dc_atfork_register(DC_RANK_ATOMIC, &generic_locks[0], 64, sizeof(generic_locks[0]));
}
