/* annotations.c: the annotation APIs real code uses to tell a race detector
 * about synchronisation it cannot see: ThreadSanitizer's __tsan_mutex_* and
 * ignore regions, and the dynamic-annotations family (Annotate*), used by
 * abseil, Chromium, LLVM and others.
 *
 * Mutex annotations: post_lock acquires (a read lock: only what writers
 * released), pre_unlock releases (a read unlock: into the readers' clock),
 * exactly like the pthread interceptors.  Between pre_X and post_X the
 * mutex's own implementation runs; its accesses are ignored (TSan does the
 * same), so a custom mutex does not race with itself.
 * Benign races are remembered as address ranges; a report whose accesses all
 * fall inside one is dropped (report.c asks rd_benign). */
#include <stddef.h>

#include "intercept.h" /* PC(): the caller's call, as the interceptors record it */

#define MUTEX_READ_LOCK (1u << 3)
#define MUTEX_TRY_LOCK (1u << 4)
#define MUTEX_TRY_LOCK_FAILED (1u << 5)

static rd_thread *me(void) { return rd_cur(); }
static void ignore_both(int delta) {
  rd_thread *r = me();
  r->ignore_accesses += delta;
  r->ignore_sync += delta;
}

/* ------------------------------------------------------------ __tsan_mutex_* */
DC_EXPORT void __tsan_mutex_create(void *addr, unsigned flags) {
  (void)flags;
  rd_lock_created((uintptr_t)addr, PC());
}
DC_EXPORT void __tsan_mutex_destroy(void *addr, unsigned flags) {
  (void)flags;
  rd_sync_forget((uintptr_t)addr, 1);
}
DC_EXPORT void __tsan_mutex_pre_lock(void *addr, unsigned flags) {
  if (!(flags & MUTEX_TRY_LOCK))
    rd_lock_wanted((uintptr_t)addr, RD_LOCK_OTHER, (flags & MUTEX_READ_LOCK) != 0, RD_RELOCK_OK,
                   PC());
  ignore_both(1);
}
DC_EXPORT void __tsan_mutex_post_lock(void *addr, unsigned flags, int recursion) {
  (void)recursion;
  ignore_both(-1);
  if (flags & MUTEX_TRY_LOCK_FAILED) return;
  const int reader = (flags & MUTEX_READ_LOCK) != 0;
  rd_lock_acquired((uintptr_t)addr, reader, !reader, PC());
}
DC_EXPORT int __tsan_mutex_pre_unlock(void *addr, unsigned flags) {
  rd_unlock_check((uintptr_t)addr, RD_LOCK_OTHER, PC());
  if (flags & MUTEX_READ_LOCK) {
    rd_release_read((uintptr_t)addr);
    rd_mutex_unlocked((uintptr_t)addr | 1);
  } else {
    rd_release((uintptr_t)addr);
    rd_mutex_unlocked((uintptr_t)addr);
  }
  ignore_both(1);
  return 0;
}
DC_EXPORT void __tsan_mutex_post_unlock(void *addr, unsigned flags) {
  (void)addr, (void)flags;
  ignore_both(-1);
}
DC_EXPORT void __tsan_mutex_pre_signal(void *addr, unsigned flags) {
  (void)addr, (void)flags;
  ignore_both(1);
}
DC_EXPORT void __tsan_mutex_post_signal(void *addr, unsigned flags) {
  (void)addr, (void)flags;
  ignore_both(-1);
}
/* divert: the mutex implementation calls user code (e.g. a wait callback):
 * that code is not ignored */
DC_EXPORT void __tsan_mutex_pre_divert(void *addr, unsigned flags) {
  (void)addr, (void)flags;
  ignore_both(-1);
}
DC_EXPORT void __tsan_mutex_post_divert(void *addr, unsigned flags) {
  (void)addr, (void)flags;
  ignore_both(1);
}

/* ------------------------------------------------------------ ignore regions */
DC_EXPORT void __tsan_ignore_thread_begin(void) { ignore_both(1); }
DC_EXPORT void __tsan_ignore_thread_end(void) { ignore_both(-1); }

/* ------------------------------------------------------------ benign races */
typedef struct benign {
  uintptr_t addr, size;
} benign;
#define MAX_BENIGN 4096
static benign benigns[MAX_BENIGN];
static _Atomic uint32_t n_benign;
static _Atomic int benign_lock;

static void add_benign(uintptr_t addr, uintptr_t size) {
  dc_lock(&benign_lock);
  uint32_t n = atomic_load_explicit(&n_benign, memory_order_relaxed);
  int known = 0;
  for (uint32_t i = 0; i < n && !known; i++)
    known = benigns[i].addr == addr && benigns[i].size == size;
  if (!known && n < MAX_BENIGN) {
    benigns[n] = (benign){addr, size};
    atomic_store_explicit(&n_benign, n + 1, memory_order_release);
  }
  dc_unlock(&benign_lock);
}

int rd_benign(uintptr_t addr, uintptr_t size) {
  uint32_t n = atomic_load_explicit(&n_benign, memory_order_acquire);
  for (uint32_t i = 0; i < n; i++)
    if (addr >= benigns[i].addr && addr + size <= benigns[i].addr + benigns[i].size) return 1;
  return 0;
}

/* ------------------------------------------------------------ Annotate* */
#define ANN(name, ...) DC_EXPORT void name(const char *file, int line, ##__VA_ARGS__)

ANN(AnnotateHappensBefore, const volatile void *addr) {
  (void)file, (void)line;
  rd_release((uintptr_t)addr);
}
ANN(AnnotateHappensAfter, const volatile void *addr) {
  (void)file, (void)line;
  rd_acquire((uintptr_t)addr);
}
ANN(AnnotateCondVarSignal, const volatile void *cv) {
  (void)file, (void)line;
  rd_release((uintptr_t)cv);
}
ANN(AnnotateCondVarSignalAll, const volatile void *cv) {
  (void)file, (void)line;
  rd_release((uintptr_t)cv);
}
ANN(AnnotateCondVarWait, const volatile void *cv, const volatile void *lock) {
  (void)file, (void)line, (void)lock;
  rd_acquire((uintptr_t)cv);
}
ANN(AnnotateBenignRaceSized, const volatile void *addr, size_t size, const char *desc) {
  (void)file, (void)line, (void)desc;
  add_benign((uintptr_t)addr, size ? size : 1);
}
/* WebKit's spellings (WTF = its Web Template Framework), as TSan has them */
ANN(WTFAnnotateBenignRaceSized, const volatile void *addr, size_t size, const char *desc) {
  AnnotateBenignRaceSized(file, line, addr, size, desc);
}
ANN(WTFAnnotateHappensBefore, const volatile void *addr) { AnnotateHappensBefore(file, line, addr); }
ANN(WTFAnnotateHappensAfter, const volatile void *addr) { AnnotateHappensAfter(file, line, addr); }
ANN(AnnotateBenignRace, const volatile void *addr, const char *desc) {
  (void)file, (void)line, (void)desc;
  add_benign((uintptr_t)addr, 1);
}
ANN(AnnotateIgnoreReadsBegin) {
  (void)file, (void)line;
  me()->ignore_reads++;
}
ANN(AnnotateIgnoreReadsEnd) {
  (void)file, (void)line;
  me()->ignore_reads--;
}
ANN(AnnotateIgnoreWritesBegin) {
  (void)file, (void)line;
  me()->ignore_writes++;
}
ANN(AnnotateIgnoreWritesEnd) {
  (void)file, (void)line;
  me()->ignore_writes--;
}
ANN(AnnotateIgnoreSyncBegin) {
  (void)file, (void)line;
  me()->ignore_sync++;
}
ANN(AnnotateIgnoreSyncEnd) {
  (void)file, (void)line;
  me()->ignore_sync--;
}
ANN(AnnotateEnableRaceDetection, int enable) {
  (void)file, (void)line;
  ignore_both(enable ? -1 : 1);
}
ANN(AnnotateRWLockCreate, const volatile void *m) {
  (void)file, (void)line;
  rd_lock_created((uintptr_t)m, PC());
}
ANN(AnnotateRWLockCreateStatic, const volatile void *m) {
  (void)file, (void)line, (void)m;
}
ANN(AnnotateRWLockDestroy, const volatile void *m) {
  (void)file, (void)line;
  rd_sync_forget((uintptr_t)m, 1);
}
ANN(AnnotateRWLockAcquired, const volatile void *m, long is_w) {
  (void)file, (void)line;
  rd_lock_acquired((uintptr_t)m, !is_w, !!is_w, PC());
}
ANN(AnnotateRWLockReleased, const volatile void *m, long is_w) {
  (void)file, (void)line;
  if (is_w) {
    rd_release((uintptr_t)m);
    rd_mutex_unlocked((uintptr_t)m);
  } else {
    rd_release_read((uintptr_t)m);
    rd_mutex_unlocked((uintptr_t)m | 1);
  }
}
ANN(AnnotateNewMemory, const volatile void *mem, size_t size) {
  (void)file, (void)line;
  sh_reset((uintptr_t)mem, size);
}
ANN(AnnotatePublishMemoryRange, const volatile void *mem, size_t size) {
  (void)file, (void)line, (void)size;
  rd_release((uintptr_t)mem);
}
ANN(AnnotateUnpublishMemoryRange, const volatile void *mem, size_t size) {
  (void)file, (void)line, (void)size;
  rd_acquire((uintptr_t)mem);
}
ANN(AnnotateThreadName, const char *name) {
  (void)file, (void)line;
  dc_thread_set_name(dc_cur()->serial, name);
}
ANN(AnnotateFlushState) { (void)file, (void)line; }
ANN(AnnotateTraceMemory, const volatile void *arg) { (void)file, (void)line, (void)arg; }
ANN(AnnotateNoOp, const volatile void *arg) { (void)file, (void)line, (void)arg; }
DC_EXPORT int RunningOnValgrind(void) { return 0; }
DC_EXPORT double ValgrindSlowdown(void) { return 1.0; }
DC_EXPORT const char *ThreadSanitizerQuery(const char *query) {
  (void)query;
  return "0";
}

/* ------------------------------------------------------------ external races
 * ThreadSanitizer's API for libraries that check the use of their own
 * objects (sanitizer/tsan_interface.h: a container's read-only and
 * modifying operations): each is a 1-byte read or write of the object's
 * first byte at the pc of the library function that reports it, so two
 * unordered operations, one modifying, are reported as a data race on the
 * object, with both operations' full calling contexts.  A registered tag
 * names a type, and an object given a tag has its type named in the
 * report's location (rd_external_type). */
#define EXTERNAL_TAGS 1024
static const char *external_type[EXTERNAL_TAGS]; /* tag - 1 -> the type's name */
static _Atomic uint32_t external_tags;
static rd_umap external_objects; /* object address -> tag */
static _Atomic int external_lock;

DC_EXPORT void *__tsan_external_register_tag(const char *object_type) {
  const uint32_t i = atomic_fetch_add(&external_tags, 1);
  if (i >= EXTERNAL_TAGS) return 0; /* (no tag: its objects are named by nothing) */
  external_type[i] = object_type;
  return (void *)(uintptr_t)(i + 1);
}
DC_EXPORT void __tsan_external_register_header(void *tag, const char *header) {
  (void)tag, (void)header;
}
DC_EXPORT void __tsan_external_assign_tag(void *addr, void *tag) {
  if (!addr) return;
  dc_lock(&external_lock);
  rd_umap_ent *e = rd_umap_find(&external_objects, (uintptr_t)addr, tag != 0);
  if (e && tag) e->a = (uintptr_t)tag;
  else if (e) rd_umap_del(&external_objects, e);
  dc_unlock(&external_lock);
}
DC_EXPORT void __tsan_external_read(void *addr, void *caller_pc, void *tag) {
  (void)caller_pc, (void)tag;
  rd_access((uintptr_t)addr, 1, 0, PC());
}
DC_EXPORT void __tsan_external_write(void *addr, void *caller_pc, void *tag) {
  (void)caller_pc, (void)tag;
  rd_access((uintptr_t)addr, 1, 1, PC());
}

const char *rd_external_type(uintptr_t addr) {
  if (!atomic_load_explicit(&external_tags, memory_order_relaxed)) return 0;
  dc_lock(&external_lock);
  const rd_umap_ent *e = rd_umap_find(&external_objects, addr, 0);
  const uintptr_t tag = e ? (uintptr_t)e->a : 0;
  dc_unlock(&external_lock);
  return tag && tag <= EXTERNAL_TAGS ? external_type[tag - 1] : 0;
}

__attribute__((constructor)) static void external_locks(void) {
  dc_atfork_register(DC_RANK_EXTERNAL, &external_lock, 1, 0);
}
