#!/bin/sh
# The runtime must not call the functions its own interceptors define (it
# would then watch its own memory, order its own I/O as the program's, or
# recurse): only the interceptor files may reference them, and only through
# the real functions; the runtime's own I/O is dc_write/dc_read (raw system
# calls).  Nor qsort, which allocates and frees through the malloc family:
# a program's own allocator, called from under the runtime's locks.
# $1 = object dir.
set -e
dir=$1
bad=0
for o in $(find "$dir" -name '*.o' ! -name 'intercept_*'); do
  hits=$(objdump -dr "$o" | grep -E 'R_X86_64_(PLT32|PC32|GOTPCREL[A-Z]*)\s+(memcpy|memmove|memset|memcmp|strlen|strcpy|strncpy|strcat|strcmp|strncmp|strchr|strdup|strnlen|strrchr|strchrnul|memchr|memrchr|strstr|strspn|strcspn|strpbrk|strcasecmp|strncasecmp|bcmp|strndup|strncat|stpcpy|stpncpy|mempcpy|bzero|explicit_bzero|__[a-z0-9_]+_chk|signal|bsd_signal|sysv_signal|__sysv_signal|sigset|malloc|calloc|realloc|free|write|pwrite|pwrite64|writev|pwritev|send|sendto|sendmsg|sendmmsg|eventfd_write|read|pread|pread64|readv|preadv|recv|recvfrom|recvmsg|recvmmsg|eventfd_read|mmap|mmap64|munmap|mremap|mprotect|pkey_mprotect|close|open|open64|openat|openat64|creat|socket|accept|accept4|eventfd|epoll_create1|pipe|pipe2|socketpair|dup|dup2|dup3|v?s?n?printf|v?dprintf|v?fprintf|v?asprintf|fread|fread_unlocked|fwrite|fwrite_unlocked|fgets|fgets_unlocked|fputs|fputs_unlocked|puts|getline|getdelim|__getdelim|v?[fs]?scanf|__isoc99_v?[fs]?scanf|strto[a-z]+|ato[a-z]+|fclose|pclose|closedir|freopen|freopen64|fcloseall|close_range|closefrom|daemon|qsort)-' || true)
  if [ -n "$hits" ]; then
    echo "FAIL: $o calls intercepted functions:"
    echo "$hits"
    bad=1
  fi
done
[ $bad = 0 ] && echo "runtime objects call no intercepted function"
exit $bad
