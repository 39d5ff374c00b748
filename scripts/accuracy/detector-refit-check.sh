#!/usr/bin/env bash
# Does `train --refit` help a detector? Measured on the hand-checked validation frames only: the testing pictures
# are not read.
#
# The same configuration (default: --input-side 512 --epochs 30, detector-real-choice.sh's last choice) is trained
# on datasets/scenes-real-frames' training pictures at each seed three ways: without a refit (the chosen epoch's
# head, trained on 80 % of the pictures), with `--refit chosen` (a new head trained on all of them for the chosen
# number of epochs) and with `--refit all` (the same for every epoch of --epochs); each is scored on
# datasets/scenes-real-frames-validation (`workbench evaluate --json`). Prints one row per seed and variant and the
# means: mAP@0.5, mAP@0.5:0.95, and person and car AP@0.5.
#
# The rule (fixed after the `chosen` runs, before the `all` ones): a refit becomes the detector's default only if its mean validation mAP@0.5
# over the seeds is above the no-refit runs' (the better refit, if both are).
#
# Usage: scripts/accuracy/detector-refit-check.sh [TRAIN OPTIONS...]
#   SEEDS="42 7 3" (default) chooses the seeds. Models and reports go to .build/detector-refit-check/; a model
#   already there is reused (remove the folder to train again). About 2-4 minutes a run on 2 cores, maps cached.
set -euo pipefail
cd "$(dirname "$0")/../.."
python=.venv/bin/python3  # set-up's venv
workbench=.build/release/workbench
scripts/setup.sh >/dev/null
options=("$@")
[ ${#options[@]} -gt 0 ] || options=(--input-side 512 --epochs 30)
labelling="tiles 3, min-score 0.5, step 0.5"
[ -f "datasets/scenes/Training Data/annotations.json" ] || "$python" datasets/build_scenes.py >/dev/null
[ -f "datasets/scenes-real-frames-validation/annotations.json" ] && [ -f "datasets/scenes-real-frames/Training Data/annotations.json" ] &&
    [ "$(cat datasets/scenes-real-frames/labelling.txt 2>/dev/null)" = "$labelling" ] ||
    "$python" scripts/accuracy/detector-real-frames.py --workbench "$workbench"
work=.build/detector-refit-check
mkdir -p "$work"
export WORKBENCH_CACHE="$PWD/.build/detector-scenes/cache"  # shared with detector-scenes.sh and detector-real-choice.sh
tag=$(printf '%s' "${options[*]}" | sed -E 's/--//g; s/[^A-Za-z0-9]+/-/g')

for seed in ${SEEDS:-42 7 3}; do
    for variant in no-refit refit-chosen refit-all; do
        name="$tag-seed$seed-$variant"
        refit=${variant#refit-}
        [ "$variant" = no-refit ] && refit=none
        extra=(--refit "$refit")
        if [ ! -f "$work/$name.validation.json" ]; then
            echo "== $name: load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
            "$workbench" train "datasets/scenes-real-frames/Training Data" "${options[@]}" --seed "$seed" "${extra[@]}" \
                --no-html -o "$work/$name.wbmodel" > "$work/$name.report" 2> "$work/$name.progress" ||
                { tail -n 20 "$work/$name.progress" >&2; exit 1; }
            "$workbench" evaluate "$work/$name.wbmodel" datasets/scenes-real-frames-validation --json > "$work/$name.validation.json.tmp"
            mv "$work/$name.validation.json.tmp" "$work/$name.validation.json"
        fi
    done
done

"$python" - "$work" "$tag" ${SEEDS:-42 7 3} <<'EOF'
import json, sys
work, tag, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
def scores(name):
    report = json.load(open(f"{work}/{name}.validation.json"))
    per = {label["label"]: label["averagePrecision50"] for label in report["labels"]}
    # Precision and recall at the stored threshold: chosen on the held-out pictures with the chosen epoch's head,
    # and carried over to a refit head unmeasured, so they show whether it still suits the head stored.
    return [report["meanAveragePrecision50"], report["meanAveragePrecision"], per.get("person"), per.get("car"),
            report["precision"], report["recall"]]
print(f"validation frames (12 people, 6 parked vehicles), options: {tag}")
variants = ("no-refit", "refit-chosen", "refit-all")
widths = (8, 10, 7, 7, 10, 7)
print(f"{'seed':>6} {'variant':>12} {'mAP@0.5':>8} {'mAP@.5:.95':>10} {'person':>7} {'car':>7} {'precision':>10} {'recall':>7}")
sums = {variant: [0.0] * len(widths) for variant in variants}
for seed in seeds:
    for variant in variants:
        row = scores(f"{tag}-seed{seed}-{variant}")
        sums[variant] = [a + (b or 0) for a, b in zip(sums[variant], row)]
        print(f"{seed:>6} {variant:>12} " + " ".join(f"{v:>{w}.3f}" for v, w in zip(row, widths)))
for variant in variants:
    mean = [v / len(seeds) for v in sums[variant]]
    print(f"{'mean':>6} {variant:>12} " + " ".join(f"{v:>{w}.3f}" for v, w in zip(mean, widths)))
EOF
