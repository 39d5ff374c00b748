#!/usr/bin/env bash
# Issue 26's held-out step: does `--fine-tune-auto` (folds, decision, refit) beat the frozen default on images that
# neither the folds nor the testing set hold? Any change to the fine-tuning defaults is to be judged here, on the
# training images alone, before the testing table (scripts/accuracy/finetune-holds.sh) is run again.
#
# For each dataset and seed: the dataset's training images are dealt, per label and seeded, into an inner 80 % and an
# outer 20 % (symbolic links in .build/finetune-outer/NAME.SEED/{Training Data,Testing Data}); `workbench train` runs
# on the inner 80 % frozen and with --fine-tune-auto (both --seed S --threads 2), and each is scored on the outer
# 20 %, which plays the testing set's part. The dataset's own testing images are not read.
#
# Printed per dataset and seed: inner and outer counts, the frozen head's cross-validated accuracy on the inner
# images, both outer accuracies, the difference in outer images, and what --fine-tune-auto did (the folds' gain);
# then the worst difference and the mean gain on the sets the recipes meant as easy and as hard.
#
# Usage: scripts/accuracy/finetune-outer-split.sh [DATASET ...]
#            (default: the eleven of finetune-holds.sh; 2-5 minutes per dataset and seed on 2 quiet cores)
#        SEEDS="42 7" (default 42)   WORKBENCH=path/to/workbench   SUMMARY_ONLY=1 (print the table of the runs made)
#        Runs already in .build/finetune-outer/ are reused: remove that folder after changing the build or its defaults.
#        RECIPE_EASY="photos furniture clothes shapes" (default)
#        VARIANT=NAME AUTO_OPTIONS="--refits 1"   (a fine-tuning variant: its --fine-tune-auto runs are kept as
#            DATASET.SEED.auto.NAME.json beside the default's and the table compares the two; the frozen runs are
#            shared; a run whose variant report is missing shows "-" there)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/accuracy/common.sh
datasets=("$@")
[ ${#datasets[@]} -eq 0 ] && datasets=("${holds_datasets[@]}")
read -r -a seeds <<< "${SEEDS:-42}"
work=.build/finetune-outer
mkdir -p "$work"
variant=${VARIANT:-}
read -r -a auto_options <<< "${AUTO_OPTIONS:-}"
[ -n "$variant" ] || [ ${#auto_options[@]} -eq 0 ] || { echo "finetune-outer-split: AUTO_OPTIONS needs a VARIANT name" >&2; exit 2; }
[ -z "${SUMMARY_ONLY:-}" ] && accuracy_workbench finetune-outer-split

# split NAME SEED: the inner and outer shares of datasets/NAME's training images, as links
split() {
    "$python" - "datasets/$1/Training Data" "$work/$1.$2" "$2" <<'PY'
import pathlib, random, shutil, sys
source, target, seed = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]), int(sys.argv[3])
shutil.rmtree(target, ignore_errors=True)
for label in sorted(path for path in source.iterdir() if path.is_dir()):
    files = sorted(path for path in label.iterdir() if path.is_file() and not path.name.startswith("."))
    random.Random(f"{seed}/{label.name}").shuffle(files)
    outer = max(1, round(0.2 * len(files))) if len(files) >= 2 else 0  # a lone image stays in training
    for share, chosen in (("Testing Data", files[:outer]), ("Training Data", files[outer:])):
        folder = target / share / label.name
        folder.mkdir(parents=True, exist_ok=True)
        for file in chosen:
            (folder / file.name).symlink_to(file)
PY
}

# run NAME SEED KIND [OPTIONS...]: one `workbench train` on the inner share, its JSON report in $work/NAME.SEED.KIND.json
run() {
    local name=$1 seed=$2 kind=$3
    shift 3
    echo "finetune-outer-split: $(date -u +%H:%M:%S) $name seed $seed $kind" >&2
    "$workbench" train "$work/$name.$seed" --seed "$seed" --threads 2 --json --no-html -o "$work/$name.$seed.$kind.wbmodel" "$@" \
        > "$work/$name.$seed.$kind.json" 2> "$work/$name.$seed.$kind.log" || { tail -n 5 "$work/$name.$seed.$kind.log" >&2; exit 1; }
    rm -f "$work/$name.$seed.$kind.wbmodel"
}

if [ -z "${SUMMARY_ONLY:-}" ]; then
    for seed in "${seeds[@]}"; do
        for name in "${datasets[@]}"; do
            build_dataset "$name" finetune-outer-split
            [ -d "$work/$name.$seed/Testing Data" ] || split "$name" "$seed"
            [ -s "$work/$name.$seed.frozen.json" ] || run "$name" "$seed" frozen
            [ -s "$work/$name.$seed.auto.json" ] || run "$name" "$seed" auto --fine-tune-auto
            if [ -n "$variant" ] && [ ! -s "$work/$name.$seed.auto.$variant.json" ]; then
                run "$name" "$seed" "auto.$variant" --fine-tune-auto ${auto_options[@]+"${auto_options[@]}"}
            fi
        done
    done
fi

"$python" - "$work" "${seeds[*]}" "${RECIPE_EASY-photos furniture clothes shapes}" "$variant" "${datasets[@]}" <<'PY'
import json, pathlib, sys
work, seeds, easy, variant, names = (pathlib.Path(sys.argv[1]), sys.argv[2].split(), set(sys.argv[3].split()), sys.argv[4],
                                     sys.argv[5:])
sides = ["auto"] + ([f"auto.{variant}"] if variant else [])

def did(report):
    tuning = report.get("fineTuning")
    if tuning is None:
        return "not tried"
    decision = tuning.get("decision") or {}
    verdict = "frozen kept" if tuning["keptFrozenModel"] else f"fine-tuned, epoch {decision.get('epoch', '?')}"
    gained = decision.get("gainedImages")
    return f"{verdict}; folds {gained:+d} of {decision.get('heldOutImages', '?')}" if isinstance(gained, int) else verdict

variant_columns = f" {variant[:7]:>7s} {'images':>6s}" if variant else ""
print(f"{'dataset':10s} {'kind':4s} {'seed':>4s} {'inner':>5s} {'outer':>5s} {'CV':>6s} {'frozen':>7s} {'auto':>7s} "
      f"{'images':>6s}{variant_columns}  what --fine-tune-auto did")
differences = {side: [] for side in sides}
gains = {side: {"hard": [], "easy": []} for side in sides}
for name in names:
    kind = "easy" if name in easy else "hard"
    for seed in seeds:
        runs = {}
        for side in ["frozen"] + sides:
            try:
                runs[side] = json.loads((work / f"{name}.{seed}.{side}.json").read_text())
            except (OSError, ValueError):
                pass
        if "frozen" not in runs or "auto" not in runs:
            continue
        frozen = runs["frozen"]
        count = frozen["testing"]["count"]
        before = frozen["testing"]["accuracy"]
        columns = ""
        for side in sides:
            if side not in runs:
                columns += f" {'-':>7s} {'-':>6s}"
                continue
            after = runs[side]["testing"]["accuracy"]
            images = round((after - before) * count)
            differences[side].append((images, name, seed))
            gains[side][kind].append(after - before)
            columns += f" {100 * after:6.1f}% {images:+6d}"
        print(f"{name:10s} {kind:4s} {seed:>4s} {frozen['training']['count']:5d} {count:5d} "
              f"{100 * frozen['validation']['accuracy']:5.1f}% {100 * before:6.1f}%{columns}  {did(runs['auto'])}")
for side in sides:
    label = "default" if side == "auto" else variant
    if differences[side]:
        worst = min(differences[side])
        print(f"{label}: worst difference {worst[0]:+d} outer images ({worst[1]}, seed {worst[2]}), "
              f"{sum(d[0] for d in differences[side]):+d} in all")
    for kind, values in gains[side].items():
        if values:
            print(f"{label}: mean gain on {kind} sets {100 * sum(values) / len(values):+.1f} points over {len(values)} runs")
PY
