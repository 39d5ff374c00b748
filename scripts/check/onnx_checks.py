"""What the ONNX export checkers share (check-onnx-export.py for classifiers, check-onnx-detector-export.py for
detectors): a one-line failure, the checked and shape-inferred model, and the graph's interface."""
import sys

import onnx


def failure(script):
    """A `fail(reason)` that prints `script: reason` on stderr and exits 1."""
    def fail(reason):
        print(f"{script}: {reason}", file=sys.stderr)
        sys.exit(1)
    return fail


def dimensions(value_info):
    """A tensor's shape: symbolic dimensions by name, fixed ones as numbers."""
    return [d.dim_param if d.HasField("dim_param") else d.dim_value
            for d in value_info.type.tensor_type.shape.dim]


def checked_model(path, fail, opset=13):
    """The model at `path` after onnx's full checker and strict shape inference, its default-domain opset `opset`."""
    model = onnx.load(path)
    onnx.checker.check_model(model, full_check=True)
    onnx.shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    opsets = {o.domain: o.version for o in model.opset_import}
    if opsets.get("", opsets.get("ai.onnx")) != opset:
        fail(f"expected opset {opset}, found {opsets}")
    return model


def interface(model, fail, inputs, outputs):
    """The graph's inputs that are not initializers, failing unless they are named `inputs` and its outputs `outputs`."""
    graph = model.graph
    initializer_names = {t.name for t in graph.initializer}
    found = [i for i in graph.input if i.name not in initializer_names]
    if [i.name for i in found] != inputs or [o.name for o in graph.output] != outputs:
        fail(f"interface is {[i.name for i in found]} -> {[o.name for o in graph.output]}")
    return found
