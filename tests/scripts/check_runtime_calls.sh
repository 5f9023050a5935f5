#!/bin/sh
# The runtime must not call the functions its own interceptors define (it
# would then watch its own memory, or recurse): only the interceptor files may
# reference them, and only through the real functions.  $1 = object dir.
set -e
dir=$1
bad=0
for o in $(find "$dir" -name '*.o' ! -name 'intercept_*'); do
  hits=$(objdump -dr "$o" | grep -E 'R_X86_64_(PLT32|PC32|GOTPCREL[A-Z]*)\s+(memcpy|memmove|memset|memcmp|strlen|strcpy|strncpy|strcat|strcmp|strncmp|strchr|strdup|malloc|calloc|realloc|free)-' || true)
  if [ -n "$hits" ]; then
    echo "FAIL: $o calls intercepted functions:"
    echo "$hits"
    bad=1
  fi
done
[ $bad = 0 ] && echo "runtime objects call no intercepted function"
exit $bad
