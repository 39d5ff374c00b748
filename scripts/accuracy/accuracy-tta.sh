#!/usr/bin/env bash
# Does test-time augmentation (`--tta`) help? Measured on held-out images only: each dataset's training images are
# split (per label, in sorted order, every 5th image) into a fitting share and a held-out share; a model is trained
# on the fitting share alone (`workbench train FIT`, its defaults: cross-validated L2 and calibration inside FIT),
# then `workbench evaluate` scores the held-out share with and without `--tta`. The datasets' testing images are
# never read, so nothing here can tune on a test split.
#
# Datasets: those of accuracy-finetune.sh that were measured before (emoticons, weather, folders: hard icon sets
# split by source; photos, drawings: easy), built from Debian packages by the recipes in datasets/. Not `devices`
# and `furniture`: they are kept unlooked-at for the fine-tuning measurement of issue 26.
#
# With FINE_TUNE=1 each dataset also gets a fine-tuned model (`train FIT --fine-tune $FINETUNE_OPTIONS`, its epoch
# chosen on a share of FIT), scored the same way: a few minutes per dataset on 2 cores.
#
# Printed: per dataset and model, the fitting and held-out counts, held-out accuracy without and with --tta, and the
# difference in points and in images; then the totals over all held-out images.
#
# Usage: scripts/accuracy/accuracy-tta.sh [DATASET ...]        (default: emoticons weather folders photos drawings)
#        FINE_TUNE=1 FINETUNE_OPTIONS="--epochs 5" scripts/accuracy/accuracy-tta.sh emoticons
#        WORKBENCH=path/to/workbench scripts/accuracy/accuracy-tta.sh      (another build; set-up is then skipped)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/accuracy/common.sh
datasets=("$@")
[ ${#datasets[@]} -eq 0 ] && datasets=(emoticons weather folders photos drawings)
read -r -a finetune_options <<< "${FINETUNE_OPTIONS:-}"

accuracy_workbench accuracy-tta
work=.build/accuracy-tta
mkdir -p "$work"

# devices and furniture stay unlooked-at for issue 26's fine-tuning measurement.
build() {
    case "$1" in
        emoticons | weather | folders | photos | drawings) build_dataset "$1" accuracy-tta ;;
        *) echo "accuracy-tta: unknown dataset $1 (emoticons, weather, folders, photos, drawings)" >&2; exit 2 ;;
    esac
}

# split NAME: datasets/NAME/Training Data → $work/NAME/fit and $work/NAME/held-out (hard links, else copies).
split() {
    "$python" - "datasets/$1/Training Data" "$work/$1" <<'PY'
import os, pathlib, shutil, sys
source, target = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
shutil.rmtree(target, ignore_errors=True)
for label in sorted(path for path in source.iterdir() if path.is_dir()):
    files = sorted(path for path in label.iterdir() if path.is_file() and not path.name.startswith("."))
    for index, file in enumerate(files):
        share = "held-out" if index % 5 == 4 else "fit"
        destination = target / share / label.name / file.name
        destination.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(file, destination)
        except OSError:
            shutil.copyfile(file, destination)
PY
}

kinds=(frozen)
[ "${FINE_TUNE:-0}" = 1 ] && kinds+=(finetuned)
for name in "${datasets[@]}"; do
    build "$name"
    split "$name"
    for kind in "${kinds[@]}"; do
        options=()
        [ "$kind" = finetuned ] && options=(--fine-tune "${finetune_options[@]}")
        echo "accuracy-tta: $name, $kind: workbench train $work/$name/fit ${options[*]}" >&2
        "$workbench" train "$work/$name/fit" --json --no-html -o "$work/$name.$kind.wbmodel" "${options[@]}" \
            > "$work/$name.$kind.train.json" 2> "$work/$name.$kind.train.log"
        for mode in plain tta; do
            flag=--no-tta
            [ "$mode" = tta ] && flag=--tta
            "$workbench" evaluate "$work/$name.$kind.wbmodel" "$work/$name/held-out" --json "$flag" \
                > "$work/$name.$kind.$mode.json" 2> "$work/$name.$kind.$mode.log"
        done
    done
done

"$python" - "$work" "${kinds[*]}" "${datasets[@]}" <<'PY'
import json, pathlib, sys
work, kinds, names = pathlib.Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
print("held-out accuracy (every 5th training image per label, never trained on), without and with --tta")
print(f"{'dataset':10s} {'model':9s} {'fit':>4s} {'held':>4s} {'plain':>7s} {'--tta':>7s} {'gain':>6s} {'images':>6s}")
totals = {kind: [0, 0, 0] for kind in kinds}
for name in names:
    for kind in kinds:
        plain = json.loads((work / f"{name}.{kind}.plain.json").read_text())
        averaged = json.loads((work / f"{name}.{kind}.tta.json").read_text())
        trained = json.loads((work / f"{name}.{kind}.train.json").read_text())
        count = plain["count"]
        right = [round(report["accuracy"] * count) for report in (plain, averaged)]
        totals[kind][0] += count
        totals[kind][1] += right[0]
        totals[kind][2] += right[1]
        print(f"{name:10s} {kind:9s} {trained['training']['count']:4d} {count:4d} {100 * plain['accuracy']:6.1f}% "
              f"{100 * averaged['accuracy']:6.1f}% {100 * (averaged['accuracy'] - plain['accuracy']):+6.1f} "
              f"{right[1] - right[0]:+6d}")
for kind, (count, plain, averaged) in totals.items():
    print(f"{'all':10s} {kind:9s} {'':4s} {count:4d} {100 * plain / count:6.1f}% {100 * averaged / count:6.1f}% "
          f"{100 * (averaged - plain) / count:+6.1f} {averaged - plain:+6d}")
PY
