#!/usr/bin/env python3
"""Writes the scikit-learn goldens for Tests/TrainingTests (logistic regression and standardisation).

Usage: .venv/bin/python3 scripts/make-training-fixtures.py

Each case is a small, seeded, overlapping three-class problem with raw features on different scales and one
constant column. scikit-learn standardises it (StandardScaler: population std, scale 1 for a constant column) and
fits a multinomial LogisticRegression(C = 1 / l2) with lbfgs to a tight tolerance. The JSON holds the raw inputs,
scikit-learn's standardisation statistics, the fitted coefficients and intercepts, and the predicted probabilities
on the standardised training features. Workbench's trainer must reproduce these from the raw inputs.
"""
import json
import os

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

OUTPUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "TrainingTests", "Fixtures")


def make_case(name, seed, class_sizes, l2, class_weight):
    rng = np.random.default_rng(seed)
    dimension = 6
    centres = rng.normal(0.0, 1.2, size=(len(class_sizes), dimension))
    rows, labels = [], []
    for label, size in enumerate(class_sizes):
        rows.append(centres[label] + rng.normal(0.0, 1.0, size=(size, dimension)))
        labels += [label] * size
    features = np.concatenate(rows)
    # Interleave the classes so nothing depends on samples arriving grouped.
    order = rng.permutation(len(labels))
    features, labels = features[order], np.array(labels)[order]
    # Different offsets and scales per column, and a constant last column.
    features = features * np.array([1.0, 10.0, 0.1, 3.0, 0.5, 0.0]) + np.array([5.0, -20.0, 0.3, 0.0, 1.0, 7.0])
    features = features.astype(np.float32)  # what Workbench stores; everything below starts from these values

    scaler = StandardScaler().fit(features.astype(np.float64))
    standardised = scaler.transform(features.astype(np.float64))
    model = LogisticRegression(C=1.0 / l2, tol=1e-10, max_iter=10000, class_weight=class_weight)
    model.fit(standardised, labels)
    assert model.coef_.shape == (len(class_sizes), dimension), "expected a multinomial fit"
    probabilities = model.predict_proba(standardised)

    case = {
        "generator": f"scripts/make-training-fixtures.py, scikit-learn {sklearn.__version__}, numpy {np.__version__}",
        "count": int(len(labels)),
        "dimension": dimension,
        "classCount": len(class_sizes),
        "l2": l2,
        "classWeighting": "balanced" if class_weight == "balanced" else "uniform",
        "features": [float(value) for value in features.reshape(-1)],
        "labels": [int(value) for value in labels],
        "mean": [float(value) for value in scaler.mean_],
        "scale": [float(value) for value in scaler.scale_],
        "coefficients": [float(value) for value in model.coef_.reshape(-1)],
        "intercepts": [float(value) for value in model.intercept_],
        "probabilities": [float(value) for value in probabilities.reshape(-1)],
        "iterations": int(np.max(model.n_iter_)),
    }
    path = os.path.join(OUTPUT, f"{name}.json")
    with open(path, "w") as handle:
        json.dump(case, handle, indent=1)
        handle.write("\n")
    print(f"{path}: {case['count']} samples, sklearn iterations {case['iterations']}")


if __name__ == "__main__":
    os.makedirs(OUTPUT, exist_ok=True)
    make_case("logistic-uniform", seed=7, class_sizes=[30, 30, 30], l2=1.0, class_weight=None)
    make_case("logistic-balanced", seed=11, class_sizes=[50, 25, 15], l2=0.5, class_weight="balanced")
    make_case("logistic-weak-penalty", seed=13, class_sizes=[30, 30, 30], l2=0.01, class_weight=None)
