#!/usr/bin/env python3
"""Checks a Core ML file written by Workbench's CoreMLExporter and evaluates it with a small numpy interpreter.

    check-coreml-export.py MODEL.mlmodel RESULT.json IMAGE.rgb [IMAGE.rgb ...]
    check-coreml-export.py DETECTOR.mlmodel --detect DETECT.json [--min-score SCORE]

A detector's file is a pipeline (a neural network, then NonMaximumSuppression). Its interface is checked (pipeline
inputs `image` RGB S x S, optional doubles `iouThreshold` and `confidenceThreshold`; outputs `confidence` and
`coordinates`; the network's `raw_confidence` [cells, labels] and `raw_coordinates` [cells, 4]; the suppression's
feature names, string labels and thresholds; metadata `labels`, `score_threshold`, `input_side`), then both models are
evaluated: the network layer by layer as below, with the detector's layer kinds added (upsample, slice, activation,
max pooling, equal, multiply, bias, scale, concat, permute, reshape, following NeuralNetwork.proto's rank-5 blobs
[sequence, batch, C, H, W], sequence and batch 1 here), and the suppression as NonMaximumSuppression.proto describes
it: per label (pickTop.perClass), the boxes scoring at least the confidence threshold, best first, each dropped when
its IoU with a kept box of that label exceeds the IoU threshold. With IMAGE.rgb files (S x S pixels) RESULT.json holds
{"labels", "metadata", "raw_confidence", "raw_coordinates", "detections"}; with --detect, each picture of a `detect
--model --json` file is prepared by docs/export.md's detector snippet (`resize`, `detector_input`), evaluated, and its
boxes are matched with detect's (see `compare_with_detect`); a JSON summary is printed. `--min-score` is detect's
option of that name, given to the pipeline as its `confidenceThreshold` input (else the model's stored threshold).

Core ML itself only runs on Apple systems, so the spec is loaded with coremltools (`utils.load_spec`), its
interface is checked (specification version 4, neural-network classifier, RGB 224 x 224 input `image`, outputs
`classLabel` string and `classLabelProbs` string -> double dictionary, string class labels, metadata), and then
the layers are evaluated here in float64 following Core ML's documented semantics for each layer kind
(NeuralNetwork.proto): image scaler, convolution with explicit border amounts and groups, clip, add, global
average pooling, inner product and softmax over channels. Layer kinds it does not know are an error.

Each IMAGE.rgb holds 224 x 224 RGB pixels as raw bytes (row-major, channels last). RESULT.json:
{"labels": [...], "metadata": {...}, "probabilities": [[...], ...], "classLabel": [...]} in argument order.
"""
import json
import pathlib
import re
import sys

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
import coremltools

SIDE = 224


def fail(reason):
    print(f"check-coreml-export: {reason}", file=sys.stderr)
    sys.exit(1)


def check_interface(spec):
    if spec.specificationVersion != 4:
        fail(f"specification version {spec.specificationVersion}, expected 4")
    if spec.WhichOneof("Type") != "neuralNetworkClassifier":
        fail(f"model type {spec.WhichOneof('Type')}, expected neuralNetworkClassifier")
    description = spec.description
    if [i.name for i in description.input] != ["image"]:
        fail(f"inputs {[i.name for i in description.input]}")
    image = description.input[0].type
    if image.WhichOneof("Type") != "imageType":
        fail("input `image` is not an image")
    color_space = image.imageType.colorSpace
    if (image.imageType.width, image.imageType.height) != (SIDE, SIDE) or \
            color_space != coremltools.proto.FeatureTypes_pb2.ImageFeatureType.RGB:
        fail(f"image is {image.imageType.width}x{image.imageType.height} colour space {color_space}")
    outputs = {o.name: o.type for o in description.output}
    if sorted(outputs) != ["classLabel", "classLabelProbs"]:
        fail(f"outputs {sorted(outputs)}")
    if outputs["classLabel"].WhichOneof("Type") != "stringType":
        fail("classLabel is not a string")
    probabilities = outputs["classLabelProbs"]
    if probabilities.WhichOneof("Type") != "dictionaryType" or \
            probabilities.dictionaryType.WhichOneof("KeyType") != "stringKeyType":
        fail("classLabelProbs is not a string-keyed dictionary")
    if description.predictedFeatureName != "classLabel" or description.predictedProbabilitiesName != "classLabelProbs":
        fail("predicted feature names are not classLabel / classLabelProbs")
    classifier = spec.neuralNetworkClassifier
    if classifier.WhichOneof("ClassLabels") != "stringClassLabels":
        fail("class labels are not strings")
    labels = list(classifier.stringClassLabels.vector)
    metadata = description.metadata
    user_defined = dict(metadata.userDefined)
    if "labels" not in user_defined or json.loads(user_defined["labels"]) != labels:
        fail("metadata userDefined `labels` missing or different from the class labels")
    for field in ("shortDescription", "versionString", "author", "license"):
        if not getattr(metadata, field):
            fail(f"metadata {field} is empty")
    return labels, {
        "shortDescription": metadata.shortDescription, "versionString": metadata.versionString,
        "author": metadata.author, "license": metadata.license, "userDefined": user_defined,
    }


def weights(parameters, count):
    values = np.asarray(parameters.floatValue, dtype=np.float64)
    if values.size != count:
        fail(f"expected {count} float weights, found {values.size} (only floatValue is supported)")
    return values


def convolution(x, p):
    """x [C, H, W] -> [outputChannels, H', W'] per Core ML's ConvolutionLayerParams with ValidPadding."""
    if p.isDeconvolution or p.WhichOneof("ConvolutionPaddingType") != "valid":
        fail("only forward convolutions with valid (explicit) padding are supported")
    kh, kw = p.kernelSize
    sh, sw = p.stride
    if list(p.dilationFactor) not in ([], [1, 1]):
        fail("dilated convolutions are not supported")
    groups = p.nGroups or 1
    channels = x.shape[0]
    if p.kernelChannels * groups != channels:
        fail(f"kernelChannels {p.kernelChannels} x groups {groups} != input channels {channels}")
    borders = p.valid.paddingAmounts.borderAmounts
    (top, bottom), (left, right) = [(b.startEdgeSize, b.endEdgeSize) for b in borders] if borders else [(0, 0), (0, 0)]
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right)))
    windows = sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::sh, ::sw]  # [C, H', W', kh, kw]
    w = weights(p.weights, p.outputChannels * p.kernelChannels * kh * kw).reshape(
        p.outputChannels, p.kernelChannels, kh, kw)
    if groups == 1:
        y = np.tensordot(w, windows, axes=([1, 2, 3], [0, 3, 4]))
    elif groups == channels and p.outputChannels == channels and p.kernelChannels == 1:
        y = np.einsum("chwij,cij->chw", windows, w[:, 0])
    else:
        fail(f"grouped convolution with {groups} groups is not supported")
    if p.hasBias:
        y = y + weights(p.bias, p.outputChannels)[:, None, None]
    return y


def upsample(x, p):
    if p.mode != p.NN or len(p.scalingFactor) != 2:
        fail("only nearest-neighbour upsampling with two factors is supported")
    return x.repeat(p.scalingFactor[0], axis=1).repeat(p.scalingFactor[1], axis=2)


def pool_max(x, p):
    """Max pooling with explicit border amounts; the padding is -inf (it never wins)."""
    if p.WhichOneof("PoolingPaddingType") != "valid":
        fail("only max pooling with valid (explicit) padding is supported")
    kh, kw = p.kernelSize
    sh, sw = p.stride
    borders = p.valid.paddingAmounts.borderAmounts
    (top, bottom), (left, right) = [(b.startEdgeSize, b.endEdgeSize) for b in borders] if borders else [(0, 0), (0, 0)]
    padded = np.pad(x, ((0, 0), (top, bottom), (left, right)), constant_values=-np.inf)
    return sliding_window_view(padded, (kh, kw), axis=(1, 2))[:, ::sh, ::sw].max(axis=(3, 4))


def shaped(values, shape, what):
    """A constant of `shape` ([1], [C], [C, H, W] or [C, 1, 1]) broadcast over [C, H, W]."""
    values = np.asarray(values, dtype=np.float64)
    shape = list(shape)
    if values.size != int(np.prod(shape)):
        fail(f"{what}: {values.size} values for shape {shape}")
    if len(shape) == 1:
        return values.reshape(shape[0], 1, 1) if shape[0] > 1 else values.reshape(1, 1, 1)
    return values.reshape(shape)


def permute(x, axis):
    """Axes of (sequence, C, H, W), sequence 1 in and out."""
    if sorted(axis) != [0, 1, 2, 3]:
        fail(f"permute axes {list(axis)}")
    y = x[None].transpose(list(axis))
    if y.shape[0] != 1:
        fail("permute moves data into the sequence axis")
    return y[0]


def run_layers(layers, blobs):
    for layer in layers:
        kind = layer.WhichOneof("layer")
        missing = [name for name in layer.input if name not in blobs]
        if missing:
            fail(f"layer {layer.name} reads {missing} before they are written")
        inputs = [blobs[name] for name in layer.input]
        if kind == "convolution":
            y = convolution(inputs[0], layer.convolution)
        elif kind == "clip":
            y = np.clip(inputs[0], layer.clip.minVal, layer.clip.maxVal)
        elif kind == "add":
            y = sum(inputs) + (layer.add.alpha if len(inputs) == 1 else 0)
        elif kind == "multiply":
            y = np.prod(inputs, axis=0) if len(inputs) > 1 else inputs[0] * layer.multiply.alpha
        elif kind == "pooling" and not layer.pooling.globalPooling:
            if layer.pooling.type != layer.pooling.MAX:
                fail(f"layer {layer.name}: only max pooling is supported with a window")
            y = pool_max(inputs[0], layer.pooling)
        elif kind == "pooling":
            p = layer.pooling
            if p.type != p.AVERAGE:
                fail(f"layer {layer.name}: only global average pooling is supported")
            y = inputs[0].mean(axis=(1, 2), keepdims=True)
        elif kind == "innerProduct":
            p = layer.innerProduct
            x = inputs[0].reshape(-1)
            if x.size != p.inputChannels:
                fail(f"layer {layer.name}: {x.size} inputs, expected {p.inputChannels}")
            w = weights(p.weights, p.outputChannels * p.inputChannels).reshape(p.outputChannels, p.inputChannels)
            y = w @ x + (weights(p.bias, p.outputChannels) if p.hasBias else 0)
            y = y[:, None, None]
        elif kind == "softmax":
            shifted = inputs[0] - inputs[0].max(axis=0, keepdims=True)
            y = np.exp(shifted) / np.exp(shifted).sum(axis=0, keepdims=True)
        elif kind == "upsample":
            y = upsample(inputs[0], layer.upsample)
        elif kind == "slice":
            p = layer.slice
            if p.axis != p.CHANNEL_AXIS:
                fail(f"layer {layer.name}: only channel slices are supported")
            y = inputs[0][p.startIndex:p.endIndex:p.stride or 1]
        elif kind == "activation":
            which = layer.activation.WhichOneof("NonlinearityType")
            if which == "sigmoid":
                y = 1 / (1 + np.exp(-inputs[0]))
            elif which == "ReLU":
                y = np.maximum(inputs[0], 0)
            else:
                fail(f"layer {layer.name}: activation {which} is not supported")
        elif kind == "equal":
            y = (inputs[0] == inputs[1]).astype(np.float64) if len(inputs) == 2 else \
                (inputs[0] == layer.equal.alpha).astype(np.float64)
        elif kind == "bias":
            y = inputs[0] + shaped(layer.bias.bias.floatValue, layer.bias.shape, layer.name)
        elif kind == "scale":
            p = layer.scale
            y = inputs[0] * shaped(p.scale.floatValue, p.shapeScale, layer.name)
            if p.hasBias:
                y = y + shaped(p.bias.floatValue, p.shapeBias, layer.name)
        elif kind == "concat":
            if layer.concat.sequenceConcat:
                fail(f"layer {layer.name}: sequence concatenation is not supported")
            y = np.concatenate(inputs, axis=0)
        elif kind == "permute":
            y = permute(inputs[0], layer.permute.axis)
        elif kind == "reshape":
            p = layer.reshape
            if p.mode != p.CHANNEL_FIRST or len(p.targetShape) != 3:
                fail(f"layer {layer.name}: only channel-first reshapes to [C, H, W] are supported")
            y = inputs[0].reshape(list(p.targetShape))
        else:
            fail(f"layer {layer.name}: kind {kind} is not supported by this interpreter")
        if len(layer.output) != 1:
            fail(f"layer {layer.name} has {len(layer.output)} outputs")
        blobs[layer.output[0]] = y
    return blobs


def scaled_image(preprocessing, pixels):
    image = pixels.astype(np.float64).transpose(2, 0, 1)  # Core ML hands the network [C, H, W]
    for step in preprocessing:
        if step.featureName != "image" or step.WhichOneof("preprocessor") != "scaler":
            fail("only an image scaler on `image` is supported as preprocessing")
        s = step.scaler
        image = image * s.channelScale + np.array([s.redBias, s.greenBias, s.blueBias])[:, None, None]
    return image


def evaluate(spec, pixels):
    """pixels [224, 224, 3] uint8 RGB -> the classifier's probability vector (float64)."""
    classifier = spec.neuralNetworkClassifier
    blobs = run_layers(classifier.layers, {"image": scaled_image(classifier.preprocessing, pixels)})
    name = classifier.labelProbabilityLayerName or "classLabelProbs"
    if name not in blobs:
        fail(f"no blob named {name}")
    return blobs[name].reshape(-1)


# ---- Detectors: a pipeline of a neural network and NonMaximumSuppression.

def array_shape(feature):
    if feature.type.WhichOneof("Type") != "multiArrayType":
        fail(f"feature {feature.name} is not a multi-array")
    return list(feature.type.multiArrayType.shape)


def check_detector_interface(spec):
    if spec.specificationVersion != 4:
        fail(f"specification version {spec.specificationVersion}, expected 4")
    description = spec.description
    user_defined = dict(description.metadata.userDefined)
    for key in ("kind", "labels", "score_threshold", "input_side", "preprocessing"):
        if key not in user_defined:
            fail(f"metadata userDefined `{key}` missing")
    labels, side = json.loads(user_defined["labels"]), int(user_defined["input_side"])
    cells = (side // 16) ** 2
    if [i.name for i in description.input] != ["image", "iouThreshold", "confidenceThreshold"]:
        fail(f"pipeline inputs {[i.name for i in description.input]}")
    image = description.input[0].type
    if image.WhichOneof("Type") != "imageType" or (image.imageType.width, image.imageType.height) != (side, side) or \
            image.imageType.colorSpace != coremltools.proto.FeatureTypes_pb2.ImageFeatureType.RGB:
        fail(f"input `image` is not an RGB {side} x {side} image")
    for threshold in description.input[1:]:
        if threshold.type.WhichOneof("Type") != "doubleType" or not threshold.type.isOptional:
            fail(f"input {threshold.name} is not an optional double")
    if [o.name for o in description.output] != ["confidence", "coordinates"]:
        fail(f"pipeline outputs {[o.name for o in description.output]}")
    for output in description.output:
        if output.type.multiArrayType.dataType != coremltools.proto.FeatureTypes_pb2.ArrayFeatureType.DOUBLE:
            fail(f"output {output.name} is not a double multi-array")
    models = spec.pipeline.models
    if [m.WhichOneof("Type") for m in models] != ["neuralNetwork", "nonMaximumSuppression"]:
        fail(f"pipeline models {[m.WhichOneof('Type') for m in models]}")
    network, suppression = models
    outputs = {o.name: array_shape(o) for o in network.description.output}
    if outputs != {"raw_confidence": [cells, len(labels)], "raw_coordinates": [cells, 4]}:
        fail(f"network outputs {outputs}")
    nms = suppression.nonMaximumSuppression
    names = (nms.confidenceInputFeatureName, nms.coordinatesInputFeatureName, nms.iouThresholdInputFeatureName,
             nms.confidenceThresholdInputFeatureName, nms.confidenceOutputFeatureName, nms.coordinatesOutputFeatureName)
    if names != ("raw_confidence", "raw_coordinates", "iouThreshold", "confidenceThreshold", "confidence", "coordinates"):
        fail(f"suppression feature names {names}")
    if list(nms.stringClassLabels.vector) != labels or not nms.pickTop.perClass:
        fail("suppression labels differ from the metadata's, or it is not per label")
    if abs(nms.confidenceThreshold - float(user_defined["score_threshold"])) > 0 or not 0 < nms.iouThreshold <= 1:
        fail(f"suppression thresholds {nms.confidenceThreshold}, {nms.iouThreshold}")
    return labels, side, user_defined


def evaluate_network(network_model, pixels):
    """pixels [S, S, 3] uint8 -> (raw_confidence [cells, labels], raw_coordinates [cells, 4]), float64."""
    network = network_model.neuralNetwork
    blobs = run_layers(network.layers, {"image": scaled_image(network.preprocessing, pixels)})
    results = []
    for output in network_model.description.output:
        shape = array_shape(output)
        blob = blobs[output.name]
        if blob.shape[0] != 1 or list(blob.shape[1:]) != shape:
            fail(f"{output.name} is {list(blob.shape)}, expected [1] + {shape} (sequence, batch and C of 1 dropped)")
        results.append(blob.reshape(shape))
    return results


def suppress(nms, confidence, coordinates, confidence_threshold=None):
    """NonMaximumSuppression, per label: [(label index, cell, score)], best first over all labels. The threshold is
    the `confidenceThreshold` input when given, else the model's."""
    threshold = nms.confidenceThreshold if confidence_threshold is None else confidence_threshold
    def corners(box):
        x, y, w, h = box
        return x - w / 2, y - h / 2, x + w / 2, y + h / 2

    def iou(a, b):
        (ax1, ay1, ax2, ay2), (bx1, by1, bx2, by2) = corners(a), corners(b)
        inter = max(0.0, min(ax2, bx2) - max(ax1, bx1)) * max(0.0, min(ay2, by2) - max(ay1, by1))
        union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
        return inter / union if union > 0 else 0.0

    kept = []
    for label in range(confidence.shape[1]):
        candidates = [cell for cell in np.argsort(-confidence[:, label], kind="stable")
                      if confidence[cell, label] >= threshold]
        chosen = []
        for cell in candidates:
            if all(iou(coordinates[cell], coordinates[other]) <= nms.iouThreshold for other in chosen):
                chosen.append(cell)
        kept += [(label, int(cell), float(confidence[cell, label])) for cell in chosen]
    return sorted(kept, key=lambda k: (-k[2], k[0], k[1]))


def readme_detector_input():
    """docs/export.md's `resize` (classifier block) and `detector_input` (detector block), up to their sessions."""
    readme = pathlib.Path(__file__).resolve().parents[2] / "docs" / "export.md"
    text = readme.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    namespace = {}
    for block in blocks[:2]:
        exec(compile(block[:block.index("\nsession = ")], f"{readme}:snippet", "exec"), namespace)
    return namespace["detector_input"]


# Scores: float64 here, float32 in Workbench (about 1e-6 apart); corners: detect --json rounds to 0.01 px.
SCORE_TOLERANCE = 1e-4
BOX_TOLERANCE = 0.05


def compare_with_detect(spec, detect_path, minimum_score=None):
    """Every box the pipeline keeps (zero-size ones dropped, as detect drops them) is one of detect's: same label,
    score within SCORE_TOLERANCE, corners within BOX_TOLERANCE px. Every box of detect's is kept, or overlaps a
    better detect box of its label by more than the IoU threshold (suppression; detect keeps 3 x 3 peaks only).
    A box within SCORE_TOLERANCE of the threshold may be on one side only; detect keeps at most 100."""
    labels, side, user_defined = check_detector_interface(spec)
    network, suppression = spec.pipeline.models
    nms = suppression.nonMaximumSuppression
    detector_input = readme_detector_input()
    threshold = nms.confidenceThreshold if minimum_score is None else minimum_score
    summary = {"pictures": 0, "detect_boxes": 0, "coreml_boxes": 0, "matched": 0, "suppressed": 0, "borderline": 0,
               "max_score_difference": 0.0, "max_corner_difference_px": 0.0}

    def pixel_iou(a, b):
        inter = max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
        union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
        return inter / union if union > 0 else 0.0

    for entry in json.loads(pathlib.Path(detect_path).read_text(encoding="utf-8")):
        pixels, (width, height) = detector_input(entry["image"], json.loads(user_defined["preprocessing"]))
        confidence, coordinates = evaluate_network(network, pixels.transpose(1, 2, 0).astype(np.uint8))
        found = []
        for label, cell, score in suppress(nms, confidence, coordinates, threshold):
            x, y, w, h = coordinates[cell]
            box = ((x - w / 2) * width, (y - h / 2) * height, (x + w / 2) * width, (y + h / 2) * height)
            if box[2] > box[0] and box[3] > box[1]:
                found.append((labels[label], score, box))
        expected = []
        for annotation in entry["annotations"]:
            c = annotation["coordinates"]
            expected.append((annotation["label"], float(annotation["confidence"]),
                             (c["x"] - c["width"] / 2, c["y"] - c["height"] / 2, c["x"] + c["width"] / 2, c["y"] + c["height"] / 2)))
        summary["pictures"] += 1
        summary["detect_boxes"] += len(expected)
        summary["coreml_boxes"] += len(found)
        lowest = min((e[1] for e in expected), default=0) if len(expected) >= 100 else None
        unmatched = list(expected)
        for label, score, box in found:
            candidates = [e for e in unmatched if e[0] == label and abs(e[1] - score) <= SCORE_TOLERANCE
                          and max(abs(a - b) for a, b in zip(e[2], box)) <= BOX_TOLERANCE]
            if not candidates:
                if abs(score - threshold) <= SCORE_TOLERANCE or (lowest is not None and score <= lowest + SCORE_TOLERANCE):
                    summary["borderline"] += 1
                    continue
                fail(f"{entry['image']}: Core ML keeps {label} {score:.6f} at {[round(v, 2) for v in box]}, which detect does not report")
            match = min(candidates, key=lambda e: abs(e[1] - score))
            unmatched.remove(match)
            summary["matched"] += 1
            summary["max_score_difference"] = max(summary["max_score_difference"], abs(match[1] - score))
            summary["max_corner_difference_px"] = max(summary["max_corner_difference_px"],
                                                      max(abs(a - b) for a, b in zip(match[2], box)))
        for label, score, box in unmatched:
            if any(e[0] == label and e[1] > score and pixel_iou(e[2], box) > nms.iouThreshold for e in expected):
                summary["suppressed"] += 1
            elif abs(score - threshold) <= SCORE_TOLERANCE:
                summary["borderline"] += 1
            else:
                fail(f"{entry['image']}: detect's {label} {score:.6f} at {[round(v, 2) for v in box]} is missing from Core ML's output")
    if summary["pictures"] == 0:
        fail(f"{detect_path}: no pictures")
    print(json.dumps(summary))


def main(arguments):
    if len(arguments) < 3:  # a detector's --detect mode has at least 3 too
        fail("usage: check-coreml-export.py MODEL.mlmodel RESULT.json IMAGE.rgb [IMAGE.rgb ...] | DETECTOR.mlmodel --detect DETECT.json")
    model_path, result_path, image_paths = arguments[0], arguments[1], arguments[2:]
    spec = coremltools.utils.load_spec(model_path)
    if spec.WhichOneof("Type") == "pipeline":
        if result_path == "--detect":
            if len(image_paths) not in (1, 3) or (len(image_paths) == 3 and image_paths[1] != "--min-score"):
                fail("usage: check-coreml-export.py DETECTOR.mlmodel --detect DETECT.json [--min-score SCORE]")
            compare_with_detect(spec, image_paths[0], float(image_paths[2]) if len(image_paths) == 3 else None)
            return
        labels, side, user_defined = check_detector_interface(spec)
        network, suppression = spec.pipeline.models
        results = {"labels": labels, "metadata": user_defined, "raw_confidence": [], "raw_coordinates": [], "detections": []}
        for path in image_paths:
            pixels = np.fromfile(path, dtype=np.uint8)
            if pixels.size != side * side * 3:
                fail(f"{path}: expected {side * side * 3} bytes, found {pixels.size}")
            confidence, coordinates = evaluate_network(network, pixels.reshape(side, side, 3))
            results["raw_confidence"].append(confidence.tolist())
            results["raw_coordinates"].append(coordinates.tolist())
            results["detections"].append(suppress(suppression.nonMaximumSuppression, confidence, coordinates))
        with open(result_path, "w") as file:
            json.dump(results, file)
        return
    labels, metadata = check_interface(spec)
    probabilities = []
    for path in image_paths:
        pixels = np.fromfile(path, dtype=np.uint8)
        if pixels.size != SIDE * SIDE * 3:
            fail(f"{path}: expected {SIDE * SIDE * 3} bytes, found {pixels.size}")
        vector = evaluate(spec, pixels.reshape(SIDE, SIDE, 3))
        if vector.size != len(labels):
            fail(f"{vector.size} probabilities for {len(labels)} labels")
        probabilities.append(vector)
    with open(result_path, "w") as file:
        json.dump({
            "labels": labels,
            "metadata": metadata,
            "probabilities": [p.tolist() for p in probabilities],
            "classLabel": [labels[int(np.argmax(p))] for p in probabilities],
        }, file)


if __name__ == "__main__":
    main(sys.argv[1:])
