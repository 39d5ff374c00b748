#!/usr/bin/env bash
# Workbench's own detector on datasets/scenes (datasets/build_scenes.py: 300 synthetic cut-paste-learn training
# pictures, 13 real testing pictures with 66 hand-drawn boxes, labels person and car): `workbench train` with the
# frozen backbone at each INPUT_SIDE, every other setting its default. The epoch and threshold are chosen on the
# held-out 20 % of the synthetic pictures; the real testing pictures choose nothing and are scored once (the
# report's "Testing" table: mAP@0.5, mAP@0.5:0.95, per label, precision and recall at the stored threshold). Also
# writes each run's testing predictions (`detect --model --json --min-score 0.001`) so that
# `scripts/accuracy/detector-reference.sh --score FILE` scores them with pycocotools beside the YOLO reference.
# The machine may be shared: the load average is printed before and after each run.
#
# Usage: scripts/accuracy/detector-scenes.sh [INPUT_SIDE ...]   (default 320)
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv
scripts/setup.sh >/dev/null
[ -f "datasets/scenes/Training Data/annotations.json" ] || "$python" datasets/build_scenes.py >/dev/null
work=.build/detector-scenes
mkdir -p "$work"
export WORKBENCH_CACHE="$PWD/$work/cache"
for side in "${@:-320}"; do
    echo "== input side $side, $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    .build/release/workbench train datasets/scenes --input-side "$side" -o "$work/scenes-$side.wbmodel" 2> "$work/progress-$side.txt"
    tail -1 "$work/progress-$side.txt"
    (cd "datasets/scenes/Testing Data" && "$OLDPWD/.build/release/workbench" detect . --model "$OLDPWD/$work/scenes-$side.wbmodel" \
        --json --min-score 0.001) > "$work/predictions-$side.json"
    echo "testing predictions: $work/predictions-$side.json; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
