# setup.sh: sourced by the micro benchmarks' scripts after they set NAME
# (the script's name) and B (the build directory): checks that B has
# dacce-cc, makes the work directory $w (removed at exit), sets $here, and
# defines build and timed (below).
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
