/* leveldb_atomic_pointer.h: LevelDB 1.20's AtomicPointer on std::atomic,
 * force-included (-include) ahead of the library's own port/atomic_pointer.h,
 * whose include guard it defines so that the library's header is skipped.
 *
 * On x86-64, LevelDB 1.20's header keeps the pointer in a plain field and
 * orders its loads and stores with a compiler barrier alone (the x86
 * memory model does the rest).  That is a data race in the C++ memory
 * model, and both ThreadSanitizers and dacce-race report it on every
 * concurrent read of the memtable's skiplist: a benchmark of race-free
 * code needs the atomic version.  This class is the one the same header
 * uses where std::atomic is present and no barrier is (its
 * LEVELDB_ATOMIC_PRESENT branch), which is what LevelDB itself moved to
 * in 1.21.  Only bench/run.py uses it (the leveldb workload). */
#ifndef PORT_ATOMIC_POINTER_H_
#define PORT_ATOMIC_POINTER_H_

#include <atomic>

namespace leveldb {
namespace port {

class AtomicPointer {
 public:
  AtomicPointer() {}
  explicit AtomicPointer(void* v) : rep_(v) {}
  void* Acquire_Load() const { return rep_.load(std::memory_order_acquire); }
  void Release_Store(void* v) { rep_.store(v, std::memory_order_release); }
  void* NoBarrier_Load() const { return rep_.load(std::memory_order_relaxed); }
  void NoBarrier_Store(void* v) { rep_.store(v, std::memory_order_relaxed); }

 private:
  std::atomic<void*> rep_;
};

}  // namespace port
}  // namespace leveldb

#endif
