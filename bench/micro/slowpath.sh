#!/bin/sh
# slowpath.sh BUILD [RUNS]: the slow path per access, dacce-race against
# clang's ThreadSanitizer, side by side (bench/micro/slowpath.c says what each
# mode does).  Prints, per mode: the median ns per access of each (RUNS runs,
# default 5, alternating), their ratio, and, when valgrind is installed,
# dacce-race's instructions per access (callgrind; exact, so it shows a change
# that the noise of a shared machine would hide).
set -eu
B=${1:?usage: slowpath.sh BUILD [RUNS]}
RUNS=${2:-5}
NAME=slowpath.sh
. "$(dirname "$0")/setup.sh"
DACCE_CC=clang "$B/bin/dacce-cc" -O2 -g "$here/slowpath.c" -o "$w/dacce" -pthread
clang -O2 -g -fsanitize=thread "$here/slowpath.c" -o "$w/tsan"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
printf '%-5s %12s %12s %8s %14s\n' mode "dacce ns" "TSan ns" ratio "dacce instr"
for m in 0 1 2 3 4; do
  : >"$w/d"; : >"$w/t"
  i=0
  while [ $i -lt "$RUNS" ]; do
    "$w/dacce" $m | awk '{print $3}' >>"$w/d"
    "$w/tsan" $m | awk '{print $3}' >>"$w/t"
    i=$((i + 1))
  done
  d=$(median <"$w/d"); t=$(median <"$w/t")
  ins=-
  if command -v valgrind >/dev/null 2>&1; then
    per=64; [ $m = 1 ] && per=512
    count() {
      valgrind --tool=callgrind --callgrind-out-file="$w/cg" "$w/dacce" $m "$1" >/dev/null 2>&1
      callgrind_annotate "$w/cg" 2>/dev/null | awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}'
    }
    # the difference between 20000 iterations and none: the accesses alone
    ins=$(( ($(count 20000) - $(count 0)) / 20000 / per ))
  fi
  printf '%-5s %12s %12s %8s %14s\n' $m "$d" "$t" "$(echo "$d $t" | awk '{printf "%.2fx", $1 / $2}')" "$ins"
done
