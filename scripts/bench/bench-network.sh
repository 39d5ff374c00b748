#!/usr/bin/env bash
# The network alone: images per second of Workbench's EfficientNet-Lite0 forward pass (decoded 224×224 input,
# release build) beside onnxruntime on the same network, at 1 and 2 threads, batch 1 and 16; medians of RUNS
# runs each, printed raw and as ratios Workbench / onnxruntime.
#
# Workbench's threads each run whole batches with BLAS single-threaded (as feature extraction does);
# onnxruntime gets intra_op_num_threads. The two are measured alternately, run by run, so a busy neighbour on
# the machine slows both alike. The onnxruntime graph is scripts/accuracy/reference-onnx.sh's.
#
# Usage: scripts/bench/bench-network.sh [RUNS]   (default 7; SCRATCH_PATH overrides the build folder, default .build)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-7}
work=.build/bench-network
mkdir -p "$work"
# The Python tools (onnxruntime, onnx, numpy) live in set-up's .venv/; absolute, for the `cd` below.
python="$PWD/.venv/bin/python3"
[ -x "$python" ] || scripts/setup.sh

# 1. Workbench, release.
scratch=${SCRATCH_PATH:-.build}
swift build -c release --scratch-path "$scratch" --product workbench-bench-network >/dev/null
workbench=$scratch/release/workbench-bench-network
[ -f models/efficientnet-lite0.safetensors ] || scripts/setup.sh

# 2. The onnxruntime graph: the goldens' independent reference network, batch norm folded.
onnx=$(scripts/accuracy/reference-onnx.sh)

input=Tests/ModelsTests/Fixtures/coffee_224.png
images=128
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rate() { tail -1 | sed -E 's/^median images\/s: ([0-9.]+).*/\1/'; }

echo "EfficientNet-Lite0 features, 224×224, $runs runs each (median images/s), $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
printf '%-8s %-6s %12s %12s %8s %12s\n' threads batch workbench onnxruntime ratio "ms/img (wb)"
best_lines=()
for threads in 1 2; do
    best_ours=0; best_theirs=0
    for batch in 1 16; do
        ours=(); theirs=()
        for run in $(seq "$runs"); do
            ours+=("$("$workbench" --input "$input" --threads "$threads" --batch "$batch" --images "$images" --runs 1 | rate)")
            theirs+=("$("$python" scripts/bench/bench-onnxruntime-network.py "$onnx" "$input" "$threads" "$batch" 1 "$images" | rate)")
        done
        ours_median=$(printf '%s\n' "${ours[@]}" | median)
        theirs_median=$(printf '%s\n' "${theirs[@]}" | median)
        echo "  raw workbench: ${ours[*]}" >&2
        echo "  raw onnxruntime: ${theirs[*]}" >&2
        awk -v t="$threads" -v b="$batch" -v w="$ours_median" -v o="$theirs_median" \
            'BEGIN { printf "%-8s %-6s %12.1f %12.1f %8.2f %12.2f\n", t, b, w, o, w / o, 1000 * t / w }'
        best_ours=$(awk -v a="$best_ours" -v b="$ours_median" 'BEGIN { print (b > a) ? b : a }')
        best_theirs=$(awk -v a="$best_theirs" -v b="$theirs_median" 'BEGIN { print (b > a) ? b : a }')
    done
    best_lines+=("$(awk -v t="$threads" -v w="$best_ours" -v o="$best_theirs" \
        'BEGIN { printf "%s thread(s), each at its best batch: workbench %.1f, onnxruntime %.1f images/s, ratio %.2f", t, w, o, w / o }')")
done
printf '%s\n' "${best_lines[@]}"
echo "ratio = Workbench images/s ÷ onnxruntime images/s (above 1: Workbench is faster)"
