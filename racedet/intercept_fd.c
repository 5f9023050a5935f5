/* intercept_fd.c: happens-before through file descriptors.
 *
 * Threads hand work to each other through pipes, eventfds, sockets and
 * files: a write to a pipe happens before the read that returns its bytes.
 * Without this, a pointer passed through a pipe made every access to the
 * data it points to a false race.  As ThreadSanitizer does, a write-like
 * call releases into the descriptor's sync object before it runs, and a
 * successful read-like call acquires from it afterwards.
 *
 * The object is the file the descriptor refers to, not the descriptor: the
 * two ends of a pipe are two descriptors of one pipe inode, and a file may be
 * opened twice.  Its key comes from fstat (device and inode) at every call:
 * a cache by descriptor would go stale when libc closes one inside fclose
 * and the number is reused, which no interceptor sees (a syscall next to a
 * syscall; SQLite's thousands of pread/pwrite calls did not show in its
 * time).  Every socket shares one key (the two ends of a connection are
 * different inodes; TSan does the same), and so does every anonymous-inode
 * file (eventfd, timerfd and signalfd share the kernel's one inode).  A
 * descriptor fstat cannot see orders nothing. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "intercept.h"

static char socket_key; /* the address of this is every socket's key */

static inline int syncing(void) {
  dc_thread *t = dc_self();
  return t && !t->in_runtime && !t->rd.ignore_sync && !t->rd.disabled;
}

/* The sync key of the file fd refers to, or 0. */
static uintptr_t key_of(int fd) {
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return 0;
  if (S_ISSOCK(st.st_mode)) return (uintptr_t)&socket_key;
  uint64_t id[2] = {st.st_dev, st.st_ino};
  /* odd, and nearly always above the address space: never an object's */
  return (uintptr_t)(dc_hash(id, sizeof id) | 1);
}

static void before_write(int fd) {
  if (!syncing()) return;
  uintptr_t k = key_of(fd);
  if (k) rd_release(k);
}
static void after_read(int fd, ssize_t got) {
  if (got < 0 || !syncing()) return;
  uintptr_t k = key_of(fd);
  if (k) rd_acquire(k);
}

#define WRITE_LIKE(ret, name, params, fd, args)                                   \
  DC_EXPORT ret name params {                                                     \
    REAL(ret, name, FD_UNPAREN params);                                           \
    before_write(fd);                                                             \
    return real_##name args;                                                      \
  }
#define READ_LIKE(ret, name, params, fd, args)                                    \
  DC_EXPORT ret name params {                                                     \
    REAL(ret, name, FD_UNPAREN params);                                           \
    ret r = real_##name args;                                                     \
    after_read(fd, (ssize_t)r);                                                   \
    return r;                                                                     \
  }
#define FD_UNPAREN(...) __VA_ARGS__

WRITE_LIKE(ssize_t, write, (int fd, const void *b, size_t n), fd, (fd, b, n))
WRITE_LIKE(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), fd, (fd, b, n, o))
WRITE_LIKE(ssize_t, pwrite64, (int fd, const void *b, size_t n, off_t o), fd, (fd, b, n, o))
WRITE_LIKE(ssize_t, writev, (int fd, const struct iovec *v, int n), fd, (fd, v, n))
WRITE_LIKE(ssize_t, pwritev, (int fd, const struct iovec *v, int n, off_t o), fd, (fd, v, n, o))
WRITE_LIKE(ssize_t, send, (int fd, const void *b, size_t n, int f), fd, (fd, b, n, f))
WRITE_LIKE(ssize_t, sendto,
           (int fd, const void *b, size_t n, int f, const struct sockaddr *a, socklen_t l), fd,
           (fd, b, n, f, a, l))
WRITE_LIKE(ssize_t, sendmsg, (int fd, const struct msghdr *m, int f), fd, (fd, m, f))
WRITE_LIKE(int, sendmmsg, (int fd, struct mmsghdr *m, unsigned n, int f), fd, (fd, m, n, f))
WRITE_LIKE(int, eventfd_write, (int fd, eventfd_t v), fd, (fd, v))

READ_LIKE(ssize_t, read, (int fd, void *b, size_t n), fd, (fd, b, n))
READ_LIKE(ssize_t, pread, (int fd, void *b, size_t n, off_t o), fd, (fd, b, n, o))
READ_LIKE(ssize_t, pread64, (int fd, void *b, size_t n, off_t o), fd, (fd, b, n, o))
READ_LIKE(ssize_t, readv, (int fd, const struct iovec *v, int n), fd, (fd, v, n))
READ_LIKE(ssize_t, preadv, (int fd, const struct iovec *v, int n, off_t o), fd, (fd, v, n, o))
READ_LIKE(ssize_t, recv, (int fd, void *b, size_t n, int f), fd, (fd, b, n, f))
READ_LIKE(ssize_t, recvfrom,
          (int fd, void *b, size_t n, int f, struct sockaddr *a, socklen_t *l), fd,
          (fd, b, n, f, a, l))
READ_LIKE(ssize_t, recvmsg, (int fd, struct msghdr *m, int f), fd, (fd, m, f))
READ_LIKE(int, eventfd_read, (int fd, eventfd_t *v), fd, (fd, v))
