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
clang -O2 -g "$here/many_locks.c" -o "$w/native" -pthread
clang -O2 -g -fsanitize=thread "$here/many_locks.c" -o "$w/tsan"
DACCE_CC=clang "$B/bin/dacce-cc" -O2 -g "$here/many_locks.c" -o "$w/dacce" -pthread
# "wall-seconds peak-RSS-KB" of one run; a run that fails ends the script
run() {
  r=$(DACCE_OPTIONS=report_bugs=0 /usr/bin/time -f "%x %e %M" "$w/$1" "$2" "$N" 2>&1 >/dev/null | tail -1)
  [ "${r%% *}" = 0 ] || { echo "$NAME: the $1 build ($2) exited with status ${r%% *}" >&2; exit 1; }
  echo "${r#* }"
}
for mode in each coupling; do
  : > "$w/$mode"
  i=0
  while [ $i -lt "$RUNS" ]; do
    for b in native tsan dacce; do echo "$b $(run $b $mode)" >> "$w/$mode"; done
    i=$((i + 1))
  done
  python3 - "$mode" "$N" "$w/$mode" <<'PY'
import statistics, sys
mode, n, path = sys.argv[1], sys.argv[2], sys.argv[3]
rows = [l.split() for l in open(path)]
med = {b: (statistics.median(float(r[1]) for r in rows if r[0] == b),
           statistics.median(int(r[2]) for r in rows if r[0] == b) / 1024)
       for b in ("native", "tsan", "dacce")}
print(f"{mode} {n}: time native {med['native'][0]:.2f} s, clang TSan {med['tsan'][0]:.2f} s, "
      f"dacce-race {med['dacce'][0]:.2f} s ({med['dacce'][0] / med['tsan'][0]:.2f}x clang TSan's); "
      f"peak RSS native {med['native'][1]:.0f} MB, clang TSan {med['tsan'][1]:.0f} MB, "
      f"dacce-race {med['dacce'][1]:.0f} MB ({med['dacce'][1] / med['tsan'][1]:.2f}x)")
PY
done
