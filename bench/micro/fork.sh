#!/bin/sh
# fork.sh BUILD [N] [RUNS]: the cost of a fork in a process with N live
# mutexes (default 100000; bench/micro/fork.c: 200 forks, each child exits
# at once), native, clang's ThreadSanitizer and dacce-race, round-robin
# RUNS times (default 5): median ns per fork of each, and dacce-race's
# ratios to native and to clang TSan.
set -eu
B=${1:?usage: fork.sh BUILD [N] [RUNS]}
N=${2:-100000}
RUNS=${3:-5}
NAME=fork.sh
. "$(dirname "$0")/setup.sh"
build fork.c -O2
ns_rounds "$N" "$RUNS"
