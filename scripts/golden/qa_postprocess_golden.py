#!/usr/bin/env python3
"""Goldens of the runner's QA post-processing (src/train/qa_postprocess.cpp).

Runs postprocess_qa_predictions of Transformers' examples/pytorch/question-answering/utils_qa.py
(imported from --utils-qa: that file of a transformers checkout) on the validation windows of
qa_features_golden.py (WordPiece, max_length 64, doc_stride 16, so most questions have several
windows) with start and end logits drawn from random.Random(SEED) as float32 (what a model
gives), and writes the windows, the logits and what it returns (predictions.json,
nbest_predictions.json and, for v2.0, null_odds.json that it writes to output_dir);
tests/train/test_qa_postprocess.cpp holds the runner to it.

The logits are normal draws, a few positions raised so that spans inside the context win
often, and the CLS logits raised for some windows so that null answers win sometimes. Runs:
v1.1 with the defaults (n_best_size 20, max_answer_length 30), v1.1 with n_best_size 5 and
max_answer_length 4, v2.0 with null_score_diff_threshold 0.0 and 1.5.

Run from the project root in the virtual environment of qa_features_golden.py (numpy, tqdm,
transformers, tokenizers):

    /work/venv-golden/bin/python scripts/golden/qa_postprocess_golden.py --shared ../shared \
        --utils-qa TRANSFORMERS_CHECKOUT/examples/pytorch/question-answering/utils_qa.py \
        --out tests/train/golden/qa_postprocess.json
"""
import argparse
import importlib.util
import json
import os
import random
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qa_features_golden as features_golden  # noqa: E402

SEED = 20261208
RUNS = [
    {"version_2_with_negative": False, "n_best_size": 20, "max_answer_length": 30, "null_score_diff_threshold": 0.0},
    {"version_2_with_negative": False, "n_best_size": 5, "max_answer_length": 4, "null_score_diff_threshold": 0.0},
    {"version_2_with_negative": True, "n_best_size": 20, "max_answer_length": 30, "null_score_diff_threshold": 0.0},
    {"version_2_with_negative": True, "n_best_size": 20, "max_answer_length": 30, "null_score_diff_threshold": 1.5},
]


class Examples(list):
    # What utils_qa reads of a datasets.Dataset: examples["id"] and iteration over rows.
    def __getitem__(self, key):
        if isinstance(key, str):
            return [e[key] for e in self]
        return list.__getitem__(self, key)


def load_utils_qa(path):
    spec = importlib.util.spec_from_file_location("utils_qa", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def random_logits(window, rng):
    n = len(window["offsets"])
    start = np.array([rng.gauss(0, 1) for _ in range(n)], dtype=np.float32)
    end = np.array([rng.gauss(0, 1) for _ in range(n)], dtype=np.float32)
    context = [k for k, o in enumerate(window["offsets"]) if o is not None]
    if context:
        s = rng.choice(context)
        start[s] += np.float32(3.0)
        end[min(context[-1], s + rng.randint(0, 5))] += np.float32(3.0)
    if rng.random() < 0.3:
        start[0] += np.float32(4.0)
        end[0] += np.float32(4.0)
    return start, end


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default="../shared")
    ap.add_argument("--utils-qa", required=True)
    ap.add_argument("--out", default="tests/train/golden/qa_postprocess.json")
    args = ap.parse_args()
    utils_qa = load_utils_qa(args.utils_qa)
    examples = features_golden.squad_examples(args.shared, random.Random(features_golden.SEED))
    root, rel, cls, pad = features_golden.TOKENIZERS["wordpiece"]
    tokenizer = features_golden.load(root, rel, cls, pad, args.shared)
    windows = features_golden.windows(tokenizer, examples, 64, 16)
    rng = random.Random(SEED)
    logits = [random_logits(w, rng) for w in windows]
    features = [{"example_id": examples[w["example"]]["id"], "offset_mapping": w["offsets"]} for w in windows]
    start = np.stack([s for s, _ in logits])
    end = np.stack([e for _, e in logits])
    runs = []
    for options in RUNS:
        with tempfile.TemporaryDirectory() as out_dir:
            utils_qa.postprocess_qa_predictions(Examples(examples), features, (start, end), output_dir=out_dir, **options)
            with open(os.path.join(out_dir, "predictions.json")) as f:
                predictions = json.load(f)
            with open(os.path.join(out_dir, "nbest_predictions.json")) as f:
                nbest = json.load(f)
            null_odds = None
            if options["version_2_with_negative"]:
                with open(os.path.join(out_dir, "null_odds.json")) as f:
                    null_odds = json.load(f)
        runs.append({"options": options, "predictions": predictions, "nbest": nbest, "null_odds": null_odds})
    doc = {"examples": [{"id": e["id"], "context": e["context"]} for e in examples],
           "windows": [{"example_id": f["example_id"], "offsets": f["offset_mapping"],
                        "start_logits": [float(x) for x in s], "end_logits": [float(x) for x in e]}
                       for f, (s, e) in zip(features, logits)],
           "runs": runs}
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
