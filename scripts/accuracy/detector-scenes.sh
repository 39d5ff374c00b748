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
# With --fine-tune, each side is trained twice from the same cached maps: frozen, then with `--fine-tune` (blocks
# 11-15 and the head after the frozen head; its epoch chosen on the same held-out pictures), and each run's wall and
# CPU seconds (user + system, the process's) are printed beside its testing scores.
#
# Usage: scripts/accuracy/detector-scenes.sh [--fine-tune] [INPUT_SIDE ...]   (default 320)
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv
scripts/setup.sh >/dev/null
[ -f "datasets/scenes/Training Data/annotations.json" ] || "$python" datasets/build_scenes.py >/dev/null
variants=(frozen)
if [ "${1:-}" = "--fine-tune" ]; then
    variants=(frozen fine-tuned)
    shift
fi
work=.build/detector-scenes
mkdir -p "$work"
export WORKBENCH_CACHE="$PWD/$work/cache"
for side in "${@:-320}"; do
    for variant in "${variants[@]}"; do
        name="$side"
        options=()
        if [ "$variant" = fine-tuned ]; then
            name="$side-fine-tuned"
            options=(--fine-tune)
        fi
        echo "== input side $side, $variant, $(nproc) cores, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
        /usr/bin/time -f "train: %e s wall, %U s user + %S s system CPU" -o "$work/time-$name.txt" \
            .build/release/workbench train datasets/scenes --input-side "$side" "${options[@]}" -o "$work/scenes-$name.wbmodel" \
            > "$work/report-$name.txt" 2> "$work/progress-$name.txt"
        grep -E '^(Chosen|Fine-tun)' "$work/report-$name.txt" || true
        sed -n '/^Testing/,$p' "$work/report-$name.txt" | grep -E '^(Testing:|car |person |all )'
        tail -1 "$work/progress-$name.txt"
        cat "$work/time-$name.txt"
        (cd "datasets/scenes/Testing Data" && "$OLDPWD/.build/release/workbench" detect . --model "$OLDPWD/$work/scenes-$name.wbmodel" \
            --json --min-score 0.001) > "$work/predictions-$name.json"
        echo "testing predictions: $work/predictions-$name.json; load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
    done
done
