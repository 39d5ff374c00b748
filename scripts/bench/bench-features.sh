#!/usr/bin/env bash
# Images per second of `workbench features` on real JPEGs, beside Pillow + onnxruntime on the same images with the
# same preprocessing, at 1 and 2 threads; medians of RUNS runs each, printed with their ratios.
#
# Images: see scripts/bench/bench-images.sh (Debian's wallpaper photos of 1 to 15 megapixels, and the sample dataset
# re-encoded as JPEG).
# The onnxruntime graph is scripts/accuracy/reference-onnx.sh's, built by the goldens' independent reference.
#
# Then the same end to end on 500+ photos of 1 to 12 megapixels (scripts/bench/bench-photos.sh) at 2 threads.
#
# Usage: scripts/bench/bench-features.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-5}
work=.build/bench
mkdir -p "$work"
scripts/setup.sh

# 1. The images.
images=$(scripts/bench/bench-images.sh)
find "$images" -name '*.jpg' | sort > "$work/files.txt"
count=$(wc -l < "$work/files.txt")

# 2. The onnxruntime graphs: the reference's feature network, and Workbench's own exported classifier (trained on
#    the sample dataset), which takes pixels 0-255 and normalises inside.
onnx=$(scripts/accuracy/reference-onnx.sh)
model="$work/drawings.wbmodel"
[ -f "$model" ] || .build/release/workbench train datasets/drawings -o "$model" >/dev/null 2>&1
exported="$work/drawings.onnx"
.build/release/workbench export "$model" --format onnx -o "$exported" >/dev/null

median() { sort -n | awk '{ values[NR] = $1 } END { print (NR % 2) ? values[(NR + 1) / 2] : (values[NR / 2] + values[NR / 2 + 1]) / 2 }'; }

echo "benchmark: $count JPEG images, $runs runs each, $(nproc) cores"
for threads in 1 2; do
    rates=()
    for run in $(seq "$runs"); do
        start=$(date +%s.%N)
        .build/release/workbench features $(cat "$work/files.txt") --threads "$threads" -o "$work/out.txt" 2>/dev/null
        end=$(date +%s.%N)
        rates+=("$(awk -v n="$count" -v a="$start" -v b="$end" 'BEGIN { print n / (b - a) }')")
    done
    workbench_rate=$(printf '%s\n' "${rates[@]}" | median)
    python_rate=$(.venv/bin/python3 scripts/bench/bench-python-pipeline.py "$onnx" "$work/files.txt" --threads "$threads" --runs "$runs" | awk '/^median/ { print $2 }')
    exported_rate=$(.venv/bin/python3 scripts/bench/bench-python-pipeline.py "$exported" "$work/files.txt" --threads "$threads" --runs "$runs" --raw-pixels | awk '/^median/ { print $2 }')
    printf 'threads %d: workbench features %7.1f images/s | pillow + onnxruntime, reference graph %7.1f images/s: ratio %.2fx | pillow + onnxruntime, workbench export %7.1f images/s: ratio %.2fx\n' \
        "$threads" "$workbench_rate" "$python_rate" "$(awk -v a="$workbench_rate" -v b="$python_rate" 'BEGIN { print a / b }')" \
        "$exported_rate" "$(awk -v a="$workbench_rate" -v b="$exported_rate" 'BEGIN { print a / b }')"
done

# 3. End to end on at least 500 JPEG photos of 1 to 12 megapixels (scripts/bench/bench-photos.sh), 2 threads: decoding
#    dominates here, so this shows how well decoding overlaps with the network.
photos=$(scripts/bench/bench-photos.sh)
find "$photos" -name '*.jpg' | sort > "$work/photos.txt"
photo_count=$(wc -l < "$work/photos.txt")
rates=()
for run in $(seq "$runs"); do
    start=$(date +%s.%N)
    .build/release/workbench features "$photos" --threads 2 -o "$work/out.txt" 2>/dev/null
    end=$(date +%s.%N)
    rates+=("$(awk -v n="$photo_count" -v a="$start" -v b="$end" 'BEGIN { print n / (b - a) }')")
done
workbench_rate=$(printf '%s\n' "${rates[@]}" | median)
python_rate=$(.venv/bin/python3 scripts/bench/bench-python-pipeline.py "$onnx" "$work/photos.txt" --threads 2 --runs "$runs" | awk '/^median/ { print $2 }')
printf 'photos (%d JPEGs, 1-12 MP), 2 threads: workbench features %7.1f images/s | pillow (draft) + onnxruntime %7.1f images/s: ratio %.2fx\n' \
    "$photo_count" "$workbench_rate" "$python_rate" "$(awk -v a="$workbench_rate" -v b="$python_rate" 'BEGIN { print a / b }')"
