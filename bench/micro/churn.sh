#!/bin/sh
# churn.sh BUILD [N] [RUNS]: wall time and peak RSS of N and 2N rounds of
# making and destroying locks, and of making, using and closing
# descriptors, and of N/10 and N/5 threads made one after the other
# (bench/micro/churn.c; default N 200000), native, clang's
# ThreadSanitizer and dacce-race, round-robin RUNS times (default 3),
# medians: whether memory grows with the rounds, and dacce-race's ratios to
# clang TSan.
set -eu
B=${1:?usage: churn.sh BUILD [N] [RUNS]}
N=${2:-200000}
RUNS=${3:-3}
NAME=churn.sh
. "$(dirname "$0")/setup.sh"
build churn.c -O2
for mode in locks fds; do
  for n in "$N" $((2 * N)); do
    rss_rounds "$RUNS" $mode "$n"
  done
done
for n in $((N / 10)) $((N / 5)); do
  rss_rounds "$RUNS" threads "$n"
done
