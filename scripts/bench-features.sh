#!/usr/bin/env bash
# Images per second of `workbench features` on real JPEGs, beside Pillow + onnxruntime on the same images with the
# same preprocessing, at 1 and 2 threads; medians of RUNS runs each, printed with their ratios.
#
# Images: the ~175 photos and artworks (1 to 15 megapixels) of Debian's plasma-workspace-wallpapers and
# ukui-wallpapers (downloaded and unpacked, not installed) plus the sample dataset re-encoded as JPEG.
# The onnxruntime graph is built by the reference's tools in ../shared until Workbench exports its own.
#
# Usage: scripts/bench-features.sh [RUNS]   (default 5)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
work=.build/bench
mkdir -p "$work"
scripts/setup.sh

# 1. The images.
images="$work/images"
if [ ! -f "$images/.complete" ]; then
    rm -rf "$images" "$work/debs" && mkdir -p "$images" "$work/debs"
    (cd "$work/debs" && apt-get download plasma-workspace-wallpapers ukui-wallpapers 2>/dev/null)
    for deb in "$work"/debs/*.deb; do dpkg -x "$deb" "$work/debs/unpacked"; done
    find "$work/debs/unpacked" -type f \( -iname '*.jpg' -o -iname '*.jpeg' \) | sort | while read -r file; do
        cp "$file" "$images/wallpaper-$(printf '%s' "$file" | sha256sum | cut -c1-12).jpg"
    done
    python3 datasets/build_clipart.py >/dev/null
    python3 - "$images" <<'PY'
import pathlib, sys
from PIL import Image
out = pathlib.Path(sys.argv[1])
for index, path in enumerate(sorted(pathlib.Path("datasets/drawings").rglob("*.png"))):
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image)
    image.convert("RGB").save(out / f"drawing-{index:04d}.jpg", quality=90)
PY
    touch "$images/.complete"
fi
find "$images" -name '*.jpg' | sort > "$work/files.txt"
count=$(wc -l < "$work/files.txt")

# 2. The onnxruntime feature graph, built by the reference's tools.
onnx=$(scripts/reference-onnx.sh)

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
    python_rate=$(python3 scripts/bench_python_pipeline.py "$onnx" "$work/files.txt" --threads "$threads" --runs "$runs" | awk '/^median/ { print $2 }')
    printf 'threads %d: workbench %7.1f images/s   pillow+onnxruntime %7.1f images/s   ratio %.2fx\n' \
        "$threads" "$workbench_rate" "$python_rate" "$(awk -v a="$workbench_rate" -v b="$python_rate" 'BEGIN { print a / b }')"
done
