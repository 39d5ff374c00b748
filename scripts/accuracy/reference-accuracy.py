#!/usr/bin/env python3
"""The reference pipeline for Workbench's accuracy: the reference network's features (onnxruntime on the
reference's ONNX graph, Pillow decoding and the reference preprocessing) plus scikit-learn's LogisticRegression on
standardised features, on a Create ML-style dataset (Training Data / Testing Data).

By default C is chosen the plain way: over C = 1e-4, 1e-3, ..., 1e4, by accuracy on a stratified 10 % of the
training images (scikit-learn's StratifiedShuffleSplit, random_state 0; ties go to the smaller C, the stronger
regularisation), then the model is refitted on all training images with that C. `--C` fixes C instead.
The testing images are only ever used for the final score.

Transparent pixels are composited onto white, as Workbench does (Pillow's convert("RGB") would keep whatever colour
hides under the transparency, often black, which is not what a person sees).

Usage: .venv/bin/python3 scripts/accuracy/reference-accuracy.py FEATURES.onnx DATASET [--C 1.0] [--cache DIR]
Prints JSON: {"training_accuracy", "testing_accuracy", "training_count", "testing_count", "C", "grid",
"split_accuracies", "testing_ece"}. With --cache, features are kept in DIR/<dataset name>-<hash>.npy between runs.
"""
import argparse
import hashlib
import json
import pathlib

import numpy as np
import onnxruntime
from PIL import Image
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedShuffleSplit
from sklearn.preprocessing import StandardScaler

SIDE = 224
GRID = [10.0 ** exponent for exponent in range(-4, 5)]


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


def cached_features(session, paths, cache, dataset):
    """Features for `paths`, from `cache` when it holds them for exactly these files (names and sizes)."""
    if cache is None:
        return features(session, paths)
    key = hashlib.sha256("\n".join(f"{p}:{p.stat().st_size}" for p in paths).encode()).hexdigest()[:16]
    file = cache / f"{dataset.resolve().name}-{key}.npy"
    if file.exists():
        return np.load(file)
    cache.mkdir(parents=True, exist_ok=True)
    values = features(session, paths)
    np.save(file, values)
    return values


def expected_calibration_error(probabilities, truths, bins=15):
    confidence = probabilities.max(axis=1)
    correct = probabilities.argmax(axis=1) == truths
    # Bins (k/15, (k+1)/15], the first one closed at 0.
    index = np.clip(np.ceil(confidence * bins).astype(int) - 1, 0, bins - 1)
    error = 0.0
    for b in range(bins):
        members = index == b
        if members.any():
            error += members.mean() * abs(correct[members].mean() - confidence[members].mean())
    return float(error)


def fit(C, features, truths):
    return LogisticRegression(C=C, max_iter=10000, tol=1e-8).fit(features, truths)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("model")
    parser.add_argument("dataset", type=pathlib.Path)
    parser.add_argument("--C", type=float, help="fix C instead of choosing it on a stratified 10 %% split")
    parser.add_argument("--cache", type=pathlib.Path, help="keep features here between runs")
    arguments = parser.parse_args()
    session = onnxruntime.InferenceSession(arguments.model, providers=["CPUExecutionProvider"])
    labels, training_paths, training_truths = split(arguments.dataset / "Training Data")
    _, testing_paths, testing_truths = split(arguments.dataset / "Testing Data", labels)
    training_raw = cached_features(session, training_paths, arguments.cache, arguments.dataset)
    testing_raw = cached_features(session, testing_paths, arguments.cache, arguments.dataset)

    split_accuracies = []
    if arguments.C is None:
        held = StratifiedShuffleSplit(n_splits=1, test_size=0.1, random_state=0)
        fit_rows, check_rows = next(held.split(training_raw, training_truths))
        scaler = StandardScaler().fit(training_raw[fit_rows])
        for C in GRID:
            model = fit(C, scaler.transform(training_raw[fit_rows]), training_truths[fit_rows])
            split_accuracies.append(float(model.score(scaler.transform(training_raw[check_rows]), training_truths[check_rows])))
        best = max(split_accuracies)
        C = GRID[split_accuracies.index(best)]  # the first best: the smallest C
    else:
        C = arguments.C

    scaler = StandardScaler().fit(training_raw)
    classifier = fit(C, scaler.transform(training_raw), training_truths)
    testing_features = scaler.transform(testing_raw)
    print(json.dumps({
        "training_accuracy": float(classifier.score(scaler.transform(training_raw), training_truths)),
        "testing_accuracy": float(classifier.score(testing_features, testing_truths)),
        "training_count": len(training_paths), "testing_count": len(testing_paths), "C": C,
        "grid": GRID if arguments.C is None else [C], "split_accuracies": split_accuracies,
        "testing_ece": expected_calibration_error(classifier.predict_proba(testing_features), testing_truths),
    }))


if __name__ == "__main__":
    main()
