#!/usr/bin/env python3
"""Loads the runner's saved token-classification models in Transformers and compares their logits
with the golden's (tests/model/golden/token/<family>.json, batch 0).

The runner's test "token classification: a saved model loads back with its head, labels and logits"
(tests/model/test_token_classification.cpp) saves each family's golden model with
save_pretrained into build/test-tmp/token_save_<family>. Then (a venv outside the project):
  /work/venv-torch/bin/python scripts/golden/token_export_check.py build/test-tmp
prints, per family, the class Transformers built, its id2label and the largest logit difference; it
exits 1 when a model is not AutoModelForTokenClassification's class or differs by more than 1e-5.

Run that test with RUNNER_KEEP_TEST_TMP=1: a test executable whose tests all pass removes the
directories its tests made under build/test-tmp.
"""
import json
import os
import sys

FAMILIES = ["bert", "distilbert", "electra", "roberta", "deberta-v2", "modernbert"]


def main():
    import torch
    from transformers import AutoModelForTokenClassification
    torch.set_num_threads(1)
    root = sys.argv[1]
    golden = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "model", "golden", "token")
    bad = 0
    for family in FAMILIES:
        expected = json.load(open(os.path.join(golden, family + ".json")))
        model = AutoModelForTokenClassification.from_pretrained(os.path.join(root, "token_save_" + family),
                                                                attn_implementation="eager").eval()
        batch = {k: torch.tensor(v) for k, v in expected["batches"][0].items() if k != "labels"}
        with torch.no_grad():
            logits = model(**batch).logits.double()
        diff = float((logits - torch.tensor(expected["forward"]["logits"], dtype=torch.float64)).abs().max())
        ok = type(model).__name__ == expected["architecture"] and diff <= 1e-5
        bad += not ok
        print(f"{family}: {type(model).__name__} {model.config.id2label} max logit diff {diff:.3g}",
              "ok" if ok else "FAILED")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
