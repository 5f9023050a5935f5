/* exercise_abi.c: touches every kind of event the instrumentation can emit
 * (plain, unaligned, volatile, 16-byte, atomics of every width and operation,
 * fences), so the ABI test sees the whole surface.  Also run: it must exit 0
 * and report nothing (single-threaded).
 *
 * EXPECT: clean
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct __attribute__((packed)) packed {
  char c;
  int16_t s;
  int32_t i;
  int64_t l;
  __int128 q;
};
static volatile int vol;
static __int128 wide;
static struct packed pk;

#define OPS(T, v)                                                                 \
  do {                                                                            \
    static T x;                                                                   \
    T e = 0;                                                                      \
    __atomic_store_n(&x, (T)1, __ATOMIC_RELEASE);                                 \
    (void)__atomic_load_n(&x, __ATOMIC_ACQUIRE);                                  \
    (void)__atomic_exchange_n(&x, (T)2, __ATOMIC_ACQ_REL);                        \
    (void)__atomic_fetch_add(&x, (T)1, __ATOMIC_RELAXED);                         \
    (void)__atomic_fetch_sub(&x, (T)1, __ATOMIC_SEQ_CST);                         \
    (void)__atomic_fetch_and(&x, (T)3, __ATOMIC_SEQ_CST);                         \
    (void)__atomic_fetch_or(&x, (T)4, __ATOMIC_SEQ_CST);                          \
    (void)__atomic_fetch_xor(&x, (T)5, __ATOMIC_SEQ_CST);                         \
    (void)__atomic_fetch_nand(&x, (T)6, __ATOMIC_SEQ_CST);                        \
    (void)__atomic_compare_exchange_n(&x, &e, (T)7, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED); \
    (void)__atomic_compare_exchange_n(&x, &e, (T)8, 1, __ATOMIC_ACQUIRE, __ATOMIC_ACQUIRE); \
    v += (long)x;                                                                 \
  } while (0)

__attribute__((noinline)) long exercise(char *buf, size_t n) {
  long v = 0;
  OPS(uint8_t, v);
  OPS(uint16_t, v);
  OPS(uint32_t, v);
  OPS(uint64_t, v);
  OPS(unsigned __int128, v);
  atomic_thread_fence(memory_order_seq_cst);
  atomic_thread_fence(memory_order_acquire);
  atomic_thread_fence(memory_order_release);
  atomic_signal_fence(memory_order_seq_cst);
  vol = vol + 1;
  wide += 3;
  pk.s++;
  pk.i++;
  pk.l++;
  pk.q++;
  memcpy(buf, buf + n / 2, n / 2);
  memmove(buf + 1, buf, n / 2);
  memset(buf, 0, n / 4);
  return v + vol + (long)wide + pk.s + pk.i + (long)pk.l + (long)pk.q;
}

int main(void) {
  char buf[256] = {1};
  long v = exercise(buf, sizeof buf);
  printf("abi %ld\n", v);
  return 0;
}
