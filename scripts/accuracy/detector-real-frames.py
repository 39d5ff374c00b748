#!/usr/bin/env python3
"""A variant of datasets/scenes with real training pictures: frames of opencv-doc's vtest.avi labelled by the
built-in person detector, to measure what in-domain real pictures do to issue 27's detector.

The frames are taken every second of vtest.avi except within 4 s of a testing frame (the testing set holds its
frames at 3, 16, 30, 45, 60 and 74 s), so no training frame is a testing frame's near-copy; the people in them are
the same walkers, though, and the camera the same, so what this measures is "a few real pictures of the place",
not generalisation. Each frame's people are the built-in detector's boxes (`workbench detect --tiles 2`, score at
least --min-score; not checked by hand: some are missed or loose), its two parked vehicles the boxes that
datasets/scenes-testing-boxes.json draws on every vtest.avi frame (they never move).

Usage: .venv/bin/python3 scripts/accuracy/detector-real-frames.py --workbench BIN [--out DIR] [--min-score 0.5]
       (needs datasets/scenes built first; writes DIR, default datasets/scenes-real-frames)
"""
import argparse
import json
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "datasets"))
from build_scenes import TESTING_BOXES, opencv_file, video_frame  # noqa: E402

VIDEO_SECONDS = 79  # vtest.avi: 795 frames at 10 frames/s
TESTING_GAP = 4  # seconds kept clear around each testing frame


def training_seconds(testing_seconds):
    return [second for second in range(VIDEO_SECONDS + 1)
            if all(abs(second - taken) > TESTING_GAP for taken in testing_seconds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workbench", required=True, type=pathlib.Path, help="the workbench binary")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "datasets" / "scenes-real-frames")
    parser.add_argument("--min-score", type=float, default=0.5)
    arguments = parser.parse_args()
    scenes = ROOT / "datasets" / "scenes"
    if not (scenes / "Training Data" / "annotations.json").is_file():
        sys.exit(f"{scenes}: build it first (.venv/bin/python3 datasets/build_scenes.py)")
    hand = json.loads(TESTING_BOXES.read_text())["pictures"]
    vtest = [picture for picture in hand if picture["source"].get("path", "").endswith("vtest.avi")]
    parked = [box["box"] for box in vtest[0]["boxes"] if box["label"] == "car"]
    video = opencv_file("vtest.avi")

    partial = arguments.out.with_name(arguments.out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(scenes, partial)
    training = partial / "Training Data"
    annotations = json.loads((training / "annotations.json").read_text())
    with tempfile.TemporaryDirectory() as frames_folder:
        frames = pathlib.Path(frames_folder)
        for second in training_seconds([picture["source"]["seconds"] for picture in vtest]):
            video_frame(video, second).save(frames / f"vtest-train-{second:02d}s.png")
        found = subprocess.run([str(arguments.workbench.resolve()), "detect", ".", "--json", "--tiles", "2", "--min-score",
                                str(arguments.min_score)], cwd=frames, capture_output=True, text=True)
        if found.returncode != 0:
            sys.exit(f"workbench detect failed: {found.stderr.strip()}")
        people = 0
        for entry in json.loads(found.stdout):
            name = pathlib.Path(entry["image"]).name
            shutil.copy(frames / name, training / name)
            boxes = [{"label": "person", "coordinates": found_box["coordinates"]} for found_box in entry["annotations"]]
            people += len(boxes)
            boxes += [{"label": "car", "coordinates": {"x": (left + right) / 2, "y": (top + bottom) / 2,
                                                        "width": right - left, "height": bottom - top}}
                      for left, top, right, bottom in parked]
            annotations.append({"image": name, "annotations": boxes})
    (training / "annotations.json").write_text(json.dumps(annotations, indent=1))
    shutil.rmtree(arguments.out, ignore_errors=True)
    partial.replace(arguments.out)
    frame_count = len(training_seconds([picture["source"]["seconds"] for picture in vtest]))
    print(f"{arguments.out}: {len(annotations)} training pictures ({frame_count} vtest.avi frames, {people} people "
          f"from the built-in detector, {2 * frame_count} parked vehicles)")


if __name__ == "__main__":
    main()
