#!/usr/bin/env python3
"""Checks a Core ML file written by Workbench's CoreMLExporter and evaluates it with a small numpy interpreter.

    check-coreml-export.py MODEL.mlmodel RESULT.json IMAGE.rgb [IMAGE.rgb ...]

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


def evaluate(spec, pixels):
    """pixels [224, 224, 3] uint8 RGB -> the classifier's probability vector (float64)."""
    classifier = spec.neuralNetworkClassifier
    image = pixels.astype(np.float64).transpose(2, 0, 1)  # Core ML hands the network [C, H, W]
    for step in classifier.preprocessing:
        if step.featureName != "image" or step.WhichOneof("preprocessor") != "scaler":
            fail("only an image scaler on `image` is supported as preprocessing")
        s = step.scaler
        image = image * s.channelScale + np.array([s.redBias, s.greenBias, s.blueBias])[:, None, None]
    blobs = {"image": image}
    for layer in classifier.layers:
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
        elif kind == "pooling":
            p = layer.pooling
            if not p.globalPooling or p.type != p.AVERAGE:
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
        else:
            fail(f"layer {layer.name}: kind {kind} is not supported by this interpreter")
        if len(layer.output) != 1:
            fail(f"layer {layer.name} has {len(layer.output)} outputs")
        blobs[layer.output[0]] = y
    name = classifier.labelProbabilityLayerName or "classLabelProbs"
    if name not in blobs:
        fail(f"no blob named {name}")
    return blobs[name].reshape(-1)


def main(arguments):
    if len(arguments) < 3:
        fail("usage: check-coreml-export.py MODEL.mlmodel RESULT.json IMAGE.rgb [IMAGE.rgb ...]")
    model_path, result_path, image_paths = arguments[0], arguments[1], arguments[2:]
    spec = coremltools.utils.load_spec(model_path)
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
