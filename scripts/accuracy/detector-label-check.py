#!/usr/bin/env python3
"""How well the built-in person detector labels vtest.avi frames, measured on the hand-checked validation frames:
chooses how scripts/accuracy/detector-real-frames.py labels the people of its training frames (--tiles,
--min-score) without the testing pictures.

For each --tiles setting (0 = the whole frame only) and each score threshold, the detector's person boxes on
datasets/scenes-real-frames-validation are matched to the hand-checked person boxes (highest score first, each hand
box at most once, intersection over union at least 0.5) and counted: matched, spare (a box no hand box matches) and
missed. A training label that is spare teaches a false person; one that is missed teaches that a person is
background. The line with the highest F1 (then fewer tiles, then the higher threshold) is marked.

Usage: .venv/bin/python3 scripts/accuracy/detector-label-check.py --workbench BIN
       (after scripts/accuracy/detector-real-choice.sh or detector-real-frames.py has built the validation folder)
"""
import argparse
import json
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
VALIDATION = ROOT / "datasets" / "scenes-real-frames-validation"
TILES = (0, 2, 3, 4)  # --tiles 1 is the whole frame again
THRESHOLDS = (0.3, 0.4, 0.5, 0.6)


def corners(box):
    """Create ML's centre and size as (left, top, right, bottom)."""
    half_width, half_height = box["width"] / 2, box["height"] / 2
    return box["x"] - half_width, box["y"] - half_height, box["x"] + half_width, box["y"] + half_height


def overlap(first, second):
    """Intersection over union of two Create ML boxes."""
    a, b = corners(first), corners(second)
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    shared = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - shared
    return shared / union if union > 0 else 0.0


def count(found, hand, threshold):
    """(matched, spare, missed) over all frames for the boxes scoring at least `threshold`."""
    matched = spare = total = 0
    for entry in found:
        truth = hand[pathlib.Path(entry["image"]).name]
        total += len(truth)
        taken = set()
        for box in sorted(entry["annotations"], key=lambda box: -box["confidence"]):
            if box["confidence"] < threshold:
                continue
            candidates = [(overlap(box["coordinates"], other), index) for index, other in enumerate(truth)
                          if index not in taken]
            best, index = max(candidates, default=(0.0, None))
            if best >= 0.5:
                matched += 1
                taken.add(index)
            else:
                spare += 1
    return matched, spare, total - matched


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workbench", required=True, type=pathlib.Path, help="the workbench binary")
    arguments = parser.parse_args()
    annotations = VALIDATION / "annotations.json"
    if not annotations.is_file():
        sys.exit(f"{annotations}: build it first (scripts/accuracy/detector-real-choice.sh builds it; or "
                 ".venv/bin/python3 datasets/build_scenes.py, then .venv/bin/python3 "
                 "scripts/accuracy/detector-real-frames.py --workbench .build/release/workbench)")
    hand = {entry["image"]: [box["coordinates"] for box in entry["annotations"] if box["label"] == "person"]
            for entry in json.loads(annotations.read_text())}
    rows = []
    for tiles in TILES:
        for threshold in THRESHOLDS:
            # One run per threshold, as detector-real-frames.py labels: the tiles' merge drops a cut box that another
            # box covers whatever that box's score, so filtering one low-threshold run would not give the same boxes.
            command = [str(arguments.workbench), "detect", str(VALIDATION), "--json", "--min-score", str(threshold)]
            command += ["--tiles", str(tiles)] if tiles else []
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"workbench detect failed: {run.stderr.strip()}")
            found = json.loads(run.stdout)
            matched, spare, missed = count(found, hand, threshold)
            precision = matched / max(1, matched + spare)
            recall = matched / max(1, matched + missed)
            f1 = 2 * precision * recall / (precision + recall) if matched else 0.0
            rows.append((tiles, threshold, matched, spare, missed, f1))
    best = max(rows, key=lambda row: (round(row[5], 6), -row[0], row[1]))
    print(f"{sum(len(boxes) for boxes in hand.values())} hand-checked people in {len(hand)} validation frames")
    print("| --tiles | --min-score | matched | spare | missed | F1 |")
    print("| --- | --- | --- | --- | --- | --- |")
    for row in rows:
        mark = " **(best)**" if row == best else ""
        print(f"| {row[0]}{mark} | {row[1]} | {row[2]} | {row[3]} | {row[4]} | {row[5]:.3f} |")


if __name__ == "__main__":
    main()
