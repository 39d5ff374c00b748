#!/usr/bin/env python3
"""Would a stricter keep rule have paid on the outer split? Reads the reports scripts/accuracy/finetune-outer-split.sh
writes (the frozen default and --fine-tune-auto trained on 80 % of a dataset's training images, scored on the other
20 %), never a dataset's testing images.

The rule Workbench applies (FineTuningDecision): the epoch with the best pooled held-out accuracy over the folds (then
the lower pooled loss, then the earlier epoch); fine-tuning is kept when it gains at least 2 held-out images there and
its mean gain exceeds the standard error of the folds' gains. That gain is read at an epoch chosen on the same
images, so it flatters fine-tuning. The variant checked here, "cross-checked gain", also asks that the gain survive
an epoch chosen elsewhere: for each fold, the epoch is the one the same rule picks on the other folds alone, and the
fold's gain at that epoch is summed over the folds; fine-tuning is kept only when Workbench's rule keeps it and that
sum is at least 2 images. The variant only turns fine-tuned runs into frozen ones, so a flipped run's outer result
is the frozen head's (a difference of 0), every other run's is unchanged.

The room threshold is checked the same way: --fine-tune-auto does not fine-tune when the frozen head's
cross-validated accuracy is at least ROOM, so a run at or above it is the frozen head's (a difference of 0).

Printed per run: the frozen head's cross-validated accuracy, the outer difference in images (auto - frozen), both
rules' decisions and the cross-checked gain; then, per rule and for the room threshold, the total, the worst run and
the mean gain in points on the easy and the hard sets (EASY below).

Usage: .venv/bin/python3 scripts/accuracy/keep-rule-outer.py [FOLDER] [AUTO_KIND[,FALLBACK...]]
       (default .build/finetune-outer and "auto": NAME.SEED.frozen.json beside NAME.SEED.AUTO_KIND.json; with a list,
       each run's first kind that exists, e.g. "auto.soup3,auto" where seeds 42 and 7 were run as VARIANT=soup3 and
       the others with that default; the reports must come from a build that tried fine-tuning on them, i.e. a room
       threshold above ROOM, such as commit b9c9135's)
       ROOM=0.80 (default) the room threshold to check
"""
import glob
import json
import math
import os
import sys

EASY = {"photos", "furniture", "clothes", "shapes"}
MINIMUM_GAINED_IMAGES = 2


def folds_of(report):
    """A fold is (held-out images, frozen right, right per epoch, held-out loss per epoch)."""
    folds = []
    for fold in (report.get("fineTuning") or {}).get("folds") or []:
        images = fold["heldOutImages"]
        folds.append((images, round(fold["frozenHeldOutAccuracy"] * images),
                      [round(epoch["heldOutAccuracy"] * images) for epoch in fold["epochs"]],
                      [epoch["heldOutLoss"] for epoch in fold["epochs"]]))
    return folds


def best_epoch(folds):
    epochs = min(len(fold[2]) for fold in folds)
    return max(range(epochs), key=lambda epoch: (sum(fold[2][epoch] for fold in folds),
                                                 -sum(fold[3][epoch] * fold[0] for fold in folds), -epoch))


def standard_error(values):
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / (len(values) - 1) / len(values))


def current_rule(folds):
    best = best_epoch(folds)
    gained = sum(fold[2][best] - fold[1] for fold in folds)
    images = sum(fold[0] for fold in folds)
    gains = [(fold[2][best] - fold[1]) / fold[0] for fold in folds]
    return gained >= MINIMUM_GAINED_IMAGES and gained / images > standard_error(gains)


def cross_checked_gain(folds):
    total = 0
    for index, fold in enumerate(folds):
        epoch = best_epoch(folds[:index] + folds[index + 1:])
        total += fold[2][epoch] - fold[1]
    return total


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else ".build/finetune-outer"
    kinds = (sys.argv[2] if len(sys.argv) > 2 else "auto").split(",")
    room = float(os.environ.get("ROOM", "0.80"))
    rows = []
    for frozen_path in sorted(glob.glob(os.path.join(folder, "*.*.frozen.json"))):
        name, seed = os.path.basename(frozen_path).split(".")[:2]
        if os.path.basename(frozen_path) != f"{name}.{seed}.frozen.json":
            continue
        path = next((candidate for candidate in (os.path.join(folder, f"{name}.{seed}.{kind}.json") for kind in kinds)
                     if os.path.exists(candidate)), None)
        if path is None:
            continue
        auto, frozen = json.load(open(path)), json.load(open(frozen_path))
        count = frozen["testing"]["count"]
        validation = frozen["validation"]["accuracy"]
        difference = round((auto["testing"]["accuracy"] - frozen["testing"]["accuracy"]) * count)
        folds = folds_of(auto)
        if len(folds) < 2:
            rows.append((name, seed, count, difference, None, None, None, validation))
            continue
        kept = current_rule(folds)
        if kept == auto["fineTuning"]["keptFrozenModel"]:
            sys.exit(f"keep-rule-outer: {path}: the rule recomputed here disagrees with the report's decision")
        checked = cross_checked_gain(folds)
        rows.append((name, seed, count, difference, kept, kept and checked >= MINIMUM_GAINED_IMAGES, checked, validation))
    if not rows:
        sys.exit(f"keep-rule-outer: no NAME.SEED.{{{','.join(kinds)}}}.json beside a frozen report in {folder}")

    rows.sort(key=lambda row: row[7])
    print(f"| dataset | seed | frozen CV | outer images | auto - frozen | current rule | cross-checked gain | variant |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, seed, count, difference, kept, variant, checked, validation in rows:
        word = lambda keeps: "-" if keeps is None else ("fine-tuned" if keeps else "frozen")
        print(f"| {name} | {seed} | {100 * validation:.1f} % | {count} | {difference:+d} | {word(kept)} | "
              f"{'-' if checked is None else f'{checked:+d}'} | {word(variant)} |")
    for label, variant in (("current rule", None), ("cross-checked", "cross-checked"), (f"room below {100 * room:.0f} %", "room")):
        outcomes = []
        for name, seed, count, difference, kept, kept_by_variant, _, validation in rows:
            # The runs as they came out; a variant differs only where it gives the frozen head instead: the
            # cross-checked rule where it turns a kept fine-tuning down, the room threshold where it does not try.
            frozen_instead = (variant == "cross-checked" and kept and not kept_by_variant) or (variant == "room" and validation >= room)
            outcomes.append((0 if frozen_instead else difference, name, seed, count))
        worst = min(outcomes)
        line = f"{label}: {sum(o[0] for o in outcomes):+d} outer images over {len(outcomes)} runs, worst {worst[0]:+d} ({worst[1]} {worst[2]})"
        for group in ("easy", "hard"):
            points = [100 * o[0] / o[3] for o in outcomes if (o[1] in EASY) == (group == "easy")]
            if points:
                line += f", {group} {sum(points) / len(points):+.2f} points ({len(points)} runs)"
        print(line)


if __name__ == "__main__":
    main()
