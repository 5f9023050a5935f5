# setup.sh: sourced by the micro benchmarks' scripts after they set NAME
# (the script's name) and B (the build directory): checks that B has
# dacce-cc, makes the work directory $w (removed at exit) and sets $here.
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$B/bin/dacce-cc" ] || { echo "$NAME: $B/bin/dacce-cc not found (build first)" >&2; exit 2; }
w=$(mktemp -d "/tmp/${NAME%.sh}.XXXXXX")
trap 'rm -rf "$w"' EXIT
