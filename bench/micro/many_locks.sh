#!/bin/sh
# many_locks.sh BUILD [N] [RUNS]: wall time and peak RSS of N objects with a
# mutex each (default 400000), locked one at a time and hand over hand
# (bench/micro/many_locks.c), native, clang's ThreadSanitizer and
# dacce-race, round-robin RUNS times (default 3), medians, and dacce-race's
# ratios to clang TSan.
set -eu
B=${1:?usage: many_locks.sh BUILD [N] [RUNS]}
N=${2:-400000}
RUNS=${3:-3}
NAME=many_locks.sh
. "$(dirname "$0")/setup.sh"
build many_locks.c -O2
for mode in each coupling; do
  rss_rounds "$RUNS" $mode "$N"
done
