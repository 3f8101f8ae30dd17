#!/usr/bin/env python3
"""Golden values of the runner's evaluation metrics, computed by scikit-learn and SciPy.

The runner's metrics (src/train/metrics_*.cpp) are written in C++ without either library;
tests/train/test_metrics.cpp holds them to the values this script writes to
tests/train/golden/metrics.json. Run it in a virtual environment outside the project:

    python3 -m venv /tmp/venv-golden && /tmp/venv-golden/bin/pip install scikit-learn scipy
    /tmp/venv-golden/bin/python scripts/golden/metrics_golden.py --out tests/train/golden/metrics.json

Each case is a fixed input (written here, so the file is the same on every machine) and the
value each metric has on it:

  * single-label cases call sklearn.metrics.{accuracy_score, f1_score (average "binary" for
    "f1", "macro", "micro", "weighted"), matthews_corrcoef} with their defaults, that is with
    no `labels=` (the classes are those seen in the labels or the predictions) and
    zero_division "warn", which counts 0. The case "empty_class" has a class that is never
    predicted and one that is predicted but never true: their F1 is 0 and still averaged.
  * single-label cases also record each class's precision, recall, F1 and support
    (precision_recall_fscore_support, average=None) and the confusion matrix (rows: the true
    class, columns: the predicted one) over the classes seen, in class order.
  * multi-label cases are 0/1 indicator matrices: f1_score average "micro" / "macro" (every
    column counts, an all-zero one included) and accuracy_score (exact match).
  * regression cases call scipy.stats.pearsonr, scipy.stats.spearmanr (average ranks for
    ties) and sklearn.metrics.mean_squared_error. For a constant prediction SciPy returns nan
    and warns ConstantInputWarning; the runner defines the value as 0 and warns, so the case
    "constant_prediction" records 0 and says that SciPy gave nan.
"""
import argparse
import json
import math
import platform
import warnings

import numpy as np
import scipy
import scipy.stats
import sklearn
from sklearn.metrics import (accuracy_score, confusion_matrix, f1_score, matthews_corrcoef, mean_squared_error,
                             precision_recall_fscore_support)

SINGLE_LABEL = {
    "binary": {
        "labels": [1, 0, 1, 1, 0, 1, 0, 0, 1, 1],
        "predictions": [1, 0, 0, 1, 1, 1, 0, 1, 1, 0],
    },
    "three_classes": {
        "labels": [0, 1, 2, 2, 1, 0, 2, 1, 1, 0, 2, 2],
        "predictions": [0, 2, 2, 1, 1, 0, 2, 1, 0, 0, 2, 1],
    },
    # Class 3 is never predicted; class 4 is predicted once but never true.
    "empty_class": {
        "labels": [0, 1, 2, 3, 3, 0, 1, 2, 0, 1],
        "predictions": [0, 1, 2, 0, 1, 0, 4, 2, 0, 1],
    },
}

MULTI_LABEL = {
    # 6 examples x 4 labels; label 3 is neither true nor predicted anywhere.
    "four_labels": {
        "labels": [[1, 0, 1, 0], [0, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [1, 0, 0, 0], [0, 1, 1, 0]],
        "predictions": [[1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0], [0, 1, 1, 0]],
    },
}

REGRESSION = {
    "scores": {
        "targets": [0.0, 1.2, 2.5, 3.1, 4.8, 2.2, 3.9, 1.0, 0.4, 5.0],
        "scores": [0.3, 1.0, 2.9, 2.7, 4.1, 2.5, 3.3, 1.6, 0.2, 4.4],
    },
    # Ties in both: three targets of 3.0, two of 1.0; two predictions of 2.0, three of 4.0.
    "ties": {
        "targets": [1.0, 3.0, 3.0, 5.0, 1.0, 3.0, 4.5, 0.5],
        "scores": [2.0, 4.0, 4.0, 4.0, 2.0, 3.5, 5.0, 0.0],
    },
    "constant_prediction": {
        "targets": [0.5, 1.5, 2.5, 3.5, 4.5],
        "scores": [2.0, 2.0, 2.0, 2.0, 2.0],
    },
}


def single_label(case):
    y, p = case["labels"], case["predictions"]
    out = {
        "accuracy": accuracy_score(y, p),
        "macro_f1": f1_score(y, p, average="macro", zero_division=0),
        "micro_f1": f1_score(y, p, average="micro", zero_division=0),
        "weighted_f1": f1_score(y, p, average="weighted", zero_division=0),
        "mcc": matthews_corrcoef(y, p),
    }
    if set(y) | set(p) <= {0, 1}:
        out["f1"] = f1_score(y, p, average="binary", pos_label=1, zero_division=0)
    return out


def per_class(case):
    y, p = case["labels"], case["predictions"]
    classes = sorted(set(y) | set(p))
    precision, recall, f1, support = precision_recall_fscore_support(
        y, p, labels=classes, average=None, zero_division=0)
    return {
        "classes": classes,
        "precision": precision.tolist(),
        "recall": recall.tolist(),
        "f1": f1.tolist(),
        "support": [int(n) for n in support],
        "confusion": confusion_matrix(y, p, labels=classes).tolist(),
    }


def multi_label(case):
    y, p = np.array(case["labels"]), np.array(case["predictions"])
    return {
        "micro_f1": f1_score(y, p, average="micro", zero_division=0),
        "macro_f1": f1_score(y, p, average="macro", zero_division=0),
        "subset_accuracy": accuracy_score(y, p),
    }


def correlation(fn, scores, targets, note):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = float(fn(scores, targets)[0])
    if math.isnan(value):
        said = "; ".join(type(w.message).__name__ for w in caught)
        note.append(f"{fn.__name__}: SciPy returned nan ({said}); the runner defines it as 0")
        return 0.0
    return value


def regression(case):
    s, t = case["scores"], case["targets"]
    notes = []
    out = {
        "pearson": correlation(scipy.stats.pearsonr, s, t, notes),
        "spearman": correlation(scipy.stats.spearmanr, s, t, notes),
        "mse": mean_squared_error(t, s),
    }
    return out, notes


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    doc = {
        "provenance": {
            "generator": "scripts/golden/metrics_golden.py",
            "python": platform.python_version(),
            "scikit-learn": sklearn.__version__,
            "scipy": scipy.__version__,
            "numpy": np.__version__,
        },
        "single_label": {},
        "multi_label": {},
        "regression": {},
    }
    for name, case in SINGLE_LABEL.items():
        doc["single_label"][name] = {**case, "expected": single_label(case), "per_class": per_class(case)}
    for name, case in MULTI_LABEL.items():
        doc["multi_label"][name] = {**case, "expected": multi_label(case)}
    for name, case in REGRESSION.items():
        expected, notes = regression(case)
        entry = {**case, "expected": expected}
        if notes:
            entry["notes"] = notes
        doc["regression"][name] = entry
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
