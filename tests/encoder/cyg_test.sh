#!/bin/sh
# The encoder's second event source: -finstrument-functions hooks, without
# ThreadSanitizer.  A gcc and a clang build linked with the runtime object run
# under full verification; contexts captured through the public API decode to
# the expected functions.  $1 = source dir, $2 = build dir.
set -e
src=$1
build=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/p.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <setjmp.h>
#include "dacce.h"
static jmp_buf jb;
__attribute__((noinline)) int leaf(int x) { return x + 1; }
__attribute__((noinline)) int rec(int n) { return n ? rec(n - 1) + leaf(n) : leaf(0); }
__attribute__((noinline)) void jumper(int n) { if (n == 0) longjmp(jb, 1); jumper(n - 1); }
__attribute__((noinline)) void show(void) {
  dacce_ctx c;
  dacce_capture(&c);
  dacce_frame f[16];
  int n = dacce_decode(&c, f, 16, 1);
  printf("frames %d\n", n);
}
/* inlined at -O2: its hooks run in worker's frame, at worker's stack pointer */
static inline __attribute__((always_inline)) void inl(void) { show(); }
__attribute__((noinline)) void *worker(void *a) { rec(50); inl(); return a; }
int main(void) {
  for (int i = 0; i < 2000; i++) rec(i % 20);
  if (!setjmp(jb)) jumper(30);
  leaf(3);
  pthread_t t;
  pthread_create(&t, 0, worker, 0);
  pthread_join(t, 0);
  show();
  return 0;
}
C
for cc in gcc clang; do
  $cc -O2 -g -finstrument-functions -I"$src/encoder/include" "$tmp/p.c" \
      "$build/lib/dacce/dacce_rt.o" -o "$tmp/p_$cc" -lpthread -ldl
  DACCE_OPTIONS=verify=1:stats=1 "$tmp/p_$cc" > "$tmp/out_$cc" 2> "$tmp/err_$cc" || {
    echo "FAIL: $cc run failed"; cat "$tmp/err_$cc"; exit 1; }
  grep -q "mismatches 0" "$tmp/err_$cc" || { echo "FAIL: $cc verification"; cat "$tmp/err_$cc"; exit 1; }
  v=$(sed -n 's/.*verified contexts \([0-9]*\).*/\1/p' "$tmp/err_$cc")
  [ "$v" -gt 10000 ] || { echo "FAIL: $cc verified only $v contexts"; exit 1; }
  # worker's show(): show, inl, worker, then the creator's main (ancestry): 4
  # main's show(): show, main: 2 frames
  printf 'frames 4\nframes 2\n' | cmp -s - "$tmp/out_$cc" || {
    echo "FAIL: $cc decoded frame counts:"; cat "$tmp/out_$cc"; exit 1; }
  echo "$cc: $v contexts verified, decoded frame counts as expected"
done
