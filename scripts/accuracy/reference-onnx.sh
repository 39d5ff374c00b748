#!/usr/bin/env bash
# Prints the path of an onnxruntime feature graph of EfficientNet-Lite0 (input "input" [N,3,224,224] normalised,
# output "features" [N,1280], batch norm folded into the convolutions) built from set-up's downloaded .pth by the
# goldens' own independent reference (scripts/fixtures/make-efficientnet-fixtures.py --write-onnx), which shares
# no code with Workbench. For benchmarks and accuracy comparisons only: Workbench itself never runs it.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=.build/reference
mkdir -p "$work"
python=.venv/bin/python3
pth=models/downloads/efficientnet-lite0-57934424.pth
# Set-up makes the .venv and leaves the wheel's .pth in models/downloads.
{ [ -x "$python" ] && [ -f "$pth" ]; } || SETUP_SKIP_RELEASE_BUILD=1 scripts/setup.sh >&2
onnx="$work/effnet_lite0_features.onnx"
if [ ! -f "$onnx" ] || [ scripts/fixtures/make-efficientnet-fixtures.py -nt "$onnx" ]; then
    "$python" scripts/fixtures/make-efficientnet-fixtures.py --pth "$pth" --write-onnx "$onnx" >&2
fi
echo "$onnx"
