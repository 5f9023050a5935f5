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
ns_rounds "$N" "$RUNS"
