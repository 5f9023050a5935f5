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

DC_EXPORT void __tsan_init(void) { dc_cur(); }
DC_EXPORT void __tsan_flush_memory(void) {}

/* ------------------------------------------------------------ plain accesses */
#define ACCESS(size)                                                                     \
  DC_EXPORT void __tsan_read##size(void *a) { rd_access((uintptr_t)a, size, 0, PC()); }  \
  DC_EXPORT void __tsan_write##size(void *a) { rd_access((uintptr_t)a, size, 1, PC()); } \
  DC_EXPORT void __tsan_read##size##_pc(void *a, void *pc) {                             \
    rd_access((uintptr_t)a, size, 0, (uintptr_t)pc);                                     \
  }                                                                                      \
  DC_EXPORT void __tsan_write##size##_pc(void *a, void *pc) {                            \
    rd_access((uintptr_t)a, size, 1, (uintptr_t)pc);                                     \
  }                                                                                      \
  DC_EXPORT void __tsan_volatile_read##size(void *a) { rd_access((uintptr_t)a, size, 0, PC()); } \
  DC_EXPORT void __tsan_volatile_write##size(void *a) { rd_access((uintptr_t)a, size, 1, PC()); }
ACCESS(1)
ACCESS(2)
ACCESS(4)
ACCESS(8)
ACCESS(16)

#define UNALIGNED(size)                                                                  \
  DC_EXPORT void __tsan_unaligned_read##size(void *a) { rd_access((uintptr_t)a, size, 0, PC()); } \
  DC_EXPORT void __tsan_unaligned_write##size(void *a) {                                 \
    rd_access((uintptr_t)a, size, 1, PC());                                              \
  }                                                                                      \
  DC_EXPORT void __tsan_unaligned_volatile_read##size(void *a) {                         \
    rd_access((uintptr_t)a, size, 0, PC());                                              \
  }                                                                                      \
  DC_EXPORT void __tsan_unaligned_volatile_write##size(void *a) {                        \
    rd_access((uintptr_t)a, size, 1, PC());                                              \
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
  if (*p != v) rd_access((uintptr_t)p, sizeof(void *), 1, PC());
}
DC_EXPORT void __tsan_vptr_read(void **p) { rd_access((uintptr_t)p, sizeof(void *), 0, PC()); }

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
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_LOAD);                                       \
    T v = __atomic_load_n(a, __ATOMIC_SEQ_CST);                                              \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, RD_LOAD, MO(mo), PC());                        \
    return v;                                                                                \
  }                                                                                          \
  DC_EXPORT void __tsan_atomic##bits##_store(volatile T *a, T v, int mo) {                  \
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_STORE);                                      \
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
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_RMW);                                        \
    int ok = __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC()); \
    return ok;                                                                               \
  }                                                                                          \
  DC_EXPORT int __tsan_atomic##bits##_compare_exchange_weak(volatile T *a, T *c, T v, int mo,   \
                                                            int fmo) {                       \
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_RMW);                                        \
    int ok = __atomic_compare_exchange_n(a, c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC()); \
    return ok;                                                                               \
  }                                                                                          \
  DC_EXPORT T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int mo,      \
                                                         int fmo) {                          \
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_RMW);                                        \
    int ok = __atomic_compare_exchange_n(a, &c, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
    rd_atomic_post(s, (uintptr_t)a, bits / 8, ok ? RD_RMW : RD_LOAD, MO(ok ? mo : fmo), PC()); \
    return c;                                                                                \
  }

#define RMW(bits, T, op, builtin)                                                           \
  DC_EXPORT T __tsan_atomic##bits##_##op(volatile T *a, T v, int mo) {                      \
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_RMW);                                        \
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
#define RMW(bits, T, op, expr)                                                              \
  DC_EXPORT T __tsan_atomic128_##op(volatile T *a, T v, int mo) {                           \
    rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_RMW);                                        \
    T old = load128(a), seen;                                                                \
    while ((seen = cas128(a, old, (expr))) != old) old = seen;                               \
    rd_atomic_post(s, (uintptr_t)a, 16, RD_RMW, MO(mo), PC());                               \
    return old;                                                                              \
  }
RMW(128, u128, exchange, v)
RMW(128, u128, fetch_add, old + v)
RMW(128, u128, fetch_sub, old - v)
RMW(128, u128, fetch_and, old & v)
RMW(128, u128, fetch_or, old | v)
RMW(128, u128, fetch_xor, old ^ v)
RMW(128, u128, fetch_nand, ~(old & v))
#undef RMW
DC_EXPORT u128 __tsan_atomic128_load(const volatile u128 *a, int mo) {
  rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_LOAD);
  u128 v = load128((volatile u128 *)a);
  rd_atomic_post(s, (uintptr_t)a, 16, RD_LOAD, MO(mo), PC());
  return v;
}
DC_EXPORT void __tsan_atomic128_store(volatile u128 *a, u128 v, int mo) {
  rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_STORE);
  u128 old = load128(a), seen;
  while ((seen = cas128(a, old, v)) != old) old = seen;
  rd_atomic_post(s, (uintptr_t)a, 16, RD_STORE, MO(mo), PC());
}
static int cmpxchg128(volatile u128 *a, u128 *c, u128 v, int mo, int fmo, uintptr_t pc) {
  rd_sync *s = rd_atomic_pre((uintptr_t)a, RD_RMW);
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
DC_EXPORT void __tsan_ignore_thread_begin(void) {}
DC_EXPORT void __tsan_ignore_thread_end(void) {}
