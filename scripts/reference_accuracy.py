#!/usr/bin/env python3
"""The reference pipeline for Workbench's accuracy: the reference network's features (onnxruntime on the
reference's ONNX graph, Pillow decoding and the reference preprocessing) plus scikit-learn's LogisticRegression on
standardised features, on a Create ML-style dataset (Training Data / Testing Data).

Transparent pixels are composited onto white, as Workbench does (Pillow's convert("RGB") would keep whatever colour
hides under the transparency, often black, which is not what a person sees).

Usage: .venv/bin/python3 scripts/reference_accuracy.py FEATURES.onnx DATASET [--C 1.0]
Prints JSON: {"training_accuracy", "testing_accuracy", "training_count", "testing_count", "C"}.
"""
import argparse
import json
import pathlib

import numpy as np
import onnxruntime
from PIL import Image
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

SIDE = 224


def network_input(path):
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P", "PA") or "transparency" in image.info:
        image = image.convert("RGBA")
        white = Image.new("RGBA", image.size, (255, 255, 255, 255))
        image = Image.alpha_composite(white, image)
    image = image.convert("RGB")
    width, height = image.size
    crop = int((SIDE / (SIDE + 32)) * min(width, height))
    top, left = ((height - crop) + 1) // 2, ((width - crop) + 1) // 2
    image = image.crop((left, top, left + crop, top + crop)).resize((SIDE, SIDE), Image.BICUBIC)
    return ((np.asarray(image, np.float32) - 127.0) / 128.0).transpose(2, 0, 1)


def split(folder, labels=None):
    labels = labels or sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
    paths, truths = [], []
    for index, label in enumerate(labels):
        for path in sorted((folder / label).rglob("*")):
            if path.suffix.lower() in (".png", ".jpg", ".jpeg") and not path.name.startswith("."):
                paths.append(path)
                truths.append(index)
    return labels, paths, np.array(truths)


def features(session, paths):
    name = session.get_inputs()[0].name
    rows = []
    for first in range(0, len(paths), 16):
        rows.append(session.run(None, {name: np.stack([network_input(p) for p in paths[first:first + 16]])})[0])
    return np.concatenate(rows)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("--C", type=float, default=1.0)
    arguments = parser.parse_args()
    session = onnxruntime.InferenceSession(arguments.model, providers=["CPUExecutionProvider"])
    labels, training_paths, training_truths = split(arguments.dataset / "Training Data")
    _, testing_paths, testing_truths = split(arguments.dataset / "Testing Data", labels)
    scaler = StandardScaler().fit(training_features := features(session, training_paths))
    classifier = LogisticRegression(C=arguments.C, max_iter=10000, tol=1e-8)
    classifier.fit(scaler.transform(training_features), training_truths)
    testing_features = scaler.transform(features(session, testing_paths))
    print(json.dumps({
        "training_accuracy": float(classifier.score(scaler.transform(training_features), training_truths)),
        "testing_accuracy": float(classifier.score(testing_features, testing_truths)),
        "training_count": len(training_paths), "testing_count": len(testing_paths), "C": arguments.C,
    }))


if __name__ == "__main__":
    main()
