#!/usr/bin/env bash
# Does `workbench phases` find the phase starts of swings by players it never saw? Issue 25's accuracy "Done when",
# measured on the drawn swings of datasets/build_swings.py (numpy, Pillow, ffmpeg; no footage needed):
#
#   1. build the dataset (8 players: P1-P5 train, 16 swings each; P6-P8 held out, 6 videos each; seed 25),
#   2. train a per-frame model on the training players' frames (`workbench train`, frozen head, defaults, plus
#      $TRAIN_OPTIONS, e.g. "--fine-tune"),
#   3. on every held-out video run `workbench phases` (default sampling: every frame of these 25 fps videos) and
#      `workbench label --every 0.04 --json` (the same frames) for the arg-max baseline,
#   4. score with GolfDB's tolerance (scripts/accuracy/phases-score.py): `phases` beside an even split of each video
#      and the first frame whose arg-max is each phase.
#
# Nothing here looks at the held-out players before the scoring: the model, the order and every setting are
# fixed by the training players' data and the defaults.
#
# Usage: scripts/accuracy/phases-accuracy.sh            (about 20 minutes on 2 busy cores)
#        TRAIN_OPTIONS="--fine-tune" scripts/accuracy/phases-accuracy.sh
#        WORKBENCH=path/to/workbench scripts/accuracy/phases-accuracy.sh   (another build; set-up is skipped)
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv
read -r -a train_options <<< "${TRAIN_OPTIONS:-}"
if [ -n "${WORKBENCH:-}" ]; then
    workbench=$WORKBENCH
    "$python" -c "import PIL" 2>/dev/null || { echo "phases-accuracy: run scripts/setup.sh first (.venv/)" >&2; exit 1; }
else
    scripts/setup.sh
    workbench=.build/release/workbench
fi
order=address,backswing,impact,finish
work=.build/phases-accuracy
rm -rf "$work"
mkdir -p "$work/phases" "$work/labels"

"$python" datasets/build_swings.py
data=datasets/swings
echo "phases-accuracy: training on $(find "$data/Training Data" -name '*.jpg' | wc -l) frames of players P1-P5" >&2
start=$(date +%s)
"$workbench" train "$data/Training Data" -o "$work/Swings.wbmodel" --no-html "${train_options[@]}" > "$work/train.txt"
echo "phases-accuracy: trained in $(( $(date +%s) - start )) s" >&2
grep -iE "accuracy|validation|held-out" "$work/train.txt" | head -5 >&2 || true

start=$(date +%s)
for video in "$data/Testing Videos"/*.mp4; do
    name=$(basename "$video" .mp4)
    "$workbench" phases "$video" --model "$work/Swings.wbmodel" --order "$order" -o "$work/phases/$name.json" > /dev/null 2>> "$work/phases.log"
    "$workbench" label "$work/Swings.wbmodel" "$video" --every 0.04 --json > "$work/labels/$name.json" 2>> "$work/labels.log"
done
echo "phases-accuracy: $(ls "$data/Testing Videos"/*.mp4 | wc -l) held-out videos in $(( $(date +%s) - start )) s" >&2
echo "training options: ${TRAIN_OPTIONS:-(defaults: frozen head)}; order $order"
"$python" scripts/accuracy/phases-score.py "$data/Testing Videos" "$work/phases" "$work/labels"
