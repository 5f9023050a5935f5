#!/bin/sh
# many_threads.sh BUILD [N]: peak RSS of N threads alive at once (default
# 1000; bench/micro/many_threads.c), native, clang's ThreadSanitizer and
# dacce-race, side by side, and dacce-race's ratio to each.
set -eu
B=${1:?usage: many_threads.sh BUILD [N]}
N=${2:-1000}
NAME=many_threads.sh
. "$(dirname "$0")/setup.sh"
clang -O1 -g "$here/many_threads.c" -o "$w/native" -pthread
clang -O1 -g -fsanitize=thread "$here/many_threads.c" -o "$w/tsan"
DACCE_CC=clang "$B/bin/dacce-cc" -O1 -g "$here/many_threads.c" -o "$w/dacce" -pthread
peak() { /usr/bin/time -f %M "$w/$1" "$N" 2>&1 >/dev/null | tail -1; }
n=$(peak native); t=$(peak tsan); d=$(peak dacce)
echo "threads $N: peak RSS native $n KB, clang TSan $t KB, dacce-race $d KB" \
  "($(echo "$d $t" | awk '{printf "%.2fx", $1 / $2}') clang TSan's," \
  "$(echo "$d $n" | awk '{printf "%.1fx", $1 / $2}') native)"
