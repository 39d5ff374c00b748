#!/usr/bin/env python3
"""A variant of datasets/scenes with real training pictures: frames of opencv-doc's vtest.avi labelled by the
built-in person detector, to measure what in-domain real pictures do to issue 27's detector; and beside it a
validation folder of three hand-checked frames that chooses between configurations.

The frames are taken every --step seconds of vtest.avi except within 4 s of a testing frame (the testing set holds
its frames at 3, 16, 30, 45, 60 and 74 s) or of a validation frame (35, 37.5 and 40 s, in
datasets/scenes-validation-boxes.json), so no training frame is a near-copy of a picture that scores or chooses;
the people in them are the same walkers, though, and the camera the same, so what this measures is "real pictures
of the place", not generalisation. Each training frame's people are the built-in detector's boxes
(`workbench detect --tiles`, default 3, score at least --min-score, default 0.5: the setting whose boxes best match
the validation frames' hand-checked people, scripts/accuracy/detector-label-check.py; not checked by hand: some are missed, loose or
two people in one box), its two parked vehicles the boxes that datasets/scenes-testing-boxes.json draws on every
vtest.avi frame (they never move). The validation frames' boxes were checked and completed by hand.

Usage: .venv/bin/python3 scripts/accuracy/detector-real-frames.py --workbench BIN [--out DIR] [--min-score 0.5]
           [--tiles 3] [--step 0.5]
       (needs datasets/scenes built first; writes DIR, default datasets/scenes-real-frames, with its labelling
       settings in DIR/labelling.txt, and DIR-validation, a Create ML folder for `workbench evaluate MODEL DIR-validation`)
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
from build_scenes import TESTING_BOXES, centred, opencv_file, video_frame  # noqa: E402

VALIDATION_BOXES = ROOT / "datasets" / "scenes-validation-boxes.json"

VIDEO_SECONDS = 79.4  # vtest.avi: 795 frames at 10 frames/s
KEPT_CLEAR = 4  # seconds kept clear around each testing and validation frame


def training_seconds(kept_seconds, step):
    """Every `step` seconds of the video more than KEPT_CLEAR seconds from each of `kept_seconds`."""
    count = int(VIDEO_SECONDS / step) + 1
    return [index * step for index in range(count)
            if all(abs(index * step - kept) > KEPT_CLEAR for kept in kept_seconds)]


def frame_name(prefix, second):
    return f"{prefix}-{second:04.1f}s.png"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workbench", required=True, type=pathlib.Path, help="the workbench binary")
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "datasets" / "scenes-real-frames")
    parser.add_argument("--min-score", type=float, default=0.5)
    parser.add_argument("--tiles", type=int, default=3, help="the built-in detector's --tiles (0: the whole frame only)")
    parser.add_argument("--step", type=float, default=0.5, help="seconds between training frames")
    arguments = parser.parse_args()
    if not 0.1 <= arguments.step <= 10:
        parser.error(f"--step {arguments.step}: give 0.1 to 10 seconds (the video has 10 frames a second)")
    if not 0 <= arguments.tiles <= 8:
        parser.error(f"--tiles {arguments.tiles}: give 0 (the whole frame only) to 8")
    scenes = ROOT / "datasets" / "scenes"
    if not (scenes / "Training Data" / "annotations.json").is_file():
        sys.exit(f"{scenes}: build it first (.venv/bin/python3 datasets/build_scenes.py)")
    hand = json.loads(TESTING_BOXES.read_text())["pictures"]
    vtest = [picture for picture in hand if picture["source"].get("path", "").endswith("vtest.avi")]
    parked = [box["box"] for box in vtest[0]["boxes"] if box["label"] == "car"]
    video = opencv_file("vtest.avi")
    validation = json.loads(VALIDATION_BOXES.read_text())["pictures"]
    kept_clear = [picture["source"]["seconds"] for picture in vtest + validation]
    seconds = training_seconds(kept_clear, arguments.step)

    partial = arguments.out.with_name(arguments.out.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    shutil.copytree(scenes, partial)
    training = partial / "Training Data"
    annotations = json.loads((training / "annotations.json").read_text())
    with tempfile.TemporaryDirectory() as frames_folder:
        frames = pathlib.Path(frames_folder)
        for second in seconds:
            video_frame(video, second).save(frames / frame_name("vtest-train", second))
        command = [str(arguments.workbench.resolve()), "detect", ".", "--json", "--min-score", str(arguments.min_score)]
        command += ["--tiles", str(arguments.tiles)] if arguments.tiles else []
        found = subprocess.run(command, cwd=frames, capture_output=True, text=True)
        if found.returncode != 0:
            sys.exit(f"workbench detect failed: {found.stderr.strip()}")
        people = 0
        for entry in json.loads(found.stdout):
            name = pathlib.Path(entry["image"]).name
            shutil.copy(frames / name, training / name)
            boxes = [{"label": "person", "coordinates": found_box["coordinates"]} for found_box in entry["annotations"]]
            people += len(boxes)
            boxes += [centred("car", *box) for box in parked]
            annotations.append({"image": name, "annotations": boxes})
    (training / "annotations.json").write_text(json.dumps(annotations, indent=1))
    # What made the labels, so a script that needs other ones rebuilds instead of reusing these.
    (partial / "labelling.txt").write_text(f"tiles {arguments.tiles}, min-score {arguments.min_score}, step {arguments.step}")

    # The validation folder: the hand-checked frames, in Create ML's layout.
    held = partial.with_name(partial.name + "-validation")
    shutil.rmtree(held, ignore_errors=True)
    held.mkdir()
    entries = []
    for picture in validation:
        video_frame(video, picture["source"]["seconds"]).save(held / picture["name"])
        entries.append({"image": picture["name"],
                        "annotations": [centred(box["label"], *box["box"]) for box in picture["boxes"]]})
    (held / "annotations.json").write_text(json.dumps(entries, indent=1))

    validation_out = arguments.out.with_name(arguments.out.name + "-validation")
    for built, final in ((partial, arguments.out), (held, validation_out)):
        shutil.rmtree(final, ignore_errors=True)
        built.replace(final)
    print(f"{arguments.out}: {len(annotations)} training pictures ({len(seconds)} vtest.avi frames, {people} people "
          f"from the built-in detector, {2 * len(seconds)} parked vehicles); {validation_out}: "
          f"{len(validation)} hand-checked frames, {sum(len(entry['annotations']) for entry in entries)} boxes")


if __name__ == "__main__":
    main()
