#!/usr/bin/env python3
"""Checks a detector's ONNX export, fed and decoded by docs/export.md's own Python snippet, against `workbench detect --json`.

    check-onnx-against-detect.py MODEL.onnx DETECTIONS.json [--min-score SCORE]

DETECTIONS.json is `workbench detect PICTURES --model M.wbmodel --json` (no --label or --tiles; with --min-score,
the same value here, else the model's stored threshold): a JSON array of {"image": PATH, "annotations": [{"label", "confidence", "coordinates": {"x", "y", "width",
"height"}}]}, PATH as detect printed it (absolute paths make the check independent of the working folder). The Python
blocks of docs/export.md are read from it: the classifier's block up to where its session starts
(its `resize`), then the detector's block up to where its session starts (`detector_input`, `detections`). So the check
proves the snippet a user copies, not a private copy of it.

Every picture is prepared by `detector_input`, run through onnxruntime (one picture at a time: pictures differ in
size), and decoded by `detections` with the model's `score_threshold`. Both lists are then matched box by box, best
first: the same label, scores within SCORE_TOLERANCE, corners within BOX_TOLERANCE pixels. A box one side has and
the other lacks is allowed only when its score is within SCORE_TOLERANCE of the threshold (it may fall either side
of it) or, when a side has the full 100 boxes, of the lowest kept score. Prints a JSON object {"pictures", "boxes",
"matched", "borderline", "max_score_difference", "max_corner_difference_px"}; exits 1 when a check fails.
"""
import json
import pathlib
import re
import sys

import numpy as np
import onnx
import onnxruntime

README = pathlib.Path(__file__).resolve().parents[2] / "docs" / "export.md"
# Scores: float32 probabilities through ~50 layers summed in another order (about 1e-6 apart in practice).
SCORE_TOLERANCE = 1e-4
# Corners: detect --json writes centre and size to 0.01 px (a corner is then within 0.0075 px), plus float32 error.
BOX_TOLERANCE = 0.05


def fail(reason):
    print(f"check-onnx-against-detect: {reason}", file=sys.stderr)
    sys.exit(1)


def readme_snippets():
    """docs/export.md's classifier block (for `resize`) and detector block, each up to where its session starts."""
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    if len(blocks) < 2:
        fail("docs/export.md has fewer than two python blocks")
    namespace = {}
    for block in blocks[:2]:
        definitions = block[:block.index("\nsession = ")]
        exec(compile(definitions, f"{README}:snippet", "exec"), namespace)
    return namespace["detector_input"], namespace["detections"]


def workbench_boxes(entry):
    boxes = []
    for annotation in entry["annotations"]:
        c = annotation["coordinates"]
        boxes.append((annotation["label"], float(annotation["confidence"]),
                      c["x"] - c["width"] / 2, c["y"] - c["height"] / 2, c["x"] + c["width"] / 2, c["y"] + c["height"] / 2))
    return boxes


def main(arguments):
    if len(arguments) not in (2, 4) or (len(arguments) == 4 and arguments[2] != "--min-score"):
        fail("usage: check-onnx-against-detect.py MODEL.onnx DETECTIONS.json [--min-score SCORE]")
    model_path, detections_path = arguments[:2]
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    detector_input, detections = readme_snippets()
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    metadata = session.get_modelmeta().custom_metadata_map
    labels, recipe = json.loads(metadata["labels"]), json.loads(metadata["preprocessing"])
    threshold = float(arguments[3]) if len(arguments) == 4 else float(metadata["score_threshold"])
    limit = int(metadata["maximum_detections"])
    entries = json.loads(pathlib.Path(detections_path).read_text(encoding="utf-8"))

    summary = {"pictures": 0, "boxes": 0, "matched": 0, "borderline": 0,
               "max_score_difference": 0.0, "max_corner_difference_px": 0.0}
    for entry in entries:
        pixels, size = detector_input(entry["image"], recipe)
        boxes, scores = session.run(["boxes", "scores"], {"image": pixels[None]})
        exported = detections(boxes[0], scores[0], size, threshold, labels)
        expected = workbench_boxes(entry)
        summary["pictures"] += 1
        summary["boxes"] += len(expected)
        lowest = {side: (min(b[1] for b in found) if len(found) >= limit else None)
                  for side, found in (("exported", exported), ("workbench", expected))}

        def borderline(box):
            near = [threshold] + [value for value in lowest.values() if value is not None]
            return any(abs(box[1] - value) <= SCORE_TOLERANCE for value in near)

        unused = list(exported)
        for box in expected:
            candidates = [other for other in unused if other[0] == box[0] and abs(other[1] - box[1]) <= SCORE_TOLERANCE
                          and max(abs(a - b) for a, b in zip(other[2:], box[2:])) <= BOX_TOLERANCE]
            if not candidates:
                if borderline(box):
                    summary["borderline"] += 1
                    continue
                fail(f"{entry['image']}: detect's {box[0]} {box[1]:.6f} at {[round(v, 2) for v in box[2:]]} has no match "
                     f"in the export's {[(b[0], round(b[1], 6), [round(v, 2) for v in b[2:]]) for b in exported[:10]]}")
            match = min(candidates, key=lambda other: abs(other[1] - box[1]))
            unused.remove(match)
            summary["matched"] += 1
            summary["max_score_difference"] = max(summary["max_score_difference"], abs(match[1] - box[1]))
            summary["max_corner_difference_px"] = max(summary["max_corner_difference_px"],
                                                      max(abs(a - b) for a, b in zip(match[2:], box[2:])))
        for box in unused:
            if not borderline(box):
                fail(f"{entry['image']}: the export's {box[0]} {box[1]:.6f} at {[round(v, 2) for v in box[2:]]} is not in detect's output")
            summary["borderline"] += 1
    if summary["pictures"] == 0:
        fail(f"{detections_path}: no pictures")
    print(json.dumps(summary))


if __name__ == "__main__":
    main(sys.argv[1:])
