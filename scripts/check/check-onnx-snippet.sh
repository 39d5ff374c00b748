#!/usr/bin/env bash
# docs/export.md's ONNX snippet against `workbench classify` on every image of the sample dataset (datasets/drawings,
# openclipart PNGs, many with transparency): same top label and probabilities within 1e-4 on every image.
#
# Usage: scripts/check/check-onnx-snippet.sh      (prints the checker's JSON line; exits 1 when an image disagrees)
set -euo pipefail
cd "$(dirname "$0")/../.."
work=.build/onnx-snippet
mkdir -p "$work"
.venv/bin/python3 datasets/build_clipart.py >/dev/null
model="$work/drawings.wbmodel"
export WORKBENCH_CACHE="$work/cache"
.build/release/workbench train datasets/drawings -o "$model" >/dev/null 2>&1
.build/release/workbench classify "$model" datasets/drawings --json > "$work/predictions.jsonl"
.build/release/workbench export "$model" --format onnx -o "$work/drawings.onnx" >/dev/null
.venv/bin/python3 scripts/check/check-onnx-against-classify.py "$work/drawings.onnx" "$work/predictions.jsonl" |
    .venv/bin/python3 -c 'import json, sys; r = json.load(sys.stdin); r.pop("labels"); print(json.dumps(r))'
