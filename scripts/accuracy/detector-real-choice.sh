#!/usr/bin/env bash
# Issue 27's measurement with real training pictures, the configuration chosen without the testing pictures.
#
# Data (built if missing): datasets/scenes (300 synthetic scenes, 13 real testing pictures with 66 hand-drawn boxes)
# plus vtest.avi frames every 0.5 s labelled by the built-in person detector
# (scripts/accuracy/detector-real-frames.py), and datasets/scenes-real-frames-validation: three hand-checked
# vtest.avi frames, never trained on, 4.5 s or more from every testing and training frame.
#
# The grid, fixed before any of its runs: input side 512 or 640, 30 or 60 epochs, every other setting the default
# (frozen backbone, seed 42). Each model is scored on the validation frames (`workbench evaluate ... --json`); the
# highest validation mAP@0.5 is chosen (a tie goes to the cheaper run). With --fine-tune, the chosen configuration
# is trained once more with `--fine-tune` and kept only if its validation mAP@0.5 is higher. Only then are the
# testing pictures scored, every run's printed and the chosen one marked: the testing pictures choose nothing.
#
# Usage: scripts/accuracy/detector-real-choice.sh [--fine-tune]   (15-25 minutes on 2 cores, the first time more for the
#        pictures' maps; --fine-tune adds about 10)
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv
workbench=.build/release/workbench
scripts/setup.sh >/dev/null
fine_tune=${1:-}
[ -f "datasets/scenes/Training Data/annotations.json" ] || "$python" datasets/build_scenes.py >/dev/null
[ -f "datasets/scenes-real-frames-validation/annotations.json" ] ||
    "$python" scripts/accuracy/detector-real-frames.py --workbench "$workbench"
work=.build/detector-real-choice
mkdir -p "$work"
export WORKBENCH_CACHE="$PWD/.build/detector-scenes/cache"  # the synthetic pictures' maps, shared with detector-scenes.sh

# map50 REPORT.json: the mean AP@0.5 of an `evaluate --json` report
map50() { "$python" -c 'import json, sys; print("%.4f" % json.load(open(sys.argv[1]))["meanAveragePrecision50"])' "$1"; }

# train NAME OPTIONS...: one model, its validation score in $work/NAME.validation.json
train() {
    local name=$1
    shift
    echo "== $name: workbench train datasets/scenes-real-frames $*; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
    /usr/bin/time -f "%e s wall, %U s user + %S s system CPU" -o "$work/$name.time" \
        "$workbench" train datasets/scenes-real-frames "$@" --no-html -o "$work/$name.wbmodel" \
        > "$work/$name.report" 2> "$work/$name.progress"
    "$workbench" evaluate "$work/$name.wbmodel" datasets/scenes-real-frames-validation --json > "$work/$name.validation.json"
    echo "   $(cat "$work/$name.time"); validation mAP@0.5 $(map50 "$work/$name.validation.json")"
}

runs=()
for side in 512 640; do
    for epochs in 30 60; do
        train "side$side-epochs$epochs" --input-side "$side" --epochs "$epochs"
        runs+=("side$side-epochs$epochs")
    done
done
# The first strictly best in the grid's order (cheaper first) is the choice.
chosen=${runs[0]}
for name in "${runs[@]}"; do
    if [ "$("$python" -c 'import sys; print(float(sys.argv[1]) > float(sys.argv[2]))' \
        "$(map50 "$work/$name.validation.json")" "$(map50 "$work/$chosen.validation.json")")" = True ]; then
        chosen=$name
    fi
done
echo "chosen on the validation frames: $chosen"
if [ "$fine_tune" = --fine-tune ]; then
    side=${chosen#side}; side=${side%%-*}; epochs=${chosen##*epochs}
    train "$chosen-fine-tuned" --input-side "$side" --epochs "$epochs" --fine-tune
    runs+=("$chosen-fine-tuned")
    if [ "$("$python" -c 'import sys; print(float(sys.argv[1]) > float(sys.argv[2]))' \
        "$(map50 "$work/$chosen-fine-tuned.validation.json")" "$(map50 "$work/$chosen.validation.json")")" = True ]; then
        chosen=$chosen-fine-tuned
    fi
    echo "chosen after --fine-tune: $chosen"
fi

echo
echo "| run | validation mAP@0.5 | testing mAP@0.5 | testing mAP@0.5:0.95 | car / person AP@0.5 | train time |"
echo "| --- | --- | --- | --- | --- | --- |"
for name in "${runs[@]}"; do
    "$workbench" evaluate "$work/$name.wbmodel" datasets/scenes-real-frames --json > "$work/$name.testing.json"
    "$python" - "$work/$name.validation.json" "$work/$name.testing.json" "$name" "$chosen" "$(cat "$work/$name.time")" <<'EOF'
import json, sys
validation, testing = (json.load(open(path)) for path in sys.argv[1:3])
name, chosen, seconds = sys.argv[3:6]
per_label = " / ".join(f"{label['averagePrecision50']:.3f}" for label in testing["labels"])
mark = " **(chosen)**" if name == chosen else ""
print(f"| {name}{mark} | {validation['meanAveragePrecision50']:.3f} | {testing['meanAveragePrecision50']:.3f} | "
      f"{testing['meanAveragePrecision']:.3f} | {per_label} | {seconds.split(',')[0]} |")
EOF
done
