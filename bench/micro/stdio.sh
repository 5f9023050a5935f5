#!/bin/sh
# stdio.sh BUILD [N] [RUNS]: the printf and scanf families' cost (snprintf,
# sscanf and fputs, bench/micro/stdio.c, two threads of N rounds each,
# default 1000000), native, clang's ThreadSanitizer and dacce-race,
# round-robin RUNS times (default 5): median ns per round of each, and
# dacce-race's ratios to native and to clang TSan.
set -eu
B=${1:?usage: stdio.sh BUILD [N] [RUNS]}
N=${2:-1000000}
RUNS=${3:-5}
NAME=stdio.sh
. "$(dirname "$0")/setup.sh"
build stdio.c -O2
i=0
while [ $i -lt "$RUNS" ]; do
  for b in native tsan dacce; do
    echo "$b $("$w/$b" "$N" | awk '{print $3}')" >>"$w/ns"
  done
  i=$((i + 1))
done
python3 - "$w/ns" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {b: statistics.median(float(r[1]) for r in rows if r[0] == b) for b in ("native", "tsan", "dacce")}
print("ns per round (median): native %.0f, clang TSan %.0f, dacce-race %.0f" % (med["native"], med["tsan"], med["dacce"]))
print("dacce-race / native %.2fx, dacce-race / clang TSan %.2fx" % (med["dacce"] / med["native"], med["dacce"] / med["tsan"]))
PY
