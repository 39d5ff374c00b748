#!/usr/bin/env python3
"""Scores phase starts against the truth the swing generator wrote, with GolfDB's tolerance, for
`phases-accuracy.sh`: `workbench phases` beside two baselines on the same videos.

A phase start counts as right when it is within max(1, round(F / 30)) frames of the true one, F being the frames
from the true first phase start to the true third (GolfDB's tolerance, there from address to impact). Frames are
the video's own (time × frame rate, rounded).

  phases     the starts in `workbench phases -o` files
  even split each video cut into as many equal parts as there are phases (the first starting at frame 0)
  arg-max    each phase starts at the first sampled frame whose per-frame arg-max label is that phase
             (`workbench label --json` at the same sampling); a phase never the arg-max counts as wrong

Usage: .venv/bin/python3 scripts/accuracy/phases-score.py VIDEOS_FOLDER PHASES_FOLDER LABELS_FOLDER
       (each video NAME.mp4 has its truth NAME.json beside it, PHASES_FOLDER/NAME.json, LABELS_FOLDER/NAME.json)
"""
import json
import pathlib
import subprocess
import sys


def probe(video: pathlib.Path):
    """The video's frame rate and frame count, from ffprobe."""
    output = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                             "stream=r_frame_rate,nb_read_packets", "-of", "json", str(video)],
                            check=True, capture_output=True, text=True).stdout
    stream = json.loads(output)["streams"][0]
    numerator, denominator = stream["r_frame_rate"].split("/")
    return float(numerator) / float(denominator), int(stream["nb_read_packets"])


def golfdb_round(value: float) -> int:
    return int(value + 0.5)  # halves up, not to even


def main() -> None:
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().splitlines()[-2])
    videos, phases_folder, labels_folder = (pathlib.Path(argument) for argument in sys.argv[1:])
    methods = ["phases", "even split", "arg-max"]
    right = {method: {} for method in methods}
    total = {}
    lines = []
    for truth_path in sorted(videos.glob("*.json")):
        name = truth_path.stem
        truth = json.loads(truth_path.read_text())
        order = truth["order"]
        rate, frame_count = probe(videos / f"{name}.mp4")
        true_starts = [golfdb_round(phase["start"] * rate) for phase in truth["phases"]]
        tolerance = max(1, golfdb_round((true_starts[2] - true_starts[0]) / 30))
        found = json.loads((phases_folder / f"{name}.json").read_text())
        predictions = {"phases": [golfdb_round(phase["start"] * rate) for phase in found["phases"]],
                       "even split": [golfdb_round(k * frame_count / len(order)) for k in range(len(order))]}
        labelled = json.loads((labels_folder / f"{name}.json").read_text())
        frames = labelled["frames"]
        predictions["arg-max"] = [next((golfdb_round(frame["second"] * rate) for frame in frames if frame["label"] == label), None)
                                  for label in order]
        marks = []
        for method in methods:
            for label, truth_frame, predicted in zip(order, true_starts, predictions[method]):
                ok = predicted is not None and abs(predicted - truth_frame) <= tolerance
                right[method][label] = right[method].get(label, 0) + int(ok)
            marks.append(" ".join("-" if p is None else f"{p - t:+d}" for p, t in zip(predictions[method], true_starts)))
        for label in order:
            total[label] = total.get(label, 0) + 1
        lines.append(f"{name:10s} tolerance {tolerance} frames   errors (frames) phases [{marks[0]}]  arg-max [{marks[2]}]")
    if not total:
        sys.exit(f"phases-score: no truth files in {videos}")
    print("\n".join(lines))
    print()
    order = list(total)
    count = sum(total.values())
    header = f"| method | phase starts right | {' | '.join(order)} |"
    print(header)
    print("|" + " --- |" * (2 + len(order)))
    for method in methods:
        correct = sum(right[method].values())
        per_label = " | ".join(f"{100 * right[method].get(label, 0) / total[label]:.1f} %" for label in order)
        print(f"| {method} | {100 * correct / count:.1f} % ({correct}/{count}) | {per_label} |")


if __name__ == "__main__":
    main()
