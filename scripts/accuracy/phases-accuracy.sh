#!/usr/bin/env bash
# Does `workbench phases` find the phase starts of swings by players it never saw? Issue 25's accuracy "Done when",
# measured on the drawn swings of datasets/build_swings.py (numpy, Pillow, ffmpeg; no footage needed):
#
#   1. build the dataset (8 players: P1-P5 train, 16 swings each; P6-P8 held out, 6 videos each; seed 25),
#   2. train a per-frame model on the training players' frames (`workbench train` with $TRAIN_OPTIONS; unset, the
#      recipe chosen on the validation split: "--fine-tune --no-flip --fine-tune-blocks 2 --epochs 3
#      --keep-fine-tuned", the last two blocks fine-tuned on views that are never mirrored, since a mirrored swing
#      swaps backswing and finish; set but empty, the frozen head),
#   3. on every held-out video run `workbench phases` (default sampling: every frame of these 25 fps videos) and
#      `workbench label --every 0.04 --json` (the same frames) for the arg-max baseline,
#   4. score with GolfDB's tolerance (scripts/accuracy/phases-score.py): `phases` beside an even split of each video
#      and the first frame whose arg-max is each phase.
#
# Nothing here looks at the held-out players before the scoring: the model, the order and every setting are
# fixed by the training players' data and the defaults.
#
# SPLIT=validation is where recipes are compared, so that the held-out players choose nothing: the same steps,
# but the model trains on the frames of the training players that have no validation videos (P1-P3) and is scored
# on the validation players' videos (P4-P5, `Validation Videos`: swings that are not among the training frames,
# by players the model never saw). The held-out split (the default) is then run once, with the chosen recipe.
#
# Usage: scripts/accuracy/phases-accuracy.sh            (about 25 minutes on 2 busy cores)
#        SPLIT=validation scripts/accuracy/phases-accuracy.sh
#        TRAIN_OPTIONS= SPLIT=validation scripts/accuracy/phases-accuracy.sh   (the frozen head)
#        TRAIN_OPTIONS="--fine-tune" PHASES_OPTIONS="--min-length 0.2" SPLIT=validation scripts/accuracy/phases-accuracy.sh
#        WORKBENCH=path/to/workbench scripts/accuracy/phases-accuracy.sh   (another build; set-up is skipped)
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv
chosen_recipe="--fine-tune --no-flip --fine-tune-blocks 2 --epochs 3 --keep-fine-tuned"
TRAIN_OPTIONS=${TRAIN_OPTIONS-$chosen_recipe}
read -r -a train_options <<< "$TRAIN_OPTIONS"
read -r -a phases_options <<< "${PHASES_OPTIONS:-}"
split=${SPLIT:-held-out}
case "$split" in
    held-out|validation) ;;
    *) echo "phases-accuracy: SPLIT must be held-out or validation, got '$split'" >&2; exit 1 ;;
esac
if [ -n "${WORKBENCH:-}" ]; then
    workbench=$WORKBENCH
    "$python" -c "import PIL" 2>/dev/null || { echo "phases-accuracy: run scripts/setup.sh first (.venv/)" >&2; exit 1; }
else
    scripts/setup.sh
    workbench=.build/release/workbench
fi
order=address,backswing,impact,finish
work=.build/phases-accuracy/$split
rm -rf "$work"
mkdir -p "$work/phases" "$work/labels"

"$python" datasets/build_swings.py
data=datasets/swings
training="$data/Training Data"
videos="$data/Testing Videos"
if [ "$split" = validation ]; then
    # The validation players' frames stay out of training: links to the other players' frames, same labels.
    videos="$data/Validation Videos"
    mapfile -t validation_players < <(find "$videos" -name '*.mp4' -printf '%f\n' | sed 's/-v[0-9]*\.mp4$//' | sort -u)
    training="$work/Training Data"
    for folder in "$data/Training Data"/*/; do
        label=$(basename "$folder")
        mkdir -p "$training/$label"
        for frame in "$folder"*.jpg; do
            player=$(basename "$frame"); player=${player%%-*}
            [[ " ${validation_players[*]} " == *" $player "* ]] || ln "$frame" "$training/$label/"
        done
    done
fi
players=$(find "$training" -name '*.jpg' -printf '%f\n' | sed 's/-.*//' | sort -u | paste -sd, -)
echo "phases-accuracy ($split): training on $(find "$training" -name '*.jpg' | wc -l) frames of players $players" >&2
start=$(date +%s)
"$workbench" train "$training" -o "$work/Swings.wbmodel" --no-html "${train_options[@]}" > "$work/train.txt"
echo "phases-accuracy: trained in $(( $(date +%s) - start )) s" >&2
grep -iE "accuracy|validation|held-out" "$work/train.txt" | head -5 >&2 || true

start=$(date +%s)
for video in "$videos"/*.mp4; do
    name=$(basename "$video" .mp4)
    "$workbench" phases "$video" --model "$work/Swings.wbmodel" --order "$order" "${phases_options[@]}" -o "$work/phases/$name.json" > /dev/null 2>> "$work/phases.log"
    "$workbench" label "$work/Swings.wbmodel" "$video" --every 0.04 --json > "$work/labels/$name.json" 2>> "$work/labels.log"
done
echo "phases-accuracy ($split): $(ls "$videos"/*.mp4 | wc -l) videos in $(( $(date +%s) - start )) s" >&2
echo "split $split: trained on players $players, scored on $(basename "$videos"); training options: ${TRAIN_OPTIONS:-(none: frozen head)}; phases options: ${PHASES_OPTIONS:-(defaults)}; order $order"
"$python" scripts/accuracy/phases-score.py "$videos" "$work/phases" "$work/labels"
