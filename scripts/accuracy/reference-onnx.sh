#!/usr/bin/env bash
# Prints the path of an onnxruntime feature graph of EfficientNet-Lite0 (input "input" [N,3,224,224] normalised,
# output [N,1280]) built by the reference's tools in ../shared from set-up's downloaded .pth. For benchmarks and
# accuracy comparisons only: Workbench itself never runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=.build/reference
mkdir -p "$work"
# The Python tools (onnxruntime, onnx) live in set-up's .venv/; absolute, for the `cd` below.
python="$PWD/.venv/bin/python3"
[ -x "$python" ] || scripts/setup.sh >&2
onnx="$work/effnet_lite0_features.onnx"
if [ ! -f "$onnx" ]; then
    reference=../shared/reference/efficientnet-lite0/tools
    [ -d "$reference" ] || { echo "reference-onnx: $reference not found (it ships beside the repository)" >&2; exit 1; }
    "$python" "$reference/convert_weights.py" models/downloads/efficientnet-lite0-57934424.pth "$work/weights.npz" >/dev/null
    (cd "$reference" && "$python" build_onnx.py "$OLDPWD/$work/weights.npz" "$OLDPWD/$work" >/dev/null)
fi
echo "$onnx"
