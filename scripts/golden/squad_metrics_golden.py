#!/usr/bin/env python3
"""Goldens of the runner's SQuAD metrics (src/train/metrics_squad.cpp, squad_normalize.cpp).

Runs the `evaluate` library's `squad` (v1.1) and `squad_v2` metrics, which wrap the official
evaluation scripts, on hand-made edge cases and on predictions drawn from a fixed seed, and
writes what they return; tests/train/test_metrics_squad.cpp holds every value to it within
1e-12. It also records the official normalize_answer of every answer and prediction text.

The metric scripts live on the Hugging Face Hub, which this machine cannot reach, so they are
loaded from a checkout of github.com/huggingface/evaluate (its metrics/squad and
metrics/squad_v2 folders, the same scripts the Hub serves). Run it in a virtual environment
outside the project, from the project root:

    python3 -m venv /work/venv-golden && /work/venv-golden/bin/pip install evaluate
    git clone https://github.com/huggingface/evaluate /tmp/evaluate-src
    /work/venv-golden/bin/python scripts/golden/squad_metrics_golden.py \
        --metrics /tmp/evaluate-src/metrics --shared ../shared --out tests/train/golden/squad_metrics.json

Hand-made cases (HAND below): punctuation, articles inside and around words, case, unicode
(accents, CJK, Greek capital sigma, non-breaking and ideographic spaces, U+0130), empty texts
on either side, several golds, gold answers that normalise to nothing, unanswerable questions
answered and not, no-answer probabilities over and under the threshold, ties.

Random cases: contexts are SST-2 dev sentences; each question's gold answers are 1 to 3 word
spans of its sentence; the prediction is another span near one of them, often overlapping,
sometimes with its case changed, an article or punctuation added, or empty. For v2.0 a third
of the questions have no answer and every prediction gets a no-answer probability drawn on a
0.05 grid (so ties occur). squad_v2 reads no_answer_probability as float32, so every probability
is rounded to float32 before the metric sees it and the golden stores that rounded value. random.Random(SEED) draws everything.
"""
import argparse
import importlib.util
import json
import os
import platform
import random

import evaluate
import numpy as np

SEED = 20261206

HAND_V1 = [
    ("exact after normalisation", [("q1", "The Eiffel Tower!")], [("q1", ["eiffel tower"])]),
    ("articles as whole words only", [("q1", "an another theatre a")], [("q1", ["another theatre"])]),
    ("articles inside punctuation", [("q1", "the-end (a) an.")], [("q1", ["end"])]),
    ("partial overlap", [("q1", "in the year 1990 in Paris")], [("q1", ["1990 in Paris, France"])]),
    ("repeated tokens counted once each", [("q1", "paris paris paris")], [("q1", ["paris and paris"])]),
    ("best of several golds", [("q1", "blue whale")], [("q1", ["the whale", "a blue whale", "shark"])]),
    ("no overlap", [("q1", "cat")], [("q1", ["dog"])]),
    ("empty prediction", [("q1", "")], [("q1", ["dog"])]),
    ("prediction only punctuation", [("q1", "?!...")], [("q1", ["dog"])]),
    ("unicode accents and case", [("q1", "ÉCOLE Zoë")], [("q1", ["école zoë"])]),
    ("greek final sigma", [("q1", "ΟΔΟΣ ΣΑΣ")], [("q1", ["οδος σας"]), ]),
    ("dotted capital I", [("q1", "İstanbul")], [("q1", ["i̇stanbul"])]),
    ("unicode whitespace", [("q1", "new\u00a0york\u3000city\u2003now")], [("q1", ["new york city now"])]),
    ("ascii separators are spaces", [("q1", "a\x1cb\x1fc")], [("q1", ["b c"])]),
    ("unicode punctuation is kept", [("q1", "«Paris» — France")], [("q1", ["Paris France"])]),
    ("cjk", [("q1", "東京 タワー")], [("q1", ["東京タワー", "東京 タワー"])]),
    ("underscore and digits", [("q1", "the_a a_the 3a a3")], [("q1", ["thea athe 3a a3"])]),
    ("combining mark after article", [("q1", "the\u0301 cat")], [("q1", ["\u0301 cat"])]),
]

HAND_V2 = [
    ("unanswerable answered empty", [("q1", "", 0.9), ("q2", "paris", 0.1)],
     [("q1", []), ("q2", ["Paris"])], 1.0),
    ("unanswerable answered text", [("q1", "london", 0.2), ("q2", "", 0.7)],
     [("q1", []), ("q2", ["Paris"])], 1.0),
    ("threshold turns answers to no answer", [("q1", "london", 0.6), ("q2", "paris", 0.4), ("q3", "rome", 0.8)],
     [("q1", []), ("q2", ["Paris"]), ("q3", ["Rome", "rome city"])], 0.5),
    ("gold that normalises to nothing", [("q1", "", 0.3), ("q2", "a", 0.3)],
     [("q1", ["the", "!"]), ("q2", ["an"])], 1.0),
    ("only answerable", [("q1", "the cat", 0.0), ("q2", "dog house", 0.5)],
     [("q1", ["cat"]), ("q2", ["the dog"])], 1.0),
    ("only unanswerable", [("q1", "", 0.0), ("q2", "x", 0.5)], [("q1", []), ("q2", [])], 1.0),
    ("ties in no-answer probability", [("q1", "a b", 0.5), ("q2", "", 0.5), ("q3", "c", 0.5), ("q4", "d e", 0.2)],
     [("q1", ["b"]), ("q2", []), ("q3", []), ("q4", ["d e"])], 1.0),
    ("empty gold and empty prediction", [("q1", "", 0.1)], [("q1", [""])], 1.0),
]


def load_compute_score(metrics, name):
    spec = importlib.util.spec_from_file_location(f"{name}_compute_score",
                                                  os.path.join(metrics, name, "compute_score.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def sst2_sentences(shared):
    with open(os.path.join(shared, "data/glue/SST-2/dev.tsv"), encoding="utf-8") as f:
        lines = f.read().split("\n")[1:]
    return [line.split("\t")[0] for line in lines if line]


def span(words, rng, near=None):
    if near is None:
        start = rng.randrange(len(words))
    else:
        start = max(0, min(len(words) - 1, near + rng.randint(-2, 2)))
    end = min(len(words), start + rng.randint(1, 4))
    return " ".join(words[start:end]), start


def perturb(text, rng):
    r = rng.random()
    if r < 0.15:
        return text.upper()
    if r < 0.3:
        return "the " + text + rng.choice([".", "!", " ,", ""])
    if r < 0.4:
        return ""
    return text


def random_case(sentences, rng, version, count):
    predictions, references = [], []
    for i in range(count):
        words = rng.choice(sentences).split()
        qid = f"r{i}"
        unanswerable = version == 2 and rng.random() < 1 / 3
        golds, starts = [], []
        for _ in range(0 if unanswerable else rng.randint(1, 3)):
            text, start = span(words, rng)
            golds.append(text)
            starts.append(start)
        if unanswerable:
            pred = "" if rng.random() < 0.5 else span(words, rng)[0]
        else:
            pred = perturb(span(words, rng, near=rng.choice(starts))[0], rng)
        predictions.append((qid, pred, as_float32(rng.randint(0, 20) * 0.05)))
        references.append((qid, golds))
    return predictions, references


def as_float32(x):
    # squad_v2 declares no_answer_probability float32, so it compares the float32 nearest each
    # probability; the golden stores that value, which a double holds exactly.
    return float(np.float32(x))


def run_v1(metric, predictions, references):
    preds = [{"id": q, "prediction_text": t} for q, t, *_ in predictions]
    refs = [{"id": q, "answers": {"text": a, "answer_start": [0] * len(a)}} for q, a in references]
    return metric.compute(predictions=preds, references=refs)


def run_v2(metric, predictions, references, threshold):
    preds = [{"id": q, "prediction_text": t, "no_answer_probability": as_float32(p)} for q, t, p in predictions]
    refs = [{"id": q, "answers": {"text": a, "answer_start": [0] * len(a)}} for q, a in references]
    return metric.compute(predictions=preds, references=refs, no_answer_threshold=threshold)


def case_json(name, version, predictions, references, threshold, result):
    return {"name": name, "version": version, "no_answer_threshold": threshold,
            "predictions": [{"id": p[0], "text": p[1], "no_answer_probability": as_float32(p[2]) if len(p) > 2 else 0.0}
                            for p in predictions],
            "references": [{"id": q, "answers": a} for q, a in references],
            "result": {k: float(v) for k, v in result.items()}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metrics", required=True, help="the metrics/ folder of an evaluate checkout")
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--out", default="tests/train/golden/squad_metrics.json")
    args = ap.parse_args()
    v1 = evaluate.load(os.path.join(args.metrics, "squad"))
    v2 = evaluate.load(os.path.join(args.metrics, "squad_v2"))
    rng = random.Random(SEED)
    sentences = sst2_sentences(args.shared)
    cases = []
    for name, preds, refs in HAND_V1:
        cases.append(case_json(name, 1, preds, refs, 1.0, run_v1(v1, preds, refs)))
    for name, preds, refs, threshold in HAND_V2:
        cases.append(case_json(name, 2, preds, refs, threshold, run_v2(v2, preds, refs, threshold)))
    for k in range(10):
        preds, refs = random_case(sentences, rng, 1, 60)
        cases.append(case_json(f"random v1.1 {k}", 1, preds, refs, 1.0, run_v1(v1, preds, refs)))
    for k in range(10):
        preds, refs = random_case(sentences, rng, 2, 60)
        threshold = [1.0, 0.5, 0.25][k % 3]
        cases.append(case_json(f"random v2.0 {k}", 2, preds, refs, threshold, run_v2(v2, preds, refs, threshold)))
    official = load_compute_score(args.metrics, "squad_v2")
    texts = sorted({t for c in cases for p in c["predictions"] for t in [p["text"]]} |
                   {t for c in cases for r in c["references"] for t in r["answers"]})
    normalized = [{"text": t, "normalized": official.normalize_answer(t)} for t in texts]
    doc = {"provenance": {"generator": "scripts/golden/squad_metrics_golden.py", "seed": SEED,
                          "python": platform.python_version(), "evaluate": evaluate.__version__},
           "normalize": normalized, "cases": cases}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
