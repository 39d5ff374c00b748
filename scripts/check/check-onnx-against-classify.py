#!/usr/bin/env python3
"""Checks an exported ONNX model, fed by docs/export.md's own Python snippet, against `workbench classify --json`.

The snippet (the first ```python block of docs/export.md) is read from that page and its `network_input`
function prepares every image as the model's `preprocessing` metadata says: EXIF orientation, alpha composited onto
the stated background (white), centre crop, antialiased bicubic resize. So the check proves the snippet a user
copies, not a private copy of it. Images of any size and mode may be given (transparent PNGs included).
onnx.checker must pass; onnxruntime's probabilities must equal Workbench's within
1e-4 and the top-1 labels must be identical.

Usage: .venv/bin/python3 scripts/check/check-onnx-against-classify.py MODEL.onnx PREDICTIONS.jsonl
Prints a JSON object: {"images", "transparent_images", "max_abs_difference", "top1_mismatches", "labels",
"temperature"} (the calibration temperature the graph divides the logits by, from its metadata); exits 1 when a check
fails.
"""
import json
import pathlib
import re
import sys

import numpy as np
import onnx
import onnxruntime
from PIL import Image

README = pathlib.Path(__file__).resolve().parents[2] / "docs" / "export.md"


def readme_snippet():
    """docs/export.md's `network_input`: its first ```python block, up to where the session starts."""
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    definitions = block[:block.index("\nsession = ")]
    namespace = {}
    exec(compile(definitions, f"{README}:snippet", "exec"), namespace)
    return namespace["network_input"]


def has_transparency(path):
    with Image.open(path) as image:
        if image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info:
            return bool(np.asarray(image.convert("RGBA"))[..., 3].min() < 255)
    return False


def main():
    model_path, predictions_path = sys.argv[1:3]
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    metadata = {p.key: p.value for p in model.metadata_props}
    labels = json.loads(metadata["labels"])
    predictions = [json.loads(line) for line in open(predictions_path) if line.strip()]
    network_input = readme_snippet()
    recipe = json.loads(metadata["preprocessing"])
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    probabilities = np.concatenate([
        session.run(["probabilities"], {"image": np.stack([network_input(p["path"], recipe) for p in predictions[start:start + 32]])})[0]
        for start in range(0, len(predictions), 32)])
    expected = np.array([[p["probabilities"][label] for label in labels] for p in predictions], np.float64)
    difference = float(np.abs(probabilities - expected).max())
    mismatches = sum(labels[int(np.argmax(row))] != p["label"] for row, p in zip(probabilities, predictions))
    result = {"images": len(predictions), "transparent_images": sum(has_transparency(p["path"]) for p in predictions),
              "max_abs_difference": difference, "top1_mismatches": int(mismatches), "labels": labels,
              "temperature": float(metadata.get("temperature", "1"))}
    print(json.dumps(result))
    sys.exit(0 if difference <= 1e-4 and mismatches == 0 else 1)


if __name__ == "__main__":
    main()
