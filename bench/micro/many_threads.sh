#!/bin/sh
# many_threads.sh BUILD [N]: peak RSS and wall time of N threads alive at
# once (default 1000, at most 8192; bench/micro/many_threads.c), native,
# clang's ThreadSanitizer and dacce-race, side by side, and dacce-race's
# ratios to each.
set -eu
B=${1:?usage: many_threads.sh BUILD [N]}
N=${2:-1000}
NAME=many_threads.sh
. "$(dirname "$0")/setup.sh"
build many_threads.c -O1
n=$(timed native "$N"); t=$(timed tsan "$N"); d=$(timed dacce "$N")
echo "$N $n $t $d" | awk '{
  printf "threads %d: peak RSS native %d KB, clang TSan %d KB, dacce-race %d KB (%.2fx clang TSan'"'"'s, %.1fx native)\n", $1, $2, $4, $6, $6 / $4, $6 / $2
  printf "threads %d: wall time native %.2f s, clang TSan %.2f s, dacce-race %.2f s (%.2fx clang TSan'"'"'s)\n", $1, $3, $5, $7, $7 / ($5 > 0 ? $5 : 0.01)
}'

