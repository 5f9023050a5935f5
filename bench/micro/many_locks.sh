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
  : > "$w/$mode"
  i=0
  while [ $i -lt "$RUNS" ]; do
    for b in native tsan dacce; do
      r=$(timed $b $mode "$N")
      echo "$b $r" >> "$w/$mode"
    done
    i=$((i + 1))
  done
  python3 - "$mode" "$N" "$w/$mode" <<'PY'
import statistics, sys
mode, n, path = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [l.split() for l in open(path)]
med = {b: (statistics.median(float(r[2]) for r in rows if r[0] == b),
           statistics.median(int(r[1]) for r in rows if r[0] == b) / 1024)
       for b in ("native", "tsan", "dacce")}
print(f"{mode} {n}: time native {med['native'][0]:.2f} s, clang TSan {med['tsan'][0]:.2f} s, "
      f"dacce-race {med['dacce'][0]:.2f} s ({med['dacce'][0] / med['tsan'][0]:.2f}x clang TSan's); "
      f"peak RSS native {med['native'][1]:.0f} MB, clang TSan {med['tsan'][1]:.0f} MB, "
      f"dacce-race {med['dacce'][1]:.0f} MB ({med['dacce'][1] / med['tsan'][1]:.2f}x)")
PY
done
