#!/usr/bin/env bash
# Does fine-tuning hold on small data? Issue 26's "Done when" table: for each dataset and seed, the frozen default
# (`workbench train`) against the automatic fine-tuning (`workbench train --fine-tune-auto`: folds, decision, refit),
# both at --threads 2, on datasets built from Debian packages by the recipes in datasets/.
#
# Hard or easy is stated BEFORE any fine-tuning runs, from the frozen head's cross-validated accuracy at seed 42
# (the report's validation accuracy, repeated 5-fold over the training images): easy at or above $EASY_FROM
# (default 0.90), hard below. Testing images choose nothing: the fine-tuned side's epoch and decision are made on
# folds of the training images, the frozen side's L2 by cross-validation.
#
# Printed per dataset and seed: training and testing counts, the frozen head's cross-validated accuracy, testing
# accuracy of the frozen default and of --fine-tune-auto, their difference in images, what --fine-tune-auto did
# (not tried / frozen kept / fine-tuned) with the folds' held-out gain in images, and the fine-tuning run's wall
# time with the load average at its end (other jobs share this machine's cores). Then the issue's checks: the
# worst difference in images (must be >= -1), the mean gain on hard sets (>= 5 points), on easy sets (>= 0).
# Beside each difference, the testing images only one side gets right (auto's / the frozen head's) and the exact
# two-sided sign test on them (McNemar's): how likely a split at least that uneven is if neither side is better.
#
# Usage: scripts/accuracy/finetune-holds.sh [DATASET ...]
#            (default: emoticons weather folders photos drawings devices furniture filetypes clothes tops shapes; 1-8 minutes per fine-tuning run on 2 cores)
#        SEEDS="42 7 3" (default) scripts/accuracy/finetune-holds.sh emoticons
#        WORKBENCH=path/to/workbench scripts/accuracy/finetune-holds.sh    (another build; set-up is skipped)
#        SUMMARY_ONLY=1 scripts/accuracy/finetune-holds.sh ...              (print the table of the runs made so far)
#        JOBS=2 scripts/accuracy/finetune-holds.sh                          (two fine-tuning runs at once)
#        RECIPE_EASY="photos furniture clothes clothes-wide-test shapes" (default)   the sets the recipes meant as easy: the means are printed for
#                                                   this grouping too, beside the cross-validated one
#        VARIANT=single AUTO_OPTIONS="--refits 1" scripts/accuracy/finetune-holds.sh clothes-wide-test
#            (a variant of --fine-tune-auto against the same frozen runs: its runs are kept as DATASET.SEED.auto.NAME.json
#            beside the default's, and the table shows the variant in the auto column; never a way to choose a default,
#            which is chosen on the outer split, scripts/accuracy/finetune-outer-split.sh)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/accuracy/common.sh
datasets=("$@")
[ ${#datasets[@]} -eq 0 ] && datasets=("${holds_datasets[@]}")
read -r -a seeds <<< "${SEEDS:-42 7 3}"
easy_from=${EASY_FROM:-0.90}
work=.build/finetune-holds
mkdir -p "$work"
variant=${VARIANT:-}
auto_options=${AUTO_OPTIONS:-}
[ -n "$variant" ] || [ -z "$auto_options" ] || { echo "finetune-holds: AUTO_OPTIONS needs a VARIANT name" >&2; exit 2; }
auto_kind=auto${variant:+.$variant}

[ -z "${SUMMARY_ONLY:-}" ] && accuracy_workbench finetune-holds

# run NAME SEED KIND [OPTIONS...]: one `workbench train`, its JSON report in $work/NAME.SEED.KIND.json, wall seconds
# and the 1-minute load average at its end in .seconds
run() {
    local name=$1 seed=$2 kind=$3
    shift 3
    echo "finetune-holds: $(date -u +%H:%M:%S) $name seed $seed $kind: workbench train datasets/$name --seed $seed --threads 2 $*" >&2
    local started ended
    started=$(date +%s.%N)
    "$workbench" train "datasets/$name" --seed "$seed" --threads 2 --json --no-html -o "$work/$name.$seed.$kind.wbmodel" "$@" \
        > "$work/$name.$seed.$kind.json" 2> "$work/$name.$seed.$kind.log"
    ended=$(date +%s.%N)
    echo "$(echo "$ended - $started" | bc) $(cut -d' ' -f1 /proc/loadavg)" > "$work/$name.$seed.$kind.seconds"
    rm -f "$work/$name.$seed.$kind.wbmodel"
}

if [ -z "${SUMMARY_ONLY:-}" ]; then
    # The frozen runs first (features cached: seconds each), so hard and easy are fixed before any fine-tuning;
    # seed 42's always, whatever SEEDS says, since it is the one that fixes them.
    for name in "${datasets[@]}"; do
        build_dataset "$name" finetune-holds
        for seed in $(printf '%s\n' 42 "${seeds[@]}" | awk '!seen[$0]++'); do
            [ -s "$work/$name.$seed.frozen.json" ] || run "$name" "$seed" frozen
        done
    done
    "$python" - "$work" "$easy_from" "${datasets[@]}" <<'PY'
import json, pathlib, sys
work, easy_from, names = pathlib.Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
for name in names:
    report = json.loads((work / f"{name}.42.frozen.json").read_text())
    accuracy = report["validation"]["accuracy"]
    kind = "easy" if accuracy >= easy_from else "hard"
    (work / f"{name}.kind").write_text(kind)
    print(f"finetune-holds: {name}: frozen cross-validated accuracy {100 * accuracy:.1f} % at seed 42: {kind}", file=sys.stderr)
PY
    # Seeds outside, datasets inside: a run cut short still has every dataset at the first seeds. JOBS runs at once
    # (default 1; their wall times then include each other's load).
    export -f run
    export work workbench auto_kind auto_options
    for seed in "${seeds[@]}"; do
        for name in "${datasets[@]}"; do
            [ -s "$work/$name.$seed.$auto_kind.json" ] || echo "$name $seed"
        done
    done | xargs -P "${JOBS:-1}" -L 1 bash -c 'read -r -a options <<< "$auto_options"; run "$0" "$1" "$auto_kind" --fine-tune-auto ${options[@]+"${options[@]}"}' 
fi

"$python" - "$work" "${seeds[*]}" "$easy_from" "${RECIPE_EASY-photos furniture clothes clothes-wide-test shapes}" "$auto_kind" "${auto_options}" "${datasets[@]}" <<'PY'
import json, math, pathlib, sys
work, seeds, easy_from, recipe_easy, auto_kind, auto_options, names = (
    pathlib.Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3], set(sys.argv[4].split()), sys.argv[5], sys.argv[6], sys.argv[7:])


def load(name, seed, kind):
    path = work / f"{name}.{seed}.{kind}.json"
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def wrong(report):
    return {entry["path"] for entry in report["testingEvaluation"]["misclassified"]}


def sign_test(wins, losses):
    """Exact two-sided p of a split at least this uneven between wins and losses, each side equally likely."""
    total = wins + losses
    if total == 0:
        return 1.0
    tail = sum(math.comb(total, count) for count in range(min(wins, losses) + 1)) / 2 ** total
    return min(1.0, 2 * tail)


def wall(name, seed, kind):
    path = work / f"{name}.{seed}.{kind}.seconds"
    if not path.exists():
        return "–"
    seconds, load_average = path.read_text().split()
    return f"{float(seconds):.0f} s (load {load_average})"


print("frozen: workbench train DATASET --seed S --threads 2; auto: the same with --fine-tune-auto"
      + (f" {auto_options}".rstrip() + f" (variant {auto_kind[5:]})" if auto_kind != "auto" else ""))
print(f"{'dataset':10s} {'kind':4s} {'seed':>4s} {'train':>5s} {'test':>4s} {'CV':>6s} {'frozen':>7s} {'auto':>7s} "
      f"{'images':>6s} {'only':>7s} {'p':>4s}  {'what --fine-tune-auto did':42s} {'auto wall time'}")
differences, gains, runs = [], {"hard": [], "easy": []}, []
for name in names:
    kind_path = work / f"{name}.kind"
    kind = kind_path.read_text() if kind_path.exists() else "?"
    for seed in seeds:
        frozen, auto = load(name, seed, "frozen"), load(name, seed, auto_kind)
        if frozen is None or auto is None:
            continue
        count = frozen["testing"]["count"]
        before, after = frozen["testing"]["accuracy"], auto["testing"]["accuracy"]
        images = round((after - before) * count)
        auto_only, frozen_only = len(wrong(frozen) - wrong(auto)), len(wrong(auto) - wrong(frozen))
        differences.append((images, name, seed))
        if kind in gains:
            gains[kind].append(after - before)
        runs.append((name, seed, after - before))
        tuning, choice = auto.get("fineTuning"), auto.get("fineTuningChoice")
        if tuning is None:
            did = "not tried" + (f" (CV {100 * frozen['validation']['accuracy']:.1f} %)" if choice else "")
        else:
            decision = tuning.get("decision") or {}
            gained = decision.get("gainedImages", "?")
            held = decision.get("heldOutImages", "?")
            verdict = "frozen kept" if tuning["keptFrozenModel"] else f"fine-tuned, epoch {decision.get('epoch', '?')}"
            did = f"{verdict}; folds {gained:+d} of {held}" if isinstance(gained, int) else verdict
        print(f"{name:10s} {kind:4s} {seed:>4s} {frozen['training']['count']:5d} {count:4d} "
              f"{100 * frozen['validation']['accuracy']:5.1f}% {100 * before:6.1f}% {100 * after:6.1f}% {images:+6d} "
              f"{f'+{auto_only}/-{frozen_only}':>7s} {sign_test(auto_only, frozen_only):4.2f}  {did:42s} {wall(name, seed, auto_kind)}")
if differences:
    worst = min(differences)
    print(f"worst difference: {worst[0]:+d} testing images ({worst[1]}, seed {worst[2]}): "
          f"{'holds' if worst[0] >= -1 else 'FAILS'} (never more than one image below the frozen head)")
def means(groups, how):
    for kind, bound in (("hard", 0.05), ("easy", 0.0)):
        values = groups[kind]
        if values:
            mean = sum(values) / len(values)
            print(f"mean gain on {kind} sets ({how}): {100 * mean:+.1f} points over {len(values)} runs: "
                  f"{'holds' if mean >= bound else 'FAILS'} (at least {100 * bound:+.0f})")


means(gains, f"by the frozen head's cross-validated accuracy at seed 42, easy from {100 * float(easy_from):.0f} %")
# The same runs grouped as the recipes meant them, stated before any training (RECIPE_EASY).
by_recipe = {"hard": [], "easy": []}
for name, seed, gain in runs:
    by_recipe["easy" if name in recipe_easy else "hard"].append(gain)
means(by_recipe, "as the recipes meant them, easy: " + (", ".join(sorted(recipe_easy)) or "none"))
PY
