#!/usr/bin/env bash
# Test accuracy of `workbench train` against the reference pipeline (reference network features + scikit-learn's
# LogisticRegression) on the same Create ML-style dataset and split, with the same regularisation (l2 = 1/C, the
# whole training folder, no validation hold-out), and Workbench's default run (strength chosen by validation) too.
#
# Usage: scripts/accuracy/compare-reference.sh [DATASET]   (default: datasets/drawings)
set -euo pipefail
cd "$(dirname "$0")/../.."
dataset=${1:-datasets/drawings}
scripts/setup.sh
onnx=$(scripts/accuracy/reference-onnx.sh)
reference=$(.venv/bin/python3 scripts/accuracy/reference-accuracy.py "$onnx" "$dataset" --C 1)
same=$(.build/release/workbench train "$dataset" --l2 1 --validation-fraction 0 --json -o .build/compare.wbmodel 2>/dev/null)
default=$(.build/release/workbench train "$dataset" --json -o .build/compare-default.wbmodel 2>/dev/null)
.venv/bin/python3 - "$reference" "$same" "$default" <<'PY'
import json, sys
reference, same, default = (json.loads(text) for text in sys.argv[1:4])
print(f"reference (onnxruntime + scikit-learn, C=1): testing {100 * reference['testing_accuracy']:.1f} % of {reference['testing_count']}")
print(f"workbench --l2 1 --validation-fraction 0:     testing {100 * same['testing']['accuracy']:.1f} % of {same['testing']['count']}")
print(f"workbench default (l2 chosen = {default['settings']['l2']:g}):       testing {100 * default['testing']['accuracy']:.1f} % of {default['testing']['count']}")
difference = abs(same['testing']['accuracy'] - reference['testing_accuracy']) * 100
one_image = 100 / reference['testing_count']
print(f"difference at equal settings: {difference:.1f} points (allowed: {max(1, one_image):.1f})")
PY
