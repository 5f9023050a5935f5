/* intercept_mmap.c: mappings made, changed and removed by the program
 * (mmap, mmap64, munmap, mremap, mprotect, pkey_mprotect).
 *
 * Memory that a mapping brings is new: whatever the shadow holds for its
 * addresses is the history of an earlier mapping there, whose accesses
 * another thread's first use of the new one must not be checked against
 * (false races, the usual case: a buffer unmapped by one thread and the
 * address handed out again to another), so the new range's shadow is
 * forgotten.  Memory a mapping takes away goes with its history too, and
 * with the synchronisation objects that lived in it (a mutex in a mapped
 * file).  mremap in place forgets the tail it adds or cuts; a move forgets
 * both ranges: the moved pages' history is not carried to their new
 * addresses, so a race between an access before the move and one after it
 * is missed; none is reported that is not there.
 * ThreadSanitizer does the same at munmap and resets or imitates writes at
 * mmap.
 *
 * A read-only file mapping (PROT_READ without PROT_WRITE, not anonymous:
 * a database's tables, a dictionary) is marked so (sh_ro_mark): nothing
 * can write there, so its reads are neither checked nor recorded.  Any
 * later mprotect or munmap over its pages, a move by mremap, a new mapping
 * there, or a heap block's reset takes the mark away for good.  Not
 * marked: anonymous or PROT_NONE mappings (a reservation that mprotect
 * opens later, perhaps by a call we do not see), and memory that mprotect
 * makes read-only (the writes it had must still meet later reads).
 *
 * The real calls are the system calls themselves (dc_sys_*, as glibc's
 * wrappers make them on x86-64): no dlsym bootstrap, and the runtime's own
 * mappings, which use them directly, never come here
 * (tests/scripts/check_runtime_calls.sh).  Forgetting takes no lock but the
 * sync table's buckets, which the program's code never holds, and works
 * before the runtime's initialisation (no shadow yet: nothing to forget). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "intercept.h"

/* [addr, addr + size) is fresh memory, or gone: its accesses and objects
 * (the objects only matter where the range was unmapped unseen, by the
 * raw system call, when it is mapped again; the lookup is a bit per page,
 * or for more than 1 MiB a look at every bucket's head, sync.c) */
static void forget(void *addr, size_t size) {
  if (addr == MAP_FAILED || !size) return;
  sh_forget((uintptr_t)addr, size);
  rd_sync_forget((uintptr_t)addr, size);
}

DC_EXPORT void *mmap(void *addr, size_t size, int prot, int flags, int fd, off_t off) {
  void *p = dc_sys_mmap(addr, size, prot, flags, fd, off);
  forget(p, size); /* (also: not read-only, shadow.c's reset) */
  if (p != MAP_FAILED && size && (prot & PROT_READ) && !(prot & PROT_WRITE) &&
      !(flags & MAP_ANONYMOUS) && fd >= 0)
    sh_ro_mark((uintptr_t)p, size, 1);
  return p;
}
DC_EXPORT void *mmap64(void *addr, size_t size, int prot, int flags, int fd, off_t off) {
  return mmap(addr, size, prot, flags, fd, off);
}

DC_EXPORT int munmap(void *addr, size_t size) {
  const int r = dc_sys_munmap(addr, size);
  if (r == 0) forget(addr, size);
  return r;
}

DC_EXPORT void *mremap(void *old, size_t old_size, size_t size, int flags, ...) {
  void *to = 0;
  if (flags & MREMAP_FIXED) {
    va_list ap;
    va_start(ap, flags);
    to = va_arg(ap, void *);
    va_end(ap);
  }
  void *p = dc_sys_mremap(old, old_size, size, flags, to);
  if (p == MAP_FAILED) return p;
  if (p == old) { /* in place: only the tail grown (fresh) or cut (gone) */
    if (size > old_size)
      forget((char *)old + old_size, size - old_size);
    else
      forget((char *)old + size, old_size - size);
  } else { /* moved: the old range is gone, the new one's shadow is stale */
    forget(old, old_size);
    forget(p, size);
  }
  return p;
}

/* The protection changes: whatever it becomes, the pages are no longer
 * known read-only (above).  Their history stays. */
DC_EXPORT int mprotect(void *addr, size_t size, int prot) {
  const int r = dc_sys_mprotect(addr, size, prot);
  if (r == 0) sh_ro_mark((uintptr_t)addr, size, 0);
  return r;
}
DC_EXPORT int pkey_mprotect(void *addr, size_t size, int prot, int pkey) {
  const int r = (int)syscall(SYS_pkey_mprotect, addr, size, prot, pkey);
  if (r == 0) sh_ro_mark((uintptr_t)addr, size, 0);
  return r;
}
