#!/usr/bin/env python3
"""Checks an ONNX file written by Workbench's ONNXExporter and runs it with onnxruntime.

    check-onnx-export.py MODEL.onnx RESULT.json IMAGE.rgb [IMAGE.rgb ...]

Each IMAGE.rgb holds 224 x 224 RGB pixels as raw bytes (row-major, channels last), the same pixels Workbench
feeds its own network. The script

  * runs onnx.checker.check_model (full check) and onnx's shape inference,
  * checks the graph's interface: input `image` float [N, 3, 224, 224] with a symbolic N, output
    `probabilities` float [N, classes], opset 13, and the `labels` / `preprocessing` metadata,
  * runs all images as ONE batch (so the symbolic batch dimension is exercised) with onnxruntime, once with
    its default graph optimisations and once with none,

and writes RESULT.json: {"labels": [...], "preprocessing": {...}, "producer": ..., "probabilities": [[...], ...],
"probabilities_unoptimized": [[...], ...]} in the order of the arguments (the second run without onnxruntime's
graph optimisations). Any failed check exits non-zero with a one-line reason on stderr.
"""
import json
import sys

import numpy as np
import onnx
import onnxruntime

from onnx_checks import checked_model, dimensions, failure, interface

SIDE = 224
fail = failure("check-onnx-export")


def main(arguments):
    if len(arguments) < 3:
        fail("usage: check-onnx-export.py MODEL.onnx RESULT.json IMAGE.rgb [IMAGE.rgb ...]")
    model_path, result_path, image_paths = arguments[0], arguments[1], arguments[2:]

    model = checked_model(model_path, fail)
    graph = model.graph
    inputs = interface(model, fail, inputs=["image"], outputs=["probabilities"])
    if inputs[0].type.tensor_type.elem_type != onnx.TensorProto.FLOAT:
        fail("input `image` is not float")
    input_shape = dimensions(inputs[0])
    if input_shape[1:] != [3, SIDE, SIDE] or not isinstance(input_shape[0], str) or not input_shape[0]:
        fail(f"input shape {input_shape} is not [N, 3, 224, 224] with a symbolic N")

    metadata = {p.key: p.value for p in model.metadata_props}
    for key in ("labels", "preprocessing"):
        if key not in metadata:
            fail(f"metadata `{key}` missing (have {sorted(metadata)})")
    labels = json.loads(metadata["labels"])
    preprocessing = json.loads(metadata["preprocessing"])
    if not isinstance(labels, list) or not all(isinstance(label, str) for label in labels):
        fail("metadata `labels` is not a JSON array of strings")
    output_shape = dimensions(graph.output[0])
    if output_shape[1:] != [len(labels)] or output_shape[0] != input_shape[0]:
        fail(f"output shape {output_shape} is not [N, {len(labels)}]")
    if not model.producer_name or not model.producer_version:
        fail("producer name or version missing")

    batch = []
    for path in image_paths:
        pixels = np.fromfile(path, dtype=np.uint8)
        if pixels.size != SIDE * SIDE * 3:
            fail(f"{path}: expected {SIDE * SIDE * 3} bytes, found {pixels.size}")
        batch.append(pixels.reshape(SIDE, SIDE, 3).transpose(2, 0, 1).astype(np.float32))
    batch = np.stack(batch)

    # Run twice: with onnxruntime's default graph optimisations (what users get) and with none (plain
    # float32 kernels node by node); both must match Workbench.
    results = {}
    for key, level in (("probabilities", onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL),
                       ("probabilities_unoptimized", onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL)):
        options = onnxruntime.SessionOptions()
        options.graph_optimization_level = level
        session = onnxruntime.InferenceSession(model_path, options, providers=["CPUExecutionProvider"])
        (probabilities,) = session.run(["probabilities"], {"image": batch})
        if probabilities.shape != (len(image_paths), len(labels)):
            fail(f"onnxruntime returned shape {probabilities.shape}")
        results[key] = probabilities.astype(float).tolist()

    with open(result_path, "w") as file:
        json.dump({
            "labels": labels,
            "preprocessing": preprocessing,
            "producer": [model.producer_name, model.producer_version],
            **results,
        }, file)


if __name__ == "__main__":
    main(sys.argv[1:])
