#!/usr/bin/env python3
"""Which keep rule would have paid on held-out images? A leave-one-fold-out comparison that reads only the folds
(training images) of `train --fine-tune-auto` reports, never testing accuracy.

`workbench train --fine-tune` decides on 3 folds: the epoch with the best pooled held-out accuracy, and fine-tuning
is kept only when it gains at least 2 held-out images and its mean gain exceeds NOISE × the standard error of the
folds' gains (NOISE is 1 in Workbench). Choosing the epoch and judging the gain on the same folds flatters the
fine-tuned side, so this script judges each candidate NOISE on a fold the decision did not see: for every report
and every fold k, the rule is applied to the other two folds (epoch and keep), and the outcome is fold k's gain in
images at that epoch when kept, 0 when not. Totals are printed per NOISE for the easy and the hard sets (by the
recipes' intent, EASY below), with the number of folds where the decision lost images.

Usage: .venv/bin/python3 scripts/accuracy/keep-rule-folds.py [REPORT_FOLDER]   (default .build/finetune-holds,
       the JSON reports scripts/accuracy/finetune-holds.sh writes as NAME.SEED.auto.json)
"""
import glob
import json
import math
import os
import sys

EASY = {"photos", "furniture", "clothes", "shapes"}
NOISE_MULTIPLES = (0, 1, 1.5, 2, 3)
MINIMUM_GAINED_IMAGES = 2


def fold_scores(folder: str):
    """(dataset, seed, folds) per report with folds; a fold is (held-out images, frozen right, right per epoch,
    held-out loss per epoch)."""
    for path in sorted(glob.glob(os.path.join(folder, "*.auto.json"))):
        name, seed = os.path.basename(path).split(".")[:2]
        fine_tuning = json.load(open(path)).get("fineTuning") or {}
        folds = []
        for fold in fine_tuning.get("folds") or []:
            images = fold["heldOutImages"]
            folds.append((images, round(fold["frozenHeldOutAccuracy"] * images),
                          [round(epoch["heldOutAccuracy"] * images) for epoch in fold["epochs"]],
                          [epoch["heldOutLoss"] for epoch in fold["epochs"]]))
        if len(folds) > 1:
            yield name, seed, folds


def standard_error(values):
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    return math.sqrt(sum((value - mean) ** 2 for value in values) / (len(values) - 1) / len(values))


def decide(folds, noise):
    """Workbench's rule (FineTuningDecision) on `folds` with `noise` standard errors: (keeps, epoch index)."""
    epochs = min(len(fold[2]) for fold in folds)
    # Best pooled accuracy, then the lower pooled loss, then the earlier epoch.
    best = max(range(epochs), key=lambda epoch: (sum(fold[2][epoch] for fold in folds),
                                                 -sum(fold[3][epoch] * fold[0] for fold in folds), -epoch))
    gained = sum(fold[2][best] - fold[1] for fold in folds)
    images = sum(fold[0] for fold in folds)
    gains = [(fold[2][best] - fold[1]) / fold[0] for fold in folds]
    return gained >= MINIMUM_GAINED_IMAGES and gained / images > noise * standard_error(gains), best


def main() -> None:
    folder = sys.argv[1] if len(sys.argv) > 1 else ".build/finetune-holds"
    runs = list(fold_scores(folder))
    if not runs:
        sys.exit(f"keep-rule-folds: no --fine-tune-auto report with folds in {folder}")
    print(f"{len(runs)} reports ({', '.join(sorted({name for name, _, _ in runs}))}); easy by intent: {', '.join(sorted(EASY))}")
    print("| noise multiple | easy: held-out gain | easy: folds lost | hard: held-out gain | hard: folds lost |")
    print("| --- | --- | --- | --- | --- |")
    for noise in NOISE_MULTIPLES:
        totals = {"easy": [0, 0, 0], "hard": [0, 0, 0]}
        for name, _, folds in runs:
            total = totals["easy" if name in EASY else "hard"]
            for left_out in range(len(folds)):
                keeps, epoch = decide(folds[:left_out] + folds[left_out + 1:], noise)
                images, frozen, right, _ = folds[left_out]
                outcome = right[epoch] - frozen if keeps else 0
                total[0] += outcome
                total[1] += outcome < 0
                total[2] += images
        cells = [f"{t[0]:+d} of {t[2]} ({100 * t[0] / t[2]:+.2f} points) | {t[1]}" for t in (totals["easy"], totals["hard"])]
        print(f"| {noise:g}{' (Workbench)' if noise == 1 else ''} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
