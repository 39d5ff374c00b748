#!/usr/bin/env python3
"""Checks an exported ONNX model against `workbench classify --json` on the same images.

Every image must already be the network's 224 x 224 input (Workbench then neither crops nor resizes it), so both
runtimes see the same pixels. onnx.checker must pass; onnxruntime's probabilities must equal Workbench's within
1e-4 and the top-1 labels must be identical.

Usage: .venv/bin/python3 scripts/check_onnx_against_classify.py MODEL.onnx PREDICTIONS.jsonl
Prints a JSON object: {"images", "max_abs_difference", "top1_mismatches", "labels", "temperature"} (the calibration
temperature the graph divides the logits by, from its metadata); exits 1 when a check fails.
"""
import json
import sys

import numpy as np
import onnx
import onnxruntime
from PIL import Image


def main():
    model_path, predictions_path = sys.argv[1:3]
    model = onnx.load(model_path)
    onnx.checker.check_model(model, full_check=True)
    metadata = {p.key: p.value for p in model.metadata_props}
    labels = json.loads(metadata["labels"])
    predictions = [json.loads(line) for line in open(predictions_path) if line.strip()]
    pixels = []
    for prediction in predictions:
        image = Image.open(prediction["path"]).convert("RGB")
        assert image.size == (224, 224), f"{prediction['path']} is {image.size}, not the network's input size"
        pixels.append(np.asarray(image, np.float32).transpose(2, 0, 1))
    session = onnxruntime.InferenceSession(model_path, providers=["CPUExecutionProvider"])
    probabilities = session.run(["probabilities"], {"image": np.stack(pixels)})[0]
    expected = np.array([[p["probabilities"][label] for label in labels] for p in predictions], np.float64)
    difference = float(np.abs(probabilities - expected).max())
    mismatches = sum(labels[int(np.argmax(row))] != p["label"] for row, p in zip(probabilities, predictions))
    result = {"images": len(predictions), "max_abs_difference": difference, "top1_mismatches": int(mismatches), "labels": labels,
              "temperature": float(metadata.get("temperature", "1"))}
    print(json.dumps(result))
    sys.exit(0 if difference <= 1e-4 and mismatches == 0 else 1)


if __name__ == "__main__":
    main()
