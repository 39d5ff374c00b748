#!/usr/bin/env bash
# How long doctor's exact k-nearest-neighbour search takes, and how much memory it holds (release build):
# workbench-bench-neighbours on COUNT random 1,280-d features (default 20,000, k = 10, every core), under
# /usr/bin/time -v for the peak resident memory. Issue 46 asks for at most 60 s on two cores and memory O(N · k):
# the features themselves are N · 1,280 floats (98 MiB for 20,000), their normalised copy as much again, the
# answer N · k, and one 512 × 2,048 block per thread; an N × N matrix (1.5 GiB for 20,000) is never made.
# The machine is shared: the load average is printed beside the numbers.
#
# Usage: scripts/bench/bench-neighbours.sh [COUNT] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/../.."
count=${1:-20000}
threads=${2:-$(nproc)}
swift build -c release --product workbench-bench-neighbours >/dev/null
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
/usr/bin/time -v .build/release/workbench-bench-neighbours --count "$count" --threads "$threads" --check 20 2>"$log"
rss=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
wall=$(awk -F': ' '/Elapsed \(wall clock\)/ { print $2 }' "$log")
awk -v rss="$rss" -v wall="$wall" -v count="$count" 'BEGIN {
    features = count * 1280 * 4 / 1048576
    printf "process: %s wall, max resident %.0f MiB (the features alone: %.0f MiB)\n", wall, rss / 1024, features
}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
