#!/usr/bin/env python3
"""Loads the runner's saved question answering models in Transformers and compares their start and
end logits with the golden's (tests/model/golden/qa/<family>.json, batch 0).

The runner's test "question answering: a saved model loads back with its head and logits"
(tests/model/test_question_answering.cpp) saves each family's golden model with save_pretrained into
build/test-tmp/qa_save_<family>; "question answering: export writes a folder
AutoModelForQuestionAnswering reads" writes build/test-tmp/qa_export/bert with export_weights. Then
(a venv outside the project holding torch and transformers):
  /work/venv-torch/bin/python scripts/golden/qa_export_check.py build/test-tmp
prints, per folder, the class Transformers built, its parameter names outside the encoder and the
largest logit difference; it exits 1 when a model is not AutoModelForQuestionAnswering's class for
its family, a weight is missing or new, or the logits differ by more than 1e-5.

Run that test with RUNNER_KEEP_TEST_TMP=1: a test executable whose tests all pass removes the
directories its tests made under build/test-tmp.
"""
import json
import os
import sys

FAMILIES = ["bert", "distilbert", "electra", "roberta", "deberta-v2", "modernbert"]


def check(folder, expected):
    import torch
    from transformers import AutoModelForQuestionAnswering
    model, info = AutoModelForQuestionAnswering.from_pretrained(folder, attn_implementation="eager",
                                                                output_loading_info=True)
    model.eval()
    batch = {k: torch.tensor(v) for k, v in expected["batches"][0].items()
             if k not in ("start_positions", "end_positions")}
    with torch.no_grad():
        out = model(**batch)
    diff = 0.0
    for side in ("start_logits", "end_logits"):
        want = torch.tensor(expected["forward"][side], dtype=torch.float64)
        diff = max(diff, float((getattr(out, side).double() - want).abs().max()))
    unloaded = list(info["missing_keys"]) + list(info["unexpected_keys"])
    head = [n for n, _ in model.named_parameters() if not n.startswith(model.base_model_prefix + ".")]
    ok = type(model).__name__ == expected["architecture"] and not unloaded and diff <= 1e-5
    print(f"{folder}: {type(model).__name__} head {head} unloaded {unloaded} max logit diff {diff:.3g}",
          "ok" if ok else "FAILED")
    return ok


def main():
    import torch
    torch.set_num_threads(1)
    root = sys.argv[1]
    golden = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "model", "golden", "qa")
    folders = [(os.path.join(root, "qa_save_" + f), f) for f in FAMILIES]
    folders.append((os.path.join(root, "qa_export", "bert"), "bert"))
    bad = 0
    for folder, family in folders:
        expected = json.load(open(os.path.join(golden, family + ".json")))
        bad += not check(folder, expected)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
