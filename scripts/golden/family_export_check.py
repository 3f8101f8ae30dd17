#!/usr/bin/env python3
"""Checks that Transformers loads the runner's RoBERTa, DeBERTa-v2 or ModernBERT export and gives its logits.

Input: the folder that tests/train/test_new_family_trajectories.cpp leaves in
build/test-tmp/<family>_export: model/ (the tiny model after the runner's 20 training
steps, written by save_pretrained) and logits.json (the runner's logits, eval mode, on
batch 0 of tests/model/golden/<family>_parity.json). The model is loaded with
AutoModelForSequenceClassification (attn_implementation "eager", fp32, eval mode) and run
on the same batch. Written: the model class Transformers chose, both sides' logits and
their largest absolute difference; "agree" when it is within 1e-5 (the bound of
tests/model/test_new_families.cpp for two fp32 implementations of these models).

Run once per family; the outputs are committed as tests/model/golden/<family>_export_check.json:
  ./build/tests/unit_torch "roberta, deberta-v2 and modernbert: 20 training steps*"
  /work/venv-torch/bin/python scripts/golden/family_export_check.py --family roberta \
      --export build/test-tmp/roberta_export --out tests/model/golden/roberta_export_check.json
  (and the same with deberta-v2 and modernbert)

Run that test with RUNNER_KEEP_TEST_TMP=1: a test executable whose tests all pass removes the
directories its tests made under build/test-tmp.
"""
import argparse
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--family", required=True, choices=["roberta", "deberta-v2", "modernbert"])
    p.add_argument("--export", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    import torch
    import transformers
    from transformers import AutoModelForSequenceClassification
    torch.set_num_threads(1)
    model = AutoModelForSequenceClassification.from_pretrained(os.path.join(a.export, "model"),
                                                               attn_implementation="eager", dtype=torch.float32)
    model.eval()
    with open(os.path.join(ROOT, "tests", "model", "golden", a.family + "_parity.json"), encoding="utf-8") as f:
        batch = json.load(f)["batches"][0]
    with torch.no_grad():
        theirs = model(input_ids=torch.tensor(batch["input_ids"]),
                       attention_mask=torch.tensor(batch["attention_mask"])).logits.double().flatten().tolist()
    with open(os.path.join(a.export, "logits.json"), encoding="utf-8") as f:
        ours = json.load(f)
    worst = max(abs(x - y) for x, y in zip(ours, theirs))
    out = {"generator": "scripts/golden/family_export_check.py", "torch": torch.__version__,
           "transformers": transformers.__version__, "class": type(model).__name__,
           "runner_logits": ours, "transformers_logits": theirs, "max_abs_diff": worst,
           "agree": len(ours) == len(theirs) and worst <= 1e-5}
    with open(a.out, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1)
        f.write("\n")
    print(f"{out['class']}: max |runner - transformers| = {worst:.3g}, agree = {out['agree']}")


if __name__ == "__main__":
    main()
