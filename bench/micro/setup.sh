# setup.sh: sourced by the micro benchmarks' scripts after they set NAME
# (the script's name) and B (the build directory): checks that B has
# dacce-cc, makes the work directory $w (removed at exit), sets $here, and
# defines build, timed, ns_rounds and rss_rounds (below).
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$B/bin/dacce-cc" ] || { echo "$NAME: $B/bin/dacce-cc not found (build first)" >&2; exit 2; }
w=$(mktemp -d "/tmp/${NAME%.sh}.XXXXXX")
trap 'rm -rf "$w"' EXIT

# build SRC OPT: $w/native, $w/tsan (clang's ThreadSanitizer) and $w/dacce
# (dacce-cc over clang) from $here/SRC, each at optimisation OPT.
build() {
  clang "$2" -g "$here/$1" -o "$w/native" -pthread
  clang "$2" -g -fsanitize=thread "$here/$1" -o "$w/tsan"
  DACCE_CC=clang "$B/bin/dacce-cc" "$2" -g "$here/$1" -o "$w/dacce" -pthread
}

# timed BUILD ARG...: "peak-RSS-KB wall-seconds" of one run of $w/BUILD.  A
# run that fails (a bad argument, a report) ends the script, as its numbers
# would mean nothing: call it as a plain assignment, v=$(timed ...), whose
# status set -e sees.
timed() {
  t_b=$1
  shift
  t_r=$(/usr/bin/time -f "%x %M %e" "$w/$t_b" "$@" 2>&1 >/dev/null | tail -1)
  [ "${t_r%% *}" = 0 ] || { echo "$NAME: the $t_b build ($*) exited with status ${t_r%% *}" >&2; exit 1; }
  echo "${t_r#* }"
}

# ns_rounds N RUNS: runs native, tsan and dacce round-robin RUNS times, each
# with argument N; each prints "name N ns-per-round ..." (its third field);
# prints the median ns per round of each and dacce-race's ratios.
ns_rounds() {
  r_i=0
  while [ $r_i -lt "$2" ]; do
    for r_b in native tsan dacce; do
      echo "$r_b $("$w/$r_b" "$1" | awk '{print $3}')" >>"$w/ns"
    done
    r_i=$((r_i + 1))
  done
  python3 - "$w/ns" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {b: statistics.median(float(r[1]) for r in rows if r[0] == b) for b in ("native", "tsan", "dacce")}
print("ns per round (median): native %.0f, clang TSan %.0f, dacce-race %.0f" % (med["native"], med["tsan"], med["dacce"]))
print("dacce-race / native %.2fx, dacce-race / clang TSan %.2fx" % (med["dacce"] / med["native"], med["dacce"] / med["tsan"]))
PY
}

# rss_rounds RUNS ARG...: runs native, tsan and dacce with ARG...
# round-robin RUNS times (timed, above); prints the median wall time and
# peak RSS of each, and dacce-race's ratios to clang TSan, on a line that
# starts with ARG...
rss_rounds() {
  s_runs=$1
  shift
  : >"$w/rss"
  s_i=0
  while [ $s_i -lt "$s_runs" ]; do
    for s_b in native tsan dacce; do
      s_r=$(timed $s_b "$@")
      echo "$s_b $s_r" >>"$w/rss"
    done
    s_i=$((s_i + 1))
  done
  python3 - "$w/rss" "$*" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
med = {b: (statistics.median(float(r[2]) for r in rows if r[0] == b),
           statistics.median(int(r[1]) for r in rows if r[0] == b) / 1024)
       for b in ("native", "tsan", "dacce")}
print(f"{sys.argv[2]}: time native {med['native'][0]:.2f} s, clang TSan {med['tsan'][0]:.2f} s, "
      f"dacce-race {med['dacce'][0]:.2f} s ({med['dacce'][0] / med['tsan'][0]:.2f}x clang TSan's); "
      f"peak RSS native {med['native'][1]:.1f} MB, clang TSan {med['tsan'][1]:.1f} MB, "
      f"dacce-race {med['dacce'][1]:.1f} MB ({med['dacce'][1] / med['tsan'][1]:.2f}x)")
PY
}
