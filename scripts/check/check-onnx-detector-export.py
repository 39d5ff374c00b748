#!/usr/bin/env python3
"""Checks a detector's ONNX file written by Workbench's ONNXExporter and runs it with onnxruntime.

    check-onnx-detector-export.py MODEL.onnx RESULT.json IMAGE.rgb [IMAGE.rgb ...]

Each IMAGE.rgb holds S x S RGB pixels as raw bytes (row-major, channels last), S the model's `input_side`
metadata: the pixels Workbench feeds its own network. The script

  * runs onnx.checker.check_model (full check) and onnx's strict shape inference,
  * checks the interface: input `image` float [N, 3, S, S] with a symbolic N; outputs `boxes` float
    [N, cells, 4] and `scores` float [N, cells, labels] with cells = (S / 16)^2; opset 13; the metadata
    `kind` (detector), `labels`, `preprocessing`, `input_side`, `score_threshold`, `decoding`,
  * runs all images as ONE batch with onnxruntime, with its default graph optimisations and with none,
  * checks what the contract promises of the values: scores in 0..1, boxes in 0..1 with x1 <= x2 and y1 <= y2,

and writes RESULT.json: {"labels", "metadata", "boxes", "scores", "boxes_unoptimized", "scores_unoptimized"}
(arrays [N][cells][4] and [N][cells][labels], in the order of the arguments). A failed check exits non-zero
with a one-line reason on stderr.
"""
import json
import sys

import numpy as np
import onnxruntime

from onnx_checks import checked_model, dimensions, failure, interface

fail = failure("check-onnx-detector-export")


def main(arguments):
    if len(arguments) < 3:
        fail("usage: check-onnx-detector-export.py MODEL.onnx RESULT.json IMAGE.rgb [IMAGE.rgb ...]")
    model_path, result_path, image_paths = arguments[0], arguments[1], arguments[2:]

    model = checked_model(model_path, fail)

    metadata = {p.key: p.value for p in model.metadata_props}
    for key in ("kind", "labels", "preprocessing", "input_side", "score_threshold", "decoding"):
        if key not in metadata:
            fail(f"metadata `{key}` missing (have {sorted(metadata)})")
    if metadata["kind"] != "detector":
        fail(f"metadata kind is {metadata['kind']!r}")
    labels = json.loads(metadata["labels"])
    side = int(metadata["input_side"])
    threshold = float(metadata["score_threshold"])
    if json.loads(metadata["preprocessing"]).get("inputSide") != side:
        fail("preprocessing inputSide differs from input_side")
    if not 0 <= threshold <= 1:
        fail(f"score_threshold {threshold} is not in 0..1")
    cells = (side // 16) ** 2

    graph = model.graph
    inputs = interface(model, fail, inputs=["image"], outputs=["boxes", "scores"])
    input_shape = dimensions(inputs[0])
    if input_shape[1:] != [3, side, side] or not isinstance(input_shape[0], str) or not input_shape[0]:
        fail(f"input shape {input_shape} is not [N, 3, {side}, {side}] with a symbolic N")
    outputs = {o.name: dimensions(o) for o in graph.output}
    if outputs["boxes"] != [input_shape[0], cells, 4] or outputs["scores"] != [input_shape[0], cells, len(labels)]:
        fail(f"output shapes {outputs}, expected [N, {cells}, 4] and [N, {cells}, {len(labels)}]")

    batch = []
    for path in image_paths:
        pixels = np.fromfile(path, dtype=np.uint8)
        if pixels.size != side * side * 3:
            fail(f"{path}: expected {side * side * 3} bytes, found {pixels.size}")
        batch.append(pixels.reshape(side, side, 3).transpose(2, 0, 1).astype(np.float32))
    batch = np.stack(batch)

    results = {}
    for suffix, level in (("", onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL),
                          ("_unoptimized", onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL)):
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = level
        session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        boxes, scores = session.run(["boxes", "scores"], {"image": batch})
        if boxes.shape != (len(image_paths), cells, 4) or scores.shape != (len(image_paths), cells, len(labels)):
            fail(f"onnxruntime returned shapes {boxes.shape} and {scores.shape}")
        if not (np.all(scores >= 0) and np.all(scores <= 1)):
            fail("a score is outside 0..1")
        if not (np.all(boxes >= 0) and np.all(boxes <= 1)):
            fail("a box corner is outside 0..1")
        if not (np.all(boxes[..., 0] <= boxes[..., 2]) and np.all(boxes[..., 1] <= boxes[..., 3])):
            fail("a box has x1 > x2 or y1 > y2")
        results["boxes" + suffix] = boxes.astype(float).tolist()
        results["scores" + suffix] = scores.astype(float).tolist()

    with open(result_path, "w") as file:
        json.dump({"labels": labels, "metadata": metadata, **results}, file)


if __name__ == "__main__":
    main(sys.argv[1:])
