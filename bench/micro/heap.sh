#!/bin/sh
# heap.sh BUILD [N] [RUNS]: wall time and peak RSS of two threads making and
# freeing N heap blocks each (bench/micro/heap.c; default N 1000000), of up
# to 64 B, 1 KiB and 8 KiB, and of up to 8 KiB with a mutex of their own,
# and of 4N blocks of 16 bytes each kept until all are made (many live
# small blocks), native, clang's ThreadSanitizer and dacce-race, round-robin
# RUNS times (default 3), medians, with dacce-race's ratios to clang TSan.
set -eu
B=${1:?usage: heap.sh BUILD [N] [RUNS]}
N=${2:-1000000}
RUNS=${3:-3}
NAME=heap.sh
. "$(dirname "$0")/setup.sh"
build heap.c -O2
for max in 64 1024 8192; do
  rss_rounds "$RUNS" plain $max "$N"
done
rss_rounds "$RUNS" locked 8192 "$N"
rss_rounds "$RUNS" hold 1 $((4 * N))
