#!/bin/sh
# fd_io.sh BUILD [N] [RUNS]: the cost of file I/O system calls (pwrite and
# pread of 512 bytes, bench/micro/fd_io.c, two threads of N rounds each on
# files of their own, default 200000), native, clang's ThreadSanitizer and
# dacce-race, round-robin RUNS times (default 5): median ns per round of
# each, and dacce-race's ratios to native and to clang TSan.
set -eu
B=${1:?usage: fd_io.sh BUILD [N] [RUNS]}
N=${2:-200000}
RUNS=${3:-5}
NAME=fd_io.sh
. "$(dirname "$0")/setup.sh"
build fd_io.c -O2
ns_rounds "$N" "$RUNS"
