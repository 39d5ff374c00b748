#!/usr/bin/env bash
# One fine-tuning step's speed against PyTorch: milliseconds per image of forward + backward through the trainable
# top of EfficientNet-Lite0 (batch norm folded, ReLU6, TF SAME padding, a 5-class dense head with softmax
# cross-entropy and label smoothing 0.1), for three depths — the last block, the last three stages (blocks 8–15),
# the whole network — at 1 thread and at all threads, batch BATCH. Printed raw and as ratios Workbench / torch
# (below 1: Workbench is faster).
#
# Workbench: release build of workbench-bench-finetune (TrainableLayers; its threads split the batch, BLAS single-
# threaded). PyTorch: torch's CPU wheel from PyPI (installed here into .venv-torch/, never by the tests), channels-last,
# torch.set_num_threads(T), the same weights (scripts/bench/bench-finetune-torch.py). The two are measured alternately,
# round by round, so a busy neighbour on the machine slows both alike; each round's figure is a median of 3 steps
# after 2 warm-up steps, and the table shows the median over ROUNDS rounds.
#
# Usage: scripts/bench/bench-finetune.sh [ROUNDS] [BATCH]   (defaults 5 and 16; SCRATCH_PATH overrides the build folder)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-5}
batch=${2:-16}
say() { printf 'bench-finetune: %s\n' "$*" >&2; }

# 1. PyTorch in an environment of its own, .venv-torch/ (scripts/setup/torch-environment.sh says why not .venv/).
source scripts/setup/torch-environment.sh
torch_environment torch
python=$torch_python

# 2. Workbench, release; the pretrained weights.
[ -f models/efficientnet-lite0.safetensors ] || scripts/setup.sh
scratch=${SCRATCH_PATH:-.build}
swift build -c release --scratch-path "$scratch" --product workbench-bench-finetune >/dev/null
workbench=$scratch/release/workbench-bench-finetune
weights=models/efficientnet-lite0.safetensors

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
figure() { tail -1 | sed -E 's/^median ms\/image: ([0-9.]+).*/\1/'; }

cores=$(nproc)
thread_counts=(1)
[ "$cores" -gt 1 ] && thread_counts+=("$cores")
torch_version=$("$python" -c "import torch; print(torch.__version__)" 2>/dev/null)
echo "Fine-tuning step (forward + backward), batch $batch, median of $rounds alternating rounds, ms per image;" \
     "$cores cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs); torch $torch_version"
printf '%-18s %-8s %12s %12s %8s\n' row threads workbench torch ratio
for row in last-block last-three-stages whole; do
    for threads in "${thread_counts[@]}"; do
        ours=(); theirs=()
        for round in $(seq "$rounds"); do
            ours+=("$("$workbench" --weights "$weights" --row "$row" --threads "$threads" --batch "$batch" --runs 3 | figure)")
            theirs+=("$("$python" scripts/bench/bench-finetune-torch.py "$weights" "$row" "$threads" "$batch" 3 2>/dev/null | figure)")
        done
        echo "  raw $row $threads thread(s): workbench ${ours[*]}; torch ${theirs[*]}" >&2
        ours_median=$(printf '%s\n' "${ours[@]}" | median)
        theirs_median=$(printf '%s\n' "${theirs[@]}" | median)
        awk -v r="$row" -v t="$threads" -v w="$ours_median" -v o="$theirs_median" \
            'BEGIN { printf "%-18s %-8s %12.2f %12.2f %8.2f\n", r, t, w, o, w / o }'
    done
done
echo "ratio = Workbench ms/image ÷ torch ms/image (below 1: Workbench is faster)." \
     "The issue's prototype (torch, 1 thread, channels-last, another 2-vCPU machine): 5.6, 55.6 and 141.7 ms/image."
