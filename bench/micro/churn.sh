#!/bin/sh
# churn.sh BUILD [N] [RUNS]: wall time and peak RSS of N and 2N rounds of
# making and destroying locks, and of making, using and closing
# descriptors (bench/micro/churn.c; default N 200000), native, clang's
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
    : > "$w/r"
    i=0
    while [ $i -lt "$RUNS" ]; do
      for b in native tsan dacce; do
        r=$(timed $b $mode "$n")
        echo "$b $r" >> "$w/r"
      done
      i=$((i + 1))
    done
    python3 - "$mode" "$n" "$w/r" <<'PY'
import statistics, sys
mode, n, path = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [l.split() for l in open(path)]
med = {b: (statistics.median(float(r[2]) for r in rows if r[0] == b),
           statistics.median(int(r[1]) for r in rows if r[0] == b) / 1024)
       for b in ("native", "tsan", "dacce")}
print(f"{mode} {n}: time native {med['native'][0]:.2f} s, clang TSan {med['tsan'][0]:.2f} s, "
      f"dacce-race {med['dacce'][0]:.2f} s ({med['dacce'][0] / med['tsan'][0]:.2f}x clang TSan's); "
      f"peak RSS native {med['native'][1]:.1f} MB, clang TSan {med['tsan'][1]:.1f} MB, "
      f"dacce-race {med['dacce'][1]:.1f} MB ({med['dacce'][1] / med['tsan'][1]:.2f}x)")
PY
  done
done
