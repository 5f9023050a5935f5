/* racedet.h: the race detector's event interface.  The instrumentation ABI
 * (tsan_abi.c) and the interceptors call these; the happens-before engine
 * behind them is issue #3.  Until it lands they accept and ignore events. */
#ifndef DACCE_RACEDET_H
#define DACCE_RACEDET_H
#include <stdint.h>

enum { RD_LOAD = 0, RD_STORE = 1, RD_RMW = 2 };

static inline void rd_access(uintptr_t addr, unsigned size, int is_write, uintptr_t pc) {
  (void)addr, (void)size, (void)is_write, (void)pc;
}
static inline void rd_range(uintptr_t addr, unsigned long size, int is_write, uintptr_t pc) {
  (void)addr, (void)size, (void)is_write, (void)pc;
}
static inline void rd_atomic(uintptr_t addr, unsigned size, int kind, int mo, uintptr_t pc) {
  (void)addr, (void)size, (void)kind, (void)mo, (void)pc;
}
static inline void rd_fence(int mo) { (void)mo; }
static inline void rd_sync_acquire(uintptr_t addr) { (void)addr; }
static inline void rd_sync_release(uintptr_t addr) { (void)addr; }
#endif
