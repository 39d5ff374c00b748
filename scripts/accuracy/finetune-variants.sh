#!/usr/bin/env bash
# Issue 26's "better fine-tuned models", each measured on held-out data before it could become a default: plain
# `--fine-tune` against WiSE-FT (`--fine-tuned-weight 0.5`: every trained weight halfway between the start and the
# fine-tuned one) and a backbone learning rate below the head's (`--backbone-learning-rate 3e-5`, head 1e-4).
#
# The measure is the folds' own: below 1,000 training images `train --fine-tune` fine-tunes on 3 stratified folds of
# the training images and scores every epoch on each fold's held-out third; the same --seed gives every variant the
# same folds and the same frozen heads, so the pooled held-out accuracy at each variant's chosen epoch compares
# directly. Testing images are not printed: nothing here may be chosen on them.
#
# Printed per dataset and variant: the frozen heads' pooled held-out accuracy, the chosen epoch, fine-tuning's pooled
# held-out accuracy there, the gain in held-out images, what the rule kept, and the wall time.
#
# Usage: scripts/accuracy/finetune-variants.sh [DATASET ...]      (default: emoticons weather folders, the hard
#                                                                   icon sets; about 3-5 minutes a run on 2 cores)
#        SEED=7 scripts/accuracy/finetune-variants.sh               (default seed 42)
#        WORKBENCH=path/to/workbench scripts/accuracy/finetune-variants.sh   (another build; set-up is skipped)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/accuracy/common.sh
datasets=("$@")
[ ${#datasets[@]} -eq 0 ] && datasets=(emoticons weather folders)
seed=${SEED:-42}
work=.build/finetune-variants
mkdir -p "$work"
accuracy_workbench finetune-variants

variants=("plain|" "wise-ft-0.5|--fine-tuned-weight 0.5" "backbone-lr-3e-5|--backbone-learning-rate 3e-5")
for name in "${datasets[@]}"; do
    build_dataset "$name" finetune-variants
    for variant in "${variants[@]}"; do
        label=${variant%%|*}
        read -r -a options <<< "${variant#*|}"
        out="$work/$name.$seed.$label"
        [ -s "$out.json" ] && continue
        echo "finetune-variants: $(date -u +%H:%M:%S) $name $label: workbench train datasets/$name --fine-tune --seed $seed --threads 2 ${options[*]}" >&2
        started=$(date +%s)
        "$workbench" train "datasets/$name" --fine-tune --seed "$seed" --threads 2 --json --no-html -o "$out.wbmodel" \
            "${options[@]}" > "$out.json.partial" 2> "$out.log"
        mv "$out.json.partial" "$out.json"
        echo "$(( $(date +%s) - started ))" > "$out.seconds"
        rm -f "$out.wbmodel"
    done
done

"$python" - "$work" "$seed" "${datasets[@]}" <<'PY'
import json, pathlib, sys
work, seed, names = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3:]
labels = ["plain", "wise-ft-0.5", "backbone-lr-3e-5"]
print(f"seed {seed}; folds' pooled held-out accuracy (training images only)")
print(f"{'dataset':10s} {'variant':17s} {'held out':>8s} {'frozen':>7s} {'epoch':>5s} {'tuned':>7s} {'gain':>5s}  {'kept':12s} {'wall':>6s}")
totals = {label: [0, 0] for label in labels}
for name in names:
    for label in labels:
        path = work / f"{name}.{seed}.{label}.json"
        if not path.exists():
            continue
        tuning = json.loads(path.read_text())["fineTuning"]
        decision = tuning["decision"]
        seconds = (work / f"{name}.{seed}.{label}.seconds").read_text().strip()
        held = decision["heldOutImages"]
        totals[label][0] += decision["gainedImages"]
        totals[label][1] += held
        print(f"{name:10s} {label:17s} {held:8d} {100 * tuning['frozenHeldOutAccuracy']:6.1f}% {decision['epoch']:5d} "
              f"{100 * tuning['fineTunedHeldOutAccuracy']:6.1f}% {decision['gainedImages']:+5d}  "
              f"{'fine-tuned' if decision['keptFineTuned'] else 'frozen':12s} {seconds:>5s}s")
print()
for label in labels:
    gained, held = totals[label]
    if held:
        print(f"{label:17s} gains {gained:+d} held-out images of {held} over the frozen heads ({100 * gained / held:+.1f} points)")
PY
