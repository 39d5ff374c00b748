#!/usr/bin/env bash
# Default `workbench train` against the reference pipeline on real datasets of different kinds, built from Debian
# packages and scikit-learn's bundled data by the recipes in datasets/:
#
#   photos    Tux Paint's photo stamps (tuxpaint-stamps-default), 6 labels        datasets/build_photos.py
#   drawings  openclipart drawings (openclipart-png), 6 labels                     datasets/build_clipart.py
#   digits    scikit-learn's 8 × 8 handwritten digits, 10 labels                   datasets/build_grayscale.py
#   footwear  Fashion-MNIST sandals, sneakers, ankle boots (dataset-fashion-mnist)  datasets/build_grayscale.py
#   fashion   Fashion-MNIST, 10 labels, 4,000 training images                      datasets/build_grayscale.py
#
# The reference is the same network's features (onnxruntime on the reference's ONNX graph) plus scikit-learn's
# LogisticRegression with C chosen on a stratified 10 % of the training images, refitted on all of them
# (scripts/accuracy/reference-accuracy.py). Workbench runs with its defaults. Neither looks at the testing images before
# the final score. Printed per dataset: testing accuracy of both, the difference, the allowance max(1 point, 1
# image), the chosen strengths (the reference's as l2 = 1/C), Workbench's temperature and testing calibration error
# before → after it. Then the exported ONNX model is checked against `workbench classify` on the digits and photos
# testing images (calibrated probabilities, max difference).
#
# Usage: scripts/accuracy/accuracy-table.sh [DATASET ...]
#            (default: all five; 10-30 minutes on 2 shared cores the first time, mostly scikit-learn's fits;
#             features are cached after that)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/accuracy/common.sh
datasets=("$@")
[ ${#datasets[@]} -eq 0 ] && datasets=(photos drawings digits footwear fashion)

scripts/setup.sh
onnx=$(scripts/accuracy/reference-onnx.sh)
work=.build/accuracy
mkdir -p "$work"


for name in "${datasets[@]}"; do
    build_dataset "$name" accuracy-table
    echo "accuracy-table: $name" >&2
    "$python" scripts/accuracy/reference-accuracy.py "$onnx" "datasets/$name" --cache .build/reference/features > "$work/$name.reference.json"
    .build/release/workbench train "datasets/$name" --json -o "$work/$name.wbmodel" > "$work/$name.workbench.json" 2> "$work/$name.log"
done

"$python" - "$work" "${datasets[@]}" <<'PY'
import json, pathlib, sys
work, names = pathlib.Path(sys.argv[1]), sys.argv[2:]
kinds = {"photos": "photos", "drawings": "drawings", "digits": "small grayscale", "footwear": "small grayscale",
         "fashion": "small grayscale", "fashion1000": "small grayscale"}
header = f"{'dataset':10s} {'kind':16s} {'train':>6s} {'test':>5s} {'workbench':>9s} {'reference':>9s} {'diff':>6s} {'allowed':>7s} {'ok':>3s} " \
         f"{'l2 (wb)':>8s} {'l2 (ref)':>8s} {'T':>6s} {'test ECE before→after':>22s}"
print(header)
differences, ok = [], True
for name in names:
    reference = json.loads((work / f"{name}.reference.json").read_text())
    workbench = json.loads((work / f"{name}.workbench.json").read_text())
    ours, theirs = workbench["testing"]["accuracy"], reference["testing_accuracy"]
    count = workbench["testing"]["count"]
    difference = 100 * (ours - theirs)
    allowed = max(1.0, 100 / count)
    good = difference >= -allowed - 1e-9
    ok &= good
    differences.append(difference)
    calibration = workbench.get("calibration") or {}
    ece = f"{calibration.get('testingBefore', float('nan')):.3f} → {calibration.get('testingAfter', float('nan')):.3f}"
    print(f"{name:10s} {kinds.get(name, '?'):16s} {workbench['training']['count']:6d} {count:5d} {100 * ours:8.1f}% {100 * theirs:8.1f}% "
          f"{difference:+6.1f} {allowed:7.1f} {'yes' if good else 'NO':>3s} {workbench['settings']['l2']:8g} {1 / reference['C']:8g} "
          f"{calibration.get('temperature', 1):6.3f} {ece:>22s}")
mean = sum(differences) / len(differences)
print(f"mean difference {mean:+.2f} points; never below the reference by more than the allowance: {'yes' if ok else 'NO'}")
PY

# The exported ONNX model against `workbench classify` on exact 224 × 224 network inputs made from testing images.
for name in digits photos; do
    [[ " ${datasets[*]} " == *" $name "* ]] || continue
    inputs="$work/$name-inputs"
    rm -rf "$inputs"
    "$python" - "datasets/$name/Testing Data" "$inputs" <<'PY'
import pathlib, sys
from PIL import Image
source, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
out.mkdir(parents=True)
for index, path in enumerate(sorted(source.rglob("*.png"))):
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P", "PA") or "transparency" in image.info:
        image = image.convert("RGBA")
        image = Image.alpha_composite(Image.new("RGBA", image.size, (255, 255, 255, 255)), image)
    image = image.convert("RGB")
    width, height = image.size
    crop = int(224 / 256 * min(width, height))
    top, left = ((height - crop) + 1) // 2, ((width - crop) + 1) // 2
    image.crop((left, top, left + crop, top + crop)).resize((224, 224), Image.BICUBIC).save(out / f"{index:04d}.png")
PY
    .build/release/workbench export "$work/$name.wbmodel" --format onnx -o "$work/$name.onnx" >/dev/null 2>&1
    .build/release/workbench classify "$work/$name.wbmodel" "$inputs" --json > "$work/$name-predictions.jsonl" 2>/dev/null
    "$python" scripts/check/check-onnx-against-classify.py "$work/$name.onnx" "$work/$name-predictions.jsonl" |
        "$python" -c "import json, sys; r = json.load(sys.stdin); print(f\"export check $name: {r['images']} images, temperature {r['temperature']:.4f}, max |Δprobability| ONNX vs classify {r['max_abs_difference']:.2e}, top-1 mismatches {r['top1_mismatches']}\")"
done
