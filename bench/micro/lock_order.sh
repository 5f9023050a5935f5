#!/bin/sh
# lock_order.sh BUILD [N_HUB] [N_CRABBING] [RUNS]: wall time and peak RSS
# of the lock-order graph's two workloads (bench/micro/lock_order.c: hub,
# default 400000 objects; crabbing, default 100000 descents a thread),
# native, clang's ThreadSanitizer and dacce-race, round-robin RUNS times
# (default 3), medians, and dacce-race's ratios to clang TSan.
set -eu
B=${1:?usage: lock_order.sh BUILD [N_HUB] [N_CRABBING] [RUNS]}
N_HUB=${2:-400000}
N_CRAB=${3:-100000}
RUNS=${4:-3}
NAME=lock_order.sh
. "$(dirname "$0")/setup.sh"
build lock_order.c -O2
rss_rounds "$RUNS" hub "$N_HUB"
rss_rounds "$RUNS" crabbing "$N_CRAB"
