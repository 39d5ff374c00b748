#!/usr/bin/env bash
# How long choosing the L2 strength and fitting the head take (release build):
#   1. workbench-bench-training on synthetic 1,000 × 1280 and 4,000 × 1280 features (10 labels): the default plan
#      (repeated 5-fold up to 2,000 images, one 20 % held-out split above) over the default grid, the temperature
#      and the final fit on everything; median of RUNS runs.
#   2. `workbench train` end to end on a real 1,000-image dataset (Fashion-MNIST, datasets/build_grayscale.py
#      --recipe fashion1000) with a warm feature cache: median wall time of RUNS runs.
# The machine is shared: the load average is printed beside the numbers.
#
# Usage: scripts/bench/bench-training.sh [RUNS]   (default 3)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-3}
python=.venv/bin/python3  # set-up's venv
scripts/setup.sh
swift build -c release --product workbench-bench-training >/dev/null
echo "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
for count in 1000 4000; do
    .build/release/workbench-bench-training --count "$count" --runs "$runs"
done

"$python" datasets/build_grayscale.py --recipe fashion1000 >/dev/null
work=.build/bench-training
mkdir -p "$work"
export WORKBENCH_CACHE="$PWD/$work/cache"
.build/release/workbench train datasets/fashion1000 -o "$work/model.wbmodel" --json >/dev/null 2>&1  # warms the cache
times=()
for run in $(seq "$runs"); do
    start=$(date +%s.%N)
    .build/release/workbench train datasets/fashion1000 -o "$work/model.wbmodel" --json > "$work/report.json" 2>/dev/null
    end=$(date +%s.%N)
    times+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')")
done
median=$(printf '%s\n' "${times[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
"$python" - "$work/report.json" "$median" "${times[*]}" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
timings = report["timings"]
print(f"workbench train, 1,000 images, warm cache: median {sys.argv[2]} s wall (runs: {sys.argv[3]}); last run: "
      f"features {timings['features']:.2f} s, choosing l2 {timings['selection']:.2f} s, head total {timings['training']:.2f} s "
      f"({report['selection']['method']}, l2 {report['settings']['l2']:g})")
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
