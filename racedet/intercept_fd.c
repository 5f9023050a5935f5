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
 * opened twice.  Its key comes from fstat (device and inode, key_of below)
 * when the descriptor is made or first used, and is kept by number
 * (fds[].key) until the number is closed: close, dup2 and dup3 onto it, and
 * the calls that close a descriptor inside libc, which no close interceptor
 * sees (fclose, freopen, pclose, closedir, fcloseall, close_range,
 * closefrom, daemon's dup2s over 0-2), forget it.  A descriptor made unseen afterwards (fopen,
 * fcntl's F_DUPFD) finds no key and asks fstat.  Until 2026-12-01 every
 * call asked fstat, a system call as dear as the pread it came with (1.3
 * us on the benchmark machine): SQLite made 185,000 of them a run.  Every
 * socket shares one key (the two ends of a connection are
 * different inodes; TSan does the same), and so does every anonymous-inode
 * file (eventfd, timerfd and signalfd share the kernel's one inode).  A
 * descriptor fstat cannot see orders nothing.
 *
 * The descriptor itself is a location too, as ThreadSanitizer models it:
 * every call that uses it reads it, close writes it, so a close that is not
 * ordered with another thread's use of the descriptor (the use may then hit
 * whatever file gets the number next) is reported as a data race on the
 * file descriptor.  The location is a word per descriptor number in fds[]
 * (report.c names it "file descriptor N", with the stack that created the
 * descriptor when an interceptor saw that: open, socket, pipe, dup, ...).
 * A descriptor made unseen (fopen, fcntl's F_DUPFD, a library's own system
 * call) is recognised by the file it refers to: when its key differs from
 * the one last seen at that number, its history is dropped, as at a
 * creation.  Creation only drops the history; it is no access. */
#define _GNU_SOURCE
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "intercept.h"

static inline int syncing(void) {
  dc_thread *t = dc_self();
  return t && !t->in_runtime && !t->rd.ignore_sync && !t->rd.disabled;
}

/* ------------------------------------------------------------ keys
 * A file's sync key is an address in a window of the runtime's own (never
 * a program object's), a word each, by a hash of the file's device and
 * inode: KEYS for regular files, then KEYS for the rest (pipes, FIFOs,
 * devices, anonymous inodes), the first of which is every socket's.  Two
 * files whose hashes meet share an object: their calls order each other,
 * which can hide a race, never make one.  Until 2026-12-01 the key was the
 * hash itself (odd, above the address space), and each new pipe's object
 * was made in a region of the meta map (sync.c) of its own: a program that
 * made, used and closed pipes grew by 8 KB a pipe for good (1.59 GB after
 * 200,000 rounds of bench/micro/churn.c's fds, in 44 s; clang TSan 18.7
 * MB in 9-10 s; now 2.9 MB in 11.7 s; tests/racedet/fd_churn_memory.c).
 *
 * The window bounds the objects; the second half's are also counted: the
 * descriptors that keep each key (fds[].key), and a key that no descriptor
 * keeps any more forgets its object.  A pipe's, a socket's or an eventfd's
 * data flows only while a descriptor of it is open here, so nothing that
 * can still be read is lost.  A regular file's contents outlive its
 * descriptors (written, closed, opened again and read), so its object
 * stays. */
#define KEY_BITS 16
#define KEYS (1u << KEY_BITS)
static uint64_t key_space[2 * KEYS]; /* (never touched: addresses only) */
static uint32_t key_refs[KEYS];      /* by counted key (keys_lock) */
static _Atomic int keys_lock;

static inline int counted(uintptr_t k) { return k >= (uintptr_t)&key_space[KEYS]; }
static inline uint32_t *refs_of(uintptr_t k) {
  return &key_refs[(k - (uintptr_t)&key_space[KEYS]) / sizeof key_space[0]];
}

/* The sync key of the file fd refers to, or 0. */
static uintptr_t key_of(int fd) {
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0) return 0;
  if (S_ISSOCK(st.st_mode)) return (uintptr_t)&key_space[KEYS];
  uint64_t id[2] = {st.st_dev, st.st_ino};
  const uint64_t h = dc_hash(id, sizeof id);
  if (S_ISREG(st.st_mode)) return (uintptr_t)&key_space[h & (KEYS - 1)];
  return (uintptr_t)&key_space[KEYS + 1 + h % (KEYS - 1)];
}

/* ------------------------------------------------------------ descriptors */
typedef struct fd_rec {
  uint64_t word;          /* the descriptor as a location (its shadow) */
  _Atomic uintptr_t key;  /* the file's sync key, kept until a close (0: ask fstat) */
  uint32_t tid, ctx;      /* its creation, when seen (ctx 0: unknown) */
  uintptr_t pc;
} fd_rec;
static fd_rec fds[RD_FD_MAX];

static inline int tracked(int fd, dc_thread **t) {
  *t = dc_self();
  return fd >= 0 && fd < RD_FD_MAX && *t && !(*t)->in_runtime;
}

/* fd keeps key k from now on (0: none), instead of the one it kept. */
static void keep_key(int fd, uintptr_t k) {
  const uintptr_t old = atomic_exchange_explicit(&fds[fd].key, k, memory_order_acq_rel);
  if (old == k || !(counted(old) || counted(k))) return;
  dc_lock(&keys_lock);
  if (counted(k)) ++*refs_of(k);
  if (counted(old) && !--*refs_of(old)) rd_sync_forget(old, 1);
  dc_unlock(&keys_lock);
}

/* fd refers to the file of key k now, made by thread t at pc (ctx 0: made
 * unseen): no history */
static void fd_fresh(int fd, uintptr_t k, dc_thread *t, uintptr_t pc, int seen) {
  fd_rec *f = &fds[fd];
  sh_forget((uintptr_t)&f->word, sizeof f->word);
  f->tid = t->serial;
  f->ctx = seen ? rd_ctx_handle(t) : 0;
  f->pc = pc;
  keep_key(fd, k);
}

/* A use of fd at pc (a read; close: a write); returns the file's sync key:
 * the one kept for the number, else fstat's (a descriptor made unseen: its
 * history goes, as at a creation). */
static uintptr_t fd_use(int fd, int is_write, uintptr_t pc) {
  dc_thread *t;
  if (!tracked(fd, &t)) return key_of(fd);
  fd_rec *f = &fds[fd];
  uintptr_t k = atomic_load_explicit(&f->key, memory_order_acquire);
  if (!k) {
    if (!(k = key_of(fd))) return 0;
    fd_fresh(fd, k, t, pc, 0);
  }
  rd_access((uintptr_t)&f->word, sizeof f->word, is_write, pc);
  return k;
}

/* Descriptors [lo, hi] were closed (or replaced) where no interceptor saw
 * it: their kept keys go, so that the next use asks fstat. */
static void fds_closed(long lo, long hi) {
  if (lo < 0) lo = 0;
  if (hi >= RD_FD_MAX) hi = RD_FD_MAX - 1;
  for (long fd = lo; fd <= hi; fd++)
    if (atomic_load_explicit(&fds[fd].key, memory_order_relaxed)) keep_key((int)fd, 0);
}

__attribute__((constructor)) static void keys_init(void) {
  dc_atfork_register(DC_RANK_FDKEYS, &keys_lock, 1, 0);
}

/* A read-like call on fd found nothing to read (EAGAIN): its use of the
 * descriptor, against the history of the file last seen at that number,
 * without asking fstat again (the call acquires nothing, and the file was
 * the one last seen unless another thread closed and reused the number
 * meanwhile, unseen: a race of the program's own).  A non-blocking read
 * polled until data comes cost 479 ns a call with the fstat, against 188
 * native and 230 under clang's TSan.  Returns 0 when the number has no
 * file seen yet (the caller asks fstat then). */
static int fd_use_idle(int fd, uintptr_t pc) {
  dc_thread *t;
  if (!tracked(fd, &t) || !atomic_load_explicit(&fds[fd].key, memory_order_acquire)) return 0;
  rd_access((uintptr_t)&fds[fd].word, sizeof fds[fd].word, 0, pc);
  return 1;
}

/* fd, as a call that makes one returned it (negative: none made), was just
 * made by the interceptor's caller (at pc); returns fd */
static int fd_made(int fd, uintptr_t pc) {
  dc_thread *t;
  if (!tracked(fd, &t)) return fd;
  const uintptr_t k = key_of(fd);
  if (k) fd_fresh(fd, k, t, pc, 1);
  return fd;
}

int rd_fd_of(uintptr_t addr, uint32_t *tid, uint32_t *ctx, uintptr_t *pc) {
  const uintptr_t lo = (uintptr_t)&fds[0].word;
  if (addr < lo || addr >= (uintptr_t)&fds[RD_FD_MAX]) return -1;
  const fd_rec *f = &fds[(addr - lo) / sizeof *f];
  if (addr - (uintptr_t)&f->word >= sizeof f->word) return -1;
  *tid = f->tid;
  *ctx = f->ctx;
  *pc = f->pc;
  return (int)(f - fds);
}

/* The buffers the calls read (a write's) and fill (a read's), as ranges of
 * the caller's, as ThreadSanitizer records them: a read into a buffer that
 * another thread reads meanwhile is a race the program's own code never
 * shows (the kernel writes it).  What was filled is known after the call:
 * the bytes it returned. */
static void buf_range(const void *b, size_t n, int is_write, uintptr_t pc) {
  if (n && watching()) rd_range((uintptr_t)b, n, is_write, pc);
}
/* an iovec array's buffers, n bytes in all at most (a written count) */
static void iov_range(const struct iovec *v, int cnt, size_t n, int is_write, uintptr_t pc) {
  if (!watching()) return;
  for (int i = 0; i < cnt && n; i++) {
    const size_t k = v[i].iov_len < n ? v[i].iov_len : n;
    if (k) rd_range((uintptr_t)v[i].iov_base, k, is_write, pc);
    n -= k;
  }
}
#define ALL ((size_t)-1)
/* the buffers of n messages of sendmmsg (all of each, is_write 0) or of
 * recvmmsg (what each message received: its msg_len) */
static void mmsg_range(const struct mmsghdr *m, unsigned n, int is_write, uintptr_t pc) {
  if (!m || !watching()) return;
  for (unsigned i = 0; i < n; i++)
    iov_range(m[i].msg_hdr.msg_iov, (int)m[i].msg_hdr.msg_iovlen, is_write ? m[i].msg_len : ALL,
              is_write, pc);
}

/* buf: what the call reads of the caller's memory, recorded before it */
#define WRITE_LIKE(ret, name, params, fd, args, buf)                              \
  DC_EXPORT_LEAF ret name params {                                                \
    REAL(ret, name, FD_UNPAREN params);                                           \
    const uintptr_t k = fd_use(fd, 0, PC());                                      \
    buf;                                                                          \
    if (k && syncing()) rd_release(k);                                            \
    return real_##name args;                                                      \
  }
/* (the use is recorded after the call: one that found nothing to read,
 * fd_use_idle, needs no fstat; errno is the call's.)  filled: what the
 * call wrote into the caller's memory, recorded when it returned r >= 0. */
#define READ_LIKE(ret, name, params, fd, args, filled)                            \
  DC_EXPORT_LEAF ret name params {                                                \
    REAL(ret, name, FD_UNPAREN params);                                           \
    ret r = real_##name args;                                                     \
    const int e = errno;                                                          \
    if ((ssize_t)r < 0 && (e == EAGAIN || e == EWOULDBLOCK) && fd_use_idle(fd, PC())) { \
      errno = e;                                                                  \
      return r;                                                                   \
    }                                                                             \
    const uintptr_t k = fd_use(fd, 0, PC());                                      \
    if ((ssize_t)r >= 0) filled;                                                  \
    if (k && (ssize_t)r >= 0 && syncing()) rd_acquire(k);                         \
    errno = e;                                                                    \
    return r;                                                                     \
  }
#define FD_UNPAREN(...) __VA_ARGS__
#define READS(b, n) buf_range(b, n, 0, PC())
#define FILLS(b, n) buf_range(b, (size_t)(n), 1, PC())

WRITE_LIKE(ssize_t, write, (int fd, const void *b, size_t n), fd, (fd, b, n), READS(b, n))
WRITE_LIKE(ssize_t, pwrite, (int fd, const void *b, size_t n, off_t o), fd, (fd, b, n, o),
           READS(b, n))
WRITE_LIKE(ssize_t, pwrite64, (int fd, const void *b, size_t n, off_t o), fd, (fd, b, n, o),
           READS(b, n))
WRITE_LIKE(ssize_t, writev, (int fd, const struct iovec *v, int n), fd, (fd, v, n),
           iov_range(v, n, ALL, 0, PC()))
WRITE_LIKE(ssize_t, pwritev, (int fd, const struct iovec *v, int n, off_t o), fd, (fd, v, n, o),
           iov_range(v, n, ALL, 0, PC()))
WRITE_LIKE(ssize_t, send, (int fd, const void *b, size_t n, int f), fd, (fd, b, n, f),
           READS(b, n))
WRITE_LIKE(ssize_t, sendto,
           (int fd, const void *b, size_t n, int f, const struct sockaddr *a, socklen_t l), fd,
           (fd, b, n, f, a, l), READS(b, n))
WRITE_LIKE(ssize_t, sendmsg, (int fd, const struct msghdr *m, int f), fd, (fd, m, f),
           if (m) iov_range(m->msg_iov, (int)m->msg_iovlen, ALL, 0, PC()))
WRITE_LIKE(int, sendmmsg, (int fd, struct mmsghdr *m, unsigned n, int f), fd, (fd, m, n, f),
           mmsg_range(m, n, 0, PC()))
WRITE_LIKE(int, eventfd_write, (int fd, eventfd_t v), fd, (fd, v), (void)0)

READ_LIKE(ssize_t, read, (int fd, void *b, size_t n), fd, (fd, b, n), FILLS(b, r))
/* the fortified variants (-D_FORTIFY_SOURCE: a read into an object of
 * known size); before, a pipe's or socket's ordering was lost through them */
READ_LIKE(ssize_t, __read_chk, (int fd, void *b, size_t n, size_t room), fd, (fd, b, n, room),
          FILLS(b, r))
READ_LIKE(ssize_t, __pread_chk, (int fd, void *b, size_t n, off_t o, size_t room), fd,
          (fd, b, n, o, room), FILLS(b, r))
READ_LIKE(ssize_t, __pread64_chk, (int fd, void *b, size_t n, off_t o, size_t room), fd,
          (fd, b, n, o, room), FILLS(b, r))
READ_LIKE(ssize_t, __recv_chk, (int fd, void *b, size_t n, size_t room, int f), fd,
          (fd, b, n, room, f), FILLS(b, r))
READ_LIKE(ssize_t, __recvfrom_chk,
          (int fd, void *b, size_t n, size_t room, int f, struct sockaddr *a, socklen_t *l), fd,
          (fd, b, n, room, f, a, l), FILLS(b, r))
READ_LIKE(ssize_t, pread, (int fd, void *b, size_t n, off_t o), fd, (fd, b, n, o), FILLS(b, r))
READ_LIKE(ssize_t, pread64, (int fd, void *b, size_t n, off_t o), fd, (fd, b, n, o),
          FILLS(b, r))
READ_LIKE(ssize_t, readv, (int fd, const struct iovec *v, int n), fd, (fd, v, n),
          iov_range(v, n, (size_t)r, 1, PC()))
READ_LIKE(ssize_t, preadv, (int fd, const struct iovec *v, int n, off_t o), fd, (fd, v, n, o),
          iov_range(v, n, (size_t)r, 1, PC()))
READ_LIKE(ssize_t, recv, (int fd, void *b, size_t n, int f), fd, (fd, b, n, f), FILLS(b, r))
READ_LIKE(ssize_t, recvfrom,
          (int fd, void *b, size_t n, int f, struct sockaddr *a, socklen_t *l), fd,
          (fd, b, n, f, a, l), FILLS(b, r))
READ_LIKE(ssize_t, recvmsg, (int fd, struct msghdr *m, int f), fd, (fd, m, f),
          iov_range(m->msg_iov, (int)m->msg_iovlen, (size_t)r, 1, PC()))
READ_LIKE(int, recvmmsg,
          (int fd, struct mmsghdr *m, unsigned n, int f, struct timespec *t), fd,
          (fd, m, n, f, t), mmsg_range(m, (unsigned)r, 1, PC()))
READ_LIKE(int, eventfd_read, (int fd, eventfd_t *v), fd, (fd, v), FILLS(v, sizeof *v))

/* epoll: what a thread registers (epoll_ctl, often with a pointer to its
 * object in the event's data) comes before a wait that returns events, as
 * in ThreadSanitizer: an event loop's worker that gets a connection object
 * through epoll_wait reads what its registrar wrote (a false race before).
 * A wait that returns no event orders nothing. */
WRITE_LIKE(int, epoll_ctl, (int ep, int op, int fd, struct epoll_event *e), ep, (ep, op, fd, e),
           (void)0)
#define EPOLL_WAIT(name, params, args)                                            \
  DC_EXPORT_LEAF int name params {                                                \
    REAL(int, name, FD_UNPAREN params);                                           \
    const uintptr_t k = fd_use(ep, 0, PC());                                      \
    const int r = real_##name args;                                               \
    if (k && r > 0 && syncing()) rd_acquire(k);                                   \
    return r;                                                                     \
  }
EPOLL_WAIT(epoll_wait, (int ep, struct epoll_event *e, int n, int t), (ep, e, n, t))
EPOLL_WAIT(epoll_pwait, (int ep, struct epoll_event *e, int n, int t, const sigset_t *s),
           (ep, e, n, t, s))

/* ------------------------------------------------------------ made and closed */
DC_EXPORT_LEAF int close(int fd) {
  REAL(int, close, int);
  fd_use(fd, 1, PC());
  const int r = real_close(fd);
  fds_closed(fd, fd); /* (errno stays the call's) */
  return r;
}

/* a stream's and a directory's descriptors (-1: none; the pointers may be
 * null, whatever the headers say, and the real call reports it) */
static int file_fd(FILE *f) { return f ? fileno(f) : -1; }
static int dir_fd(DIR *d) { return d ? dirfd(d) : -1; }

/* libc's calls that close descriptors inside: n descriptors from first
 * (found before the real call, args; the stream's or directory's number,
 * -1 for none), forgotten after it */
#define CLOSES_INSIDE(ret, name, params, args, first, n)                          \
  DC_EXPORT_LEAF ret name params {                                                \
    REAL(ret, name, FD_UNPAREN params);                                           \
    const long lo = first;                                                        \
    ret r = real_##name args;                                                     \
    fds_closed(lo, lo + (n) - 1);                                                 \
    return r;                                                                     \
  }
CLOSES_INSIDE(int, fclose, (FILE *f), (f), file_fd(f), 1)
CLOSES_INSIDE(int, pclose, (FILE *f), (f), file_fd(f), 1)
CLOSES_INSIDE(int, closedir, (DIR *d), (d), dir_fd(d), 1)
/* freopen closes the stream's descriptor and opens another (r's), perhaps
 * with the same number */
#define FREOPEN(name)                                                             \
  DC_EXPORT_LEAF FILE *name(const char *path, const char *mode, FILE *f) {        \
    REAL(FILE *, name, const char *, const char *, FILE *);                       \
    const int fd = file_fd(f);                                                    \
    FILE *r = real_##name(path, mode, f);                                         \
    fds_closed(fd, fd);                                                           \
    fds_closed(file_fd(r), file_fd(r));                                           \
    return r;                                                                     \
  }
FREOPEN(freopen)
FREOPEN(freopen64)
CLOSES_INSIDE(int, fcloseall, (void), (), 0, RD_FD_MAX)
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
/* (with CLOSE_RANGE_CLOEXEC nothing is closed yet; a call that failed may
 * have closed some: forgetting a key costs only an fstat) */
DC_EXPORT_LEAF int close_range(unsigned lo, unsigned hi, int flags) {
  REAL(int, close_range, unsigned, unsigned, int);
  const int r = real_close_range(lo, hi, flags);
  if (!(flags & CLOSE_RANGE_CLOEXEC)) fds_closed(lo, hi);
  return r;
}
DC_EXPORT_LEAF void closefrom(int lo) {
  REAL(void, closefrom, int);
  real_closefrom(lo);
  fds_closed(lo, RD_FD_MAX - 1);
}
/* daemon's child (the caller, on return) may have put /dev/null on 0-2 */
CLOSES_INSIDE(int, daemon, (int nochdir, int noclose), (nochdir, noclose), 0, 3)

/* calls that return a new descriptor */
#define MAKES_FD(name, params, args)                                              \
  DC_EXPORT_LEAF int name params {                                                \
    REAL(int, name, FD_UNPAREN params);                                           \
    return fd_made(real_##name args, PC());                                       \
  }
MAKES_FD(socket, (int d, int t, int p), (d, t, p))
MAKES_FD(accept, (int fd, struct sockaddr *a, socklen_t *l), (fd, a, l))
MAKES_FD(accept4, (int fd, struct sockaddr *a, socklen_t *l, int f), (fd, a, l, f))
MAKES_FD(eventfd, (unsigned v, int f), (v, f))
MAKES_FD(epoll_create1, (int f), (f))
MAKES_FD(creat, (const char *p, mode_t m), (p, m))

/* open and openat take a mode only with O_CREAT or O_TMPFILE (params end
 * with int flags; types: theirs) */
static mode_t mode_arg(int flags, va_list ap) {
  return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}
#define OPEN(name, params, types, args)                                           \
  DC_EXPORT_LEAF int name(FD_UNPAREN params, ...) {                               \
    REAL(int, name, FD_UNPAREN types, ...);                                       \
    va_list ap;                                                                   \
    va_start(ap, flags);                                                          \
    const mode_t m = mode_arg(flags, ap);                                         \
    va_end(ap);                                                                   \
    return fd_made(real_##name(FD_UNPAREN args, m), PC());                        \
  }
OPEN(open, (const char *path, int flags), (const char *, int), (path, flags))
OPEN(open64, (const char *path, int flags), (const char *, int), (path, flags))
OPEN(openat, (int dir, const char *path, int flags), (int, const char *, int), (dir, path, flags))
OPEN(openat64, (int dir, const char *path, int flags), (int, const char *, int),
     (dir, path, flags))

/* calls that fill two descriptors */
#define MAKES_FD2(name, params, args, pair)                                       \
  DC_EXPORT_LEAF int name params {                                                \
    REAL(int, name, FD_UNPAREN params);                                           \
    const int r = real_##name args;                                               \
    if (r == 0) {                                                                 \
      fd_made(pair[0], PC());                                                     \
      fd_made(pair[1], PC());                                                     \
    }                                                                             \
    return r;                                                                     \
  }
MAKES_FD2(pipe, (int p[2]), (p), p)
MAKES_FD2(pipe2, (int p[2], int f), (p, f), p)
MAKES_FD2(socketpair, (int d, int t, int pr, int sv[2]), (d, t, pr, sv), sv)

/* dup reads the old descriptor; dup2 and dup3 also close the new one if it
 * was open (a write), then make it */
DC_EXPORT_LEAF int dup(int old) {
  REAL(int, dup, int);
  fd_use(old, 0, PC());
  return fd_made(real_dup(old), PC());
}
static void dup_onto(int old, int fd, uintptr_t pc) {
  fd_use(old, 0, pc);
  if (fd != old) fd_use(fd, 1, pc);
}
DC_EXPORT_LEAF int dup2(int old, int fd) {
  REAL(int, dup2, int, int);
  dup_onto(old, fd, PC());
  const int r = real_dup2(old, fd);
  return r == old ? r : fd_made(r, PC()); /* onto itself: nothing made */
}
DC_EXPORT_LEAF int dup3(int old, int fd, int flags) {
  REAL(int, dup3, int, int, int);
  dup_onto(old, fd, PC());
  return fd_made(real_dup3(old, fd, flags), PC());
}
